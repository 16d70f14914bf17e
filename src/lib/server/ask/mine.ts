import { and, desc, eq, ne, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { askCollect, askPost, askReply, user } from '../db/schema';
import { summaryColumns, toSummaries, type PostSummary } from './posts';

/** The member's own posts (hidden ones too, so they can see what a moderator hid). */
export async function myPosts(db: Db, userId: number, page: number, limit = 20): Promise<{ list: PostSummary[]; total: number }> {
  const where = and(eq(askPost.userId, userId), ne(askPost.status, 'deleted'));
  const [rows, [{ total } = { total: 0 }]] = await Promise.all([
    db.select(summaryColumns).from(askPost).innerJoin(user, eq(user.id, askPost.userId)).where(where).orderBy(desc(askPost.id)).limit(limit).offset((page - 1) * limit),
    db.select({ total: sql<number>`count(*)::int` }).from(askPost).where(where),
  ]);
  return { list: await toSummaries(db, rows), total };
}

/** Posts the member collected, newest collection first. */
export async function myCollections(db: Db, userId: number, page: number, limit = 20): Promise<{ list: (PostSummary & { collectTime: number })[]; total: number }> {
  const where = and(eq(askCollect.userId, userId), eq(askPost.status, 'published'));
  const [rows, [{ total } = { total: 0 }]] = await Promise.all([
    db.select({ ...summaryColumns, collectTime: askCollect.createTime }).from(askCollect).innerJoin(askPost, eq(askPost.id, askCollect.postId))
      .innerJoin(user, eq(user.id, askPost.userId)).where(where).orderBy(desc(askCollect.createTime), desc(askPost.id)).limit(limit).offset((page - 1) * limit),
    db.select({ total: sql<number>`count(*)::int` }).from(askCollect).innerJoin(askPost, eq(askPost.id, askCollect.postId)).where(where),
  ]);
  const summaries = await toSummaries(db, rows);
  return { list: summaries.map((s, i) => ({ ...s, collectTime: rows[i]!.collectTime })), total };
}

/** The member's replies and comments, each with the post it belongs to. */
export async function myReplies(db: Db, userId: number, page: number, limit = 20) {
  const where = and(eq(askReply.userId, userId), ne(askReply.status, 'deleted'), eq(askPost.status, 'published'));
  const [list, [{ total } = { total: 0 }]] = await Promise.all([
    db.select({
      id: askReply.id, postId: askReply.postId, parentId: askReply.parentId, excerpt: sql<string>`left(${askReply.body}, 200)`,
      title: askPost.title, accepted: sql<boolean>`${askPost.acceptedReplyId} = ${askReply.id}`, score: sql<number>`${askReply.upCount} - ${askReply.downCount}`,
      status: askReply.status, createTime: askReply.createTime,
    }).from(askReply).innerJoin(askPost, eq(askPost.id, askReply.postId)).where(where).orderBy(desc(askReply.id)).limit(limit).offset((page - 1) * limit),
    db.select({ total: sql<number>`count(*)::int` }).from(askReply).innerJoin(askPost, eq(askPost.id, askReply.postId)).where(where),
  ]);
  return { list: list.map((r) => ({ ...r, accepted: Boolean(r.accepted) })), total };
}
