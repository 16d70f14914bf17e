import { and, asc, desc, eq, inArray, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db } from '../db/client';
import { askCategory, askCollect, askPost, askReply, askVote, user, userScoreLog } from '../db/schema';
import { AppError } from '../http';
import { adjustScore } from '../account/ledger';
import { displayNameSql as displayName } from '../account/users';
import { notify, type Notice } from '../messages/notify';
import type { ReplyInput } from '../../shared/validation/ask';
import { mentionedMembers, renderBody } from './render';
import { currentRenderSet } from '../modules/markdown';
import { mentionNotices, refreshHot, scoreSetting, type Author } from './posts';
import { plainText } from '../search/text';
import { recordModuleEvent } from '../modules/events';
import { inTransaction, touched } from '../write-scope';
import { askArea } from './cache-tags';

const now = (): number => Math.floor(Date.now() / 1000);

/**
 * Replies to a post or comments on a reply. Counters move in the same transaction; the post's
 * author (or the reply's author, for a comment) and anyone mentioned are told.
 */
export async function createReply(db: Db, authorId: number, input: z.output<typeof ReplyInput>): Promise<{ id: number; created: boolean }> {
  const { html, renderSet } = await renderBody(input.content, await mentionedMembers(db, input.content), 'reply');
  return inTransaction(db, async (tx) => {
    touched(askArea);
    const [post] = await tx.select({ id: askPost.id, userId: askPost.userId, title: askPost.title, status: askPost.status })
      .from(askPost).where(eq(askPost.id, input.post_id)).for('update');
    if (!post || post.status !== 'published') throw new AppError('ask.notFound', { status: 404 });
    let parent: { id: number; userId: number } | undefined;
    if (input.parent_id) {
      [parent] = await tx.select({ id: askReply.id, userId: askReply.userId }).from(askReply)
        .where(and(eq(askReply.id, input.parent_id), eq(askReply.postId, post.id), eq(askReply.parentId, 0), eq(askReply.status, 'published')));
      if (!parent) throw new AppError('ask.replyMissing', { status: 404 });
    }
    const t = now();
    const [row] = await tx.insert(askReply).values({
      postId: post.id, parentId: parent?.id ?? 0, userId: authorId, body: input.content, html, renderSet, nonce: input.nonce ?? null, createTime: t, updateTime: t,
    }).onConflictDoNothing().returning({ id: askReply.id });
    if (!row) {
      const [existing] = await tx.select({ id: askReply.id }).from(askReply).where(and(eq(askReply.userId, authorId), eq(askReply.nonce, input.nonce ?? '')));
      if (!existing) throw new AppError('api.invalidInput');
      return { id: existing.id, created: false };
    }
    const link = `/ask/info/${post.id}#reply-${parent?.id ?? row.id}`;
    // A summary is shown as text (message list, mail): the reply's words, not its markdown.
    const summary = plainText(input.content).slice(0, 200);
    const notices: Notice[] = [];
    if (parent) {
      await tx.update(askReply).set({ commentCount: sql`${askReply.commentCount} + 1` }).where(eq(askReply.id, parent.id));
      notices.push({ type: 'ask_comment', senderId: authorId, recipientId: parent.userId, title: post.title, summary, link });
    } else {
      await tx.update(askPost).set({ replyCount: sql`${askPost.replyCount} + 1`, lastActivityTime: t, lastReplyUserId: authorId }).where(eq(askPost.id, post.id));
      await refreshHot(tx, post.id);
      notices.push({ type: 'ask_reply', senderId: authorId, recipientId: post.userId, title: post.title, summary, link });
    }
    // One call: a member both replied to and mentioned is told once, by the reply.
    await notify(tx, [...notices, ...await mentionNotices(tx, input.content, authorId, post.title, link)]);
    await recordModuleEvent(tx, 'reply.created', { id: row.id, postId: post.id, parentId: parent?.id ?? 0, authorId, url: link });
    return { id: row.id, created: true };
  });
}

