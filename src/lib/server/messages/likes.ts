// Likes reach the liked member as one message per post or reply ("3 members liked your answer"),
// not one per vote; an up-vote withdrawn within a minute leaves nothing behind.
import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { askPost, messages } from '../db/schema';
import { blockedBy, liveMessage } from './notify';
import { recordEvents } from './live';

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

/** Seconds within which a withdrawn up-vote takes its like back out of the message. */
export const LIKE_UNDO_SECONDS = 60;

export interface VoteChange {
  voterId: number;
  ownerId: number;
  type: 'post' | 'reply';
  targetId: number;
  postId: number;
  /** The voter's vote before and after, with the time the earlier one was cast. */
  before: { value: number; createTime: number } | null;
  after: number;
}

const now = (): number => Math.floor(Date.now() / 1000);

export function likeLink(type: 'post' | 'reply', postId: number, targetId: number): string {
  return type === 'post' ? `/ask/info/${postId}` : `/ask/info/${postId}#reply-${targetId}`;
}

/** Called by `vote()` inside its transaction with what the vote changed. */
export async function recordVoteChange(tx: Tx, change: VoteChange): Promise<void> {
  const wasUp = change.before?.value === 1;
  const isUp = change.after === 1;
  if (wasUp === isUp) return;
  const link = likeLink(change.type, change.postId, change.targetId);
  const kind = change.type === 'post' ? 'like_post' : 'like_reply';
  const where = and(eq(messages.recipientId, change.ownerId), eq(messages.type, 'ask_vote'), eq(messages.link, link), eq(messages.readTime, 0));
  const [current] = await tx.select().from(messages).where(where).orderBy(sql`${messages.id} desc`).limit(1).for('update');
  if (isUp) {
    if ((await blockedBy(tx, change.voterId, [change.ownerId])).size) return;
    let row: typeof messages.$inferSelect | undefined;
    if (current) {
      [row] = await tx.update(messages).set({ groupCount: sql`${messages.groupCount} + 1`, senderId: change.voterId, createTime: now(), mailTime: 0 })
        .where(eq(messages.id, current.id)).returning();
    } else {
      const [post] = await tx.select({ title: askPost.title }).from(askPost).where(eq(askPost.id, change.postId));
      [row] = await tx.insert(messages).values({
        type: 'ask_vote', senderId: change.voterId, recipientId: change.ownerId, title: (post?.title ?? '').slice(0, 200),
        summary: kind, link, groupCount: 1, createTime: now(),
      }).returning();
    }
    if (row) await recordEvents(tx, [{ userId: row.recipientId, kind: 'message', data: liveMessage(row) }]);
    return;
  }
  // An up-vote taken back (or turned down) within the minute: the like it added goes away.
  if (!wasUp || !current || !change.before || now() - change.before.createTime > LIKE_UNDO_SECONDS) return;
  if (current.groupCount <= 1) {
    await tx.delete(messages).where(eq(messages.id, current.id));
    await recordEvents(tx, [{ userId: current.recipientId, kind: 'delete', data: { ids: [current.id] } }]);
  } else {
    await tx.update(messages).set({ groupCount: sql`${messages.groupCount} - 1` }).where(eq(messages.id, current.id));
  }
}
