import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db } from '../db/client';
import { askCategory, askPost, askPostTag, askReply, askReport, askTag, user } from '../db/schema';
import { AppError } from '../http';
import { notify } from '../messages/notify';
import { displayNameSql } from '../account/users';
import type { ModerateInput, ReportInput } from '../../shared/validation/ask';
import { inTransaction, touched } from '../write-scope';
import { askArea } from './cache-tags';

const now = (): number => Math.floor(Date.now() / 1000);
type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

/** The rule (button) that lets a group moderate the forum. */
export const MODERATE_RULE = 'ask/moderate';

/** Moves a post in or out of "published", keeping the category and tag counters exact. */
async function setPostStatus(tx: Tx, post: { id: number; status: string; categoryId: number; replyCount: number }, status: 'published' | 'hidden' | 'deleted'): Promise<void> {
  if (post.status === status) return;
  const delta = status === 'published' ? 1 : post.status === 'published' ? -1 : 0;
  await tx.update(askPost).set({ status, updateTime: now() }).where(eq(askPost.id, post.id));
  if (delta) {
    await tx.update(askCategory).set({ postCount: sql`${askCategory.postCount} + ${delta}` }).where(eq(askCategory.id, post.categoryId));
    const tags = tx.select({ id: askPostTag.tagId }).from(askPostTag).where(eq(askPostTag.postId, post.id));
    await tx.update(askTag).set({ postCount: sql`${askTag.postCount} + ${delta}` }).where(inArray(askTag.id, tags));
  }
}

/** A moderator's action on a post. Deleting is soft: the rows stay and can be restored. */
export async function moderatePost(db: Db, moderatorId: number, input: z.output<typeof ModerateInput>): Promise<void> {
  await inTransaction(db, async (tx) => {
    touched(askArea);
    const [post] = await tx.select().from(askPost).where(eq(askPost.id, input.post_id)).for('update');
    if (!post) throw new AppError('ask.notFound', { status: 404 });
    switch (input.action) {
      case 'hide': await setPostStatus(tx, post, 'hidden'); break;
      case 'show': case 'restore': await setPostStatus(tx, post, 'published'); break;
      case 'delete': await setPostStatus(tx, post, 'deleted'); break;
      case 'pin': case 'unpin': await tx.update(askPost).set({ pinned: input.action === 'pin' ? 1 : 0 }).where(eq(askPost.id, post.id)); break;
      case 'feature': case 'unfeature': await tx.update(askPost).set({ featured: input.action === 'feature' ? 1 : 0 }).where(eq(askPost.id, post.id)); break;
      case 'move': {
        if (!input.category_id) throw new AppError('ask.categoryMissing', { fieldKeys: { category_id: 'ask.categoryMissing' } });
        const [category] = await tx.select({ id: askCategory.id }).from(askCategory).where(eq(askCategory.id, input.category_id));
        if (!category) throw new AppError('ask.categoryMissing', { fieldKeys: { category_id: 'ask.categoryMissing' } });
        if (category.id === post.categoryId) break;
        await tx.update(askPost).set({ categoryId: category.id }).where(eq(askPost.id, post.id));
        if (post.status === 'published') {
          await tx.update(askCategory).set({ postCount: sql`${askCategory.postCount} - 1` }).where(eq(askCategory.id, post.categoryId));
          await tx.update(askCategory).set({ postCount: sql`${askCategory.postCount} + 1` }).where(eq(askCategory.id, category.id));
        }
        break;
      }
    }
    if (['hide', 'delete'].includes(input.action)) {
      await notify(tx, [{ type: 'ask_moderation', senderId: moderatorId, recipientId: post.userId, title: post.title, summary: input.action, link: `/ask/info/${post.id}` }]);
    }
  });
}

/**
 * Deletes (softly) a post or reply: its author or a moderator. A deleted reply leaves the counts;
 * an accepted one stops being accepted.
 */