export interface ReplyView {
  id: number; author: Author; html: string; body: string; score: number; commentCount: number; accepted: boolean;
  status: string; createTime: number; updateTime: number; myVote: number;
  comments: { id: number; author: Author; html: string; status: string; createTime: number }[];
}

export const REPLY_PAGE = 30;

/** Which page of a post's replies, for whom. */
export interface ReplyPage {
  acceptedId: number | null;
  page: number;
  viewer: { id: number; moderator: boolean } | null;
  /** The post's reply counter (published replies, kept exact by every write): readers other than moderators, who also see hidden replies, need no count query. */
  publishedCount?: number;
  /** The markdown sources too (API clients edit them; the page shows only the HTML). */
  withBody?: boolean;
}

/** A page of a post's replies, the accepted one first, with their comments and the viewer's votes. */
export async function listReplies(db: Db, postId: number, { acceptedId, page, viewer, publishedCount, withBody = true }: ReplyPage): Promise<{ list: ReplyView[]; total: number }> {
  const visible = viewer?.moderator ? sql`${askReply.status} <> 'deleted'` : sql`${askReply.status} = 'published'`;
  const total = publishedCount !== undefined && !viewer?.moderator ? publishedCount
    : await db.select({ total: sql<number>`count(*)::int` }).from(askReply)
      .where(and(eq(askReply.postId, postId), eq(askReply.parentId, 0), visible)).then((r) => r[0]?.total ?? 0);
  // The page's replies and their comments in one statement (a round trip less on PGlite): both
  // halves read the page's reply ids (a short walk of the (post, parent, id) index), then their rows.
  // Ordered here, below.
  const inPage = db.select({ id: askReply.id }).from(askReply)
    .where(and(eq(askReply.postId, postId), eq(askReply.parentId, 0), visible))
    .orderBy(desc(sql`${askReply.id} = ${acceptedId ?? 0}`), asc(askReply.id)).limit(REPLY_PAGE).offset((page - 1) * REPLY_PAGE);
  const columns = (body: boolean) => ({
    id: askReply.id, parentId: askReply.parentId, userId: askReply.userId, nickname: displayName, avatar: user.avatar, html: askReply.html,
    body: body ? askReply.body : sql<string>`''`, up: askReply.upCount, down: askReply.downCount, commentCount: askReply.commentCount,
    status: askReply.status, createTime: askReply.createTime, updateTime: askReply.updateTime, renderSet: askReply.renderSet,
  });
  const both = await db.select(columns(withBody)).from(askReply).innerJoin(user, eq(user.id, askReply.userId))
    .where(inArray(askReply.id, inPage))
    .unionAll(db.select(columns(false)).from(askReply).innerJoin(user, eq(user.id, askReply.userId))
      .where(and(eq(askReply.postId, postId), inArray(askReply.parentId, inPage), visible)));
  // Replies rendered with another set of markdown modules are rendered now (the background walk
  // had not reached them), and stored.
  const set = currentRenderSet();
  for (const r of both) {
    if (r.renderSet === set) continue;
    const [row] = await db.select({ body: askReply.body }).from(askReply).where(eq(askReply.id, r.id));
    if (!row) continue;
    const out = await renderBody(row.body, await mentionedMembers(db, row.body), 'reply');
    await db.update(askReply).set({ html: out.html, renderSet: out.renderSet }).where(and(eq(askReply.id, r.id), eq(askReply.body, row.body)));
    r.html = out.html;
  }
  const accepted = acceptedId ?? 0;
  const rows = both.filter((r) => r.parentId === 0).sort((a, b) => Number(b.id === accepted) - Number(a.id === accepted) || a.id - b.id);
  const comments = both.filter((r) => r.parentId !== 0).sort((a, b) => a.id - b.id);
  const ids = rows.map((r) => r.id);
  const votes = viewer && ids.length ? await db.select({ id: askVote.targetId, value: askVote.value }).from(askVote)
    .where(and(eq(askVote.userId, viewer.id), eq(askVote.targetType, 'reply'), inArray(askVote.targetId, ids))) : [];
  const voteOf = new Map(votes.map((v) => [v.id, v.value]));
  return {
    total,
    list: rows.map((r) => ({
      id: r.id, author: { id: r.userId, nickname: r.nickname, avatar: r.avatar }, html: r.html, body: r.body, score: r.up - r.down,
      commentCount: r.commentCount, accepted: r.id === acceptedId, status: r.status, createTime: r.createTime, updateTime: r.updateTime,
      myVote: voteOf.get(r.id) ?? 0,
      comments: comments.filter((c) => c.parentId === r.id).map((c) => ({ id: c.id, author: { id: c.userId, nickname: c.nickname, avatar: c.avatar }, html: c.html, status: c.status, createTime: c.createTime })),
    })),
  };
}

