import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { askCollect, askPost, askReply, askVote } from '../db/schema';
import { AppError } from '../http';
import { refreshHot } from './posts';
import { recordVoteChange } from '../messages/likes';
import { inTransaction, touched } from '../write-scope';
import { askArea } from './cache-tags';

const now = (): number => Math.floor(Date.now() / 1000);

/**
 * Votes on a post or reply; voting the same way again takes the vote back, the other way switches
 * it. The target row is locked first, so the counters stay exact however many vote at once.
 */
export async function vote(db: Db, userId: number, type: 'post' | 'reply', id: number, value: 1 | -1): Promise<{ postId: number; myVote: number; score: number }> {
  return inTransaction(db, async (tx) => {
    touched(askArea);
    const table = type === 'post' ? askPost : askReply;
    const [target] = await tx.select({ userId: table.userId, status: table.status, postId: type === 'post' ? askPost.id : askReply.postId })
      .from(table).where(eq(table.id, id)).for('update');
    if (!target || target.status !== 'published') throw new AppError('ask.notFound', { status: 404 });
    if (target.userId === userId) throw new AppError('ask.voteOwn');
    const key = and(eq(askVote.userId, userId), eq(askVote.targetType, type), eq(askVote.targetId, id));
    const [existing] = await tx.select({ value: askVote.value, createTime: askVote.createTime }).from(askVote).where(key);
    let up = 0;
    let down = 0;
    let myVote: number = value;
    if (existing?.value === value) {
      await tx.delete(askVote).where(key);
      if (value === 1) up--; else down--;
      myVote = 0;
    } else if (existing) {
      await tx.update(askVote).set({ value, createTime: now() }).where(key);
      if (value === 1) { up++; down--; } else { down++; up--; }
    } else {
      await tx.insert(askVote).values({ userId, targetType: type, targetId: id, value, createTime: now() });
      if (value === 1) up++; else down++;
    }
    const [row] = await tx.update(table).set({ upCount: sql`${table.upCount} + ${up}`, downCount: sql`${table.downCount} + ${down}` })
      .where(eq(table.id, id)).returning({ up: table.upCount, down: table.downCount });
    if (type === 'post') await refreshHot(tx, id);
    await recordVoteChange(tx, { voterId: userId, ownerId: target.userId, type, targetId: id, postId: target.postId, before: existing ?? null, after: myVote });
    return { postId: target.postId, myVote, score: (row?.up ?? 0) - (row?.down ?? 0) };
  });
}

/** Collects a post, or removes it from the member's collection when it is already there. */
export async function toggleCollect(db: Db, userId: number, postId: number): Promise<{ collected: boolean; count: number }> {
  return inTransaction(db, async (tx) => {
    touched(askArea);
    const [post] = await tx.select({ status: askPost.status }).from(askPost).where(eq(askPost.id, postId)).for('update');
    if (!post || post.status !== 'published') throw new AppError('ask.notFound', { status: 404 });
    const gone = await tx.delete(askCollect).where(and(eq(askCollect.userId, userId), eq(askCollect.postId, postId))).returning({ postId: askCollect.postId });
    if (!gone.length) await tx.insert(askCollect).values({ userId, postId, createTime: now() });
    const delta = gone.length ? -1 : 1;
    const [row] = await tx.update(askPost).set({ collectCount: sql`${askPost.collectCount} + ${delta}` }).where(eq(askPost.id, postId)).returning({ n: askPost.collectCount });
    await refreshHot(tx, postId);
    return { collected: !gone.length, count: row?.n ?? 0 };
  });
}