export async function removeTarget(db: Db, actor: { id: number; moderator: boolean }, type: 'post' | 'reply', id: number): Promise<{ postId: number }> {
  return inTransaction(db, async (tx) => {
    touched(askArea);
    if (type === 'post') {
      const [post] = await tx.select().from(askPost).where(eq(askPost.id, id)).for('update');
      if (!post || post.status === 'deleted') throw new AppError('ask.notFound', { status: 404 });
      if (post.userId !== actor.id && !actor.moderator) throw new AppError('api.noPermission', { code: 401 });
      await setPostStatus(tx, post, 'deleted');
      return { postId: post.id };
    }
    const [reply] = await tx.select().from(askReply).where(eq(askReply.id, id));
    if (!reply || reply.status === 'deleted') throw new AppError('ask.replyMissing', { status: 404 });
    if (reply.userId !== actor.id && !actor.moderator) throw new AppError('api.noPermission', { code: 401 });
    const [post] = await tx.select({ id: askPost.id, accepted: askPost.acceptedReplyId }).from(askPost).where(eq(askPost.id, reply.postId)).for('update');
    await tx.update(askReply).set({ status: 'deleted', updateTime: now() }).where(eq(askReply.id, reply.id));
    if (reply.status === 'published') {
      if (reply.parentId) {
        await tx.update(askReply).set({ commentCount: sql`greatest(${askReply.commentCount} - 1, 0)` }).where(eq(askReply.id, reply.parentId));
      } else {
        await tx.update(askPost).set({
          replyCount: sql`greatest(${askPost.replyCount} - 1, 0)`,
          ...(post?.accepted === reply.id ? { acceptedReplyId: null } : {}),
        }).where(eq(askPost.id, reply.postId));
      }
    }
    return { postId: reply.postId };
  });
}

/** Puts back a post or reply a moderator removed, with the counts its removal took. */
export async function restoreTarget(db: Db, type: 'post' | 'reply', id: number): Promise<void> {
  await inTransaction(db, async (tx) => {
    touched(askArea);
    if (type === 'post') {
      const [post] = await tx.select().from(askPost).where(eq(askPost.id, id)).for('update');
      if (!post) throw new AppError('ask.notFound', { status: 404 });
      if (post.status === 'deleted') await setPostStatus(tx, post, 'published');
      return;
    }
    const [reply] = await tx.select().from(askReply).where(eq(askReply.id, id)).for('update');
    if (!reply) throw new AppError('ask.replyMissing', { status: 404 });
    if (reply.status !== 'deleted') return;
    await tx.update(askReply).set({ status: 'published', updateTime: now() }).where(eq(askReply.id, reply.id));
    if (reply.parentId) await tx.update(askReply).set({ commentCount: sql`${askReply.commentCount} + 1` }).where(eq(askReply.id, reply.parentId));
    else await tx.update(askPost).set({ replyCount: sql`${askPost.replyCount} + 1` }).where(eq(askPost.id, reply.postId));
  });
}

/** The author and title of a reported post or reply (null when it no longer exists). */
async function reportedTarget(db: Db, type: string, id: number): Promise<{ authorId: number; title: string; link: string } | null> {
  if (type === 'post') {
    const [post] = await db.select({ authorId: askPost.userId, title: askPost.title }).from(askPost).where(eq(askPost.id, id));
    return post ? { ...post, link: `/ask/info/${id}` } : null;
  }
  const [reply] = await db.select({ authorId: askReply.userId, title: askPost.title, postId: askPost.id }).from(askReply)
    .innerJoin(askPost, eq(askPost.id, askReply.postId)).where(eq(askReply.id, id));
  return reply ? { authorId: reply.authorId, title: reply.title, link: `/ask/info/${reply.postId}#reply-${id}` } : null;
}

export type ReportOutcome = 'remove' | 'dismiss' | 'restore';

/**
 * Tells the people a report decision concerns. The site speaks (sender 0), so a member who blocked
 * the moderator still learns what happened to their content. Titles are dictionary keys, shown in
 * each reader's language; the author's message carries the reason, the reporters' the post title.
 */