/** The viewer's vote on a post and whether they collected it. */
export async function viewerState(db: Db, postId: number, viewerId: number): Promise<{ myVote: number; collected: boolean }> {
  const [[vote], [collect]] = await Promise.all([
    db.select({ value: askVote.value }).from(askVote).where(and(eq(askVote.userId, viewerId), eq(askVote.targetType, 'post'), eq(askVote.targetId, postId))),
    db.select({ postId: askCollect.postId }).from(askCollect).where(and(eq(askCollect.userId, viewerId), eq(askCollect.postId, postId))),
  ]);
  return { myVote: vote?.value ?? 0, collected: Boolean(collect) };
}

/**
 * The asker accepts a reply on their question (or takes the acceptance back by accepting it again).
 * The reply's author earns the configured points the first time that reply is accepted.
 */
export async function acceptReply(db: Db, askerId: number, replyId: number): Promise<{ postId: number; accepted: boolean }> {
  return inTransaction(db, async (tx) => {
    touched(askArea);
    const [reply] = await tx.select({ id: askReply.id, postId: askReply.postId, userId: askReply.userId, parentId: askReply.parentId, status: askReply.status })
      .from(askReply).where(eq(askReply.id, replyId));
    if (!reply || reply.parentId !== 0 || reply.status !== 'published') throw new AppError('ask.replyMissing', { status: 404 });
    const [post] = await tx.select({ id: askPost.id, userId: askPost.userId, title: askPost.title, accepted: askPost.acceptedReplyId, type: askCategory.type, status: askPost.status })
      .from(askPost).innerJoin(askCategory, eq(askCategory.id, askPost.categoryId)).where(eq(askPost.id, reply.postId)).for('update', { of: askPost });
    if (!post || post.status !== 'published') throw new AppError('ask.notFound', { status: 404 });
    if (post.userId !== askerId) throw new AppError('ask.onlyAsker', { code: 401 });
    if (post.type !== 'question') throw new AppError('ask.notQuestion');
    if (reply.userId === askerId) throw new AppError('ask.acceptOwn');
    const accepted = post.accepted !== reply.id;
    await tx.update(askPost).set({ acceptedReplyId: accepted ? reply.id : null }).where(eq(askPost.id, post.id));
    if (accepted) {
      const memo = `Answer #${reply.id} accepted`;
      const reward = await scoreSetting(tx, 'ask_accept_score', 15);
      const already = await tx.select({ id: userScoreLog.id }).from(userScoreLog)
        .where(and(eq(userScoreLog.userId, reply.userId), eq(userScoreLog.memo, memo))).limit(1);
      if (reward > 0 && already.length === 0) await adjustScore(tx, reply.userId, reward, memo, { key: 'user.ledger.memo.accepted', params: { id: reply.id } });
      await notify(tx, [{ type: 'ask_accept', senderId: askerId, recipientId: reply.userId, title: post.title, link: `/ask/info/${post.id}#reply-${reply.id}` }]);
    }
    return { postId: post.id, accepted };
  });
}