export async function tellReportOutcome(db: Db, report: { targetType: string; targetId: number }, outcome: ReportOutcome, reporterIds: readonly number[], reason: string): Promise<number> {
  const target = await reportedTarget(db, report.targetType, report.targetId);
  if (!target) return 0;
  const kind = report.targetType === 'post' ? 'post' : 'reply';
  const author = outcome === 'dismiss' ? [] : [{
    type: 'ask_report' as const, senderId: 0, recipientId: target.authorId, link: target.link, summary: reason,
    title: outcome === 'remove' ? `ask.notice.${kind}Removed` : `ask.notice.${kind}Restored`,
  }];
  const reporters = reporterIds.filter((id) => id !== target.authorId).map((id) => ({
    type: 'ask_report' as const, senderId: 0, recipientId: id, link: target.link, summary: target.title,
    title: outcome === 'remove' ? 'ask.notice.reportResolved' : 'ask.notice.reportDismissed',
  }));
  return notify(db, [...author, ...reporters]);
}

/** A member's own reports, newest first, with what became of them. */
export async function reportsBy(db: Db, userId: number, page: number, limit = 20) {
  const [{ total } = { total: 0 }] = await db.select({ total: sql<number>`count(*)::int` }).from(askReport).where(eq(askReport.userId, userId));
  const list = await db.select({
    id: askReport.id, targetType: askReport.targetType, targetId: askReport.targetId, postId: askReport.postId, reason: askReport.reason,
    status: askReport.status, createTime: askReport.createTime, handleTime: askReport.handleTime, title: askPost.title,
  }).from(askReport).innerJoin(askPost, eq(askPost.id, askReport.postId))
    .where(eq(askReport.userId, userId)).orderBy(desc(askReport.id)).limit(limit).offset((page - 1) * limit);
  return { total, list };
}

/** A member reports a post or reply; one open report per member and target. */
export async function report(db: Db, userId: number, input: z.output<typeof ReportInput>): Promise<void> {
  const table = input.type === 'post' ? askPost : askReply;
  const [target] = await db.select({ postId: input.type === 'post' ? askPost.id : askReply.postId, status: table.status }).from(table).where(eq(table.id, input.id));
  if (!target || target.status === 'deleted') throw new AppError('ask.notFound', { status: 404 });
  const inserted = await db.insert(askReport).values({ userId, targetType: input.type, targetId: input.id, postId: target.postId, reason: input.reason, createTime: now() })
    .onConflictDoNothing().returning({ id: askReport.id });
  if (!inserted.length) throw new AppError('ask.alreadyReported');
}

export async function reportPage(db: Db, status: 'open' | 'resolved' | 'dismissed', page: number, limit = 20) {
  const [{ total } = { total: 0 }] = await db.select({ total: sql<number>`count(*)::int` }).from(askReport).where(eq(askReport.status, status));
  const rows = await db.select({
    id: askReport.id, targetType: askReport.targetType, targetId: askReport.targetId, postId: askReport.postId, reason: askReport.reason,
    status: askReport.status, createTime: askReport.createTime, reporter: displayNameSql,
    title: askPost.title, excerpt: sql<string>`coalesce(left(${askReply.body}, 200), ${askPost.excerpt})`,
  }).from(askReport).innerJoin(user, eq(user.id, askReport.userId)).innerJoin(askPost, eq(askPost.id, askReport.postId))
    .leftJoin(askReply, and(eq(askReport.targetType, 'reply'), eq(askReply.id, askReport.targetId)))
    .where(eq(askReport.status, status)).orderBy(desc(askReport.id)).limit(limit).offset((page - 1) * limit);
  return { total, list: rows };
}

export async function decideReport(db: Db, moderatorId: number, id: number, status: 'resolved' | 'dismissed'): Promise<void> {
  const done = await db.update(askReport).set({ status, handledBy: moderatorId, handleTime: now() })
    .where(and(eq(askReport.id, id), eq(askReport.status, 'open'))).returning({ id: askReport.id });
  if (!done.length) throw new AppError('ask.reportMissing', { status: 404 });
}
