// Private conversations between two members, blocking, and the small user card.
import { and, count, countDistinct, desc, eq, gt, inArray, lt, notInArray, or, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { askPost, askReply, messages, user, userBlock } from '../db/schema';
import { AppError } from '../http';
import { serialised, type Tx } from '../db/serialise';
import { recordEvents } from './live';
import { blockedBy, liveMessage } from './notify';

const now = (): number => Math.floor(Date.now() / 1000);

/** Discourse-like limits for private messages. */
export const PRIVATE_PER_HOUR = 20;
export const NEW_MEMBER_SECONDS = 86_400;
export const NEW_MEMBER_CONVERSATIONS = 3;
export const DIALOG_PAGE = 30;
export const RECENT_PAGE = 20;

export interface DialogMessage { id: number; sender_id: number; recipient_id: number; content: string; read: boolean; create_time: number }

const pair = (a: number, b: number) => and(eq(messages.type, 'private'), or(
  and(eq(messages.senderId, a), eq(messages.recipientId, b)),
  and(eq(messages.senderId, b), eq(messages.recipientId, a)),
));

const toDialog = (m: typeof messages.$inferSelect): DialogMessage => ({
  id: m.id, sender_id: m.senderId, recipient_id: m.recipientId, content: m.content, read: m.readTime > 0, create_time: m.createTime,
});

/** A member who can be written to: exists and is enabled. */
async function activeMember(db: Db, id: number): Promise<typeof user.$inferSelect | null> {
  const [row] = await db.select().from(user).where(eq(user.id, id));
  return row && row.status === 'enable' ? row : null;
}

/**
 * Sends a private message. Refused to yourself, to unknown or disabled members and to members
 * who blocked the sender; in their first day members may start only a few conversations, counted
 * and written in one transaction that a new member's sends take in turn (parallel first messages
 * to many members cannot all pass the count). The hourly limit is the caller's: the rate limiter
 * counts it before this runs.
 */
export async function sendPrivate(db: Db, sender: { id: number; joinTime: number }, recipientId: number, content: string): Promise<DialogMessage> {
  if (sender.id === recipientId) throw new AppError('messages.self');
  const recipient = await activeMember(db, recipientId);
  if (!recipient) throw new AppError('messages.unavailable');
  if ((await blockedBy(db, sender.id, [recipientId])).size) throw new AppError('messages.blockedYou');
  const write = async (tx: Tx): Promise<DialogMessage> => {
    const [row] = await tx.insert(messages).values({
      type: 'private', senderId: sender.id, recipientId, title: 'messages.private.title',
      summary: content.slice(0, 300), content, link: `/user/messageCenter?tab=private&user=${sender.id}`, createTime: now(),
    }).returning();
    const data = liveMessage(row!);
    // The recipient's pages, and the sender's other tabs (the conversation is open there too).
    await recordEvents(tx, [{ userId: recipientId, kind: 'message', data }, { userId: sender.id, kind: 'sent', data }]);
    return toDialog(row!);
  };
  if (now() - sender.joinTime >= NEW_MEMBER_SECONDS) return db.transaction(write);
  return serialised(db, 'messages:first-day', sender.id, async (tx) => {
    const [prior] = await tx.select({ n: count() }).from(messages).where(pair(sender.id, recipientId));
    if (!prior?.n) {
      // Conversations this member started today: people they wrote to who never wrote to them.
      const wroteBack = tx.select({ id: messages.senderId }).from(messages).where(and(eq(messages.type, 'private'), eq(messages.recipientId, sender.id)));
      const [started] = await tx.select({ n: countDistinct(messages.recipientId) }).from(messages).where(and(
        eq(messages.type, 'private'), eq(messages.senderId, sender.id), gt(messages.createTime, now() - NEW_MEMBER_SECONDS),
        notInArray(messages.recipientId, wroteBack),
      ));
      if ((started?.n ?? 0) >= NEW_MEMBER_CONVERSATIONS) throw new AppError('messages.newMemberLimit', { values: { count: NEW_MEMBER_CONVERSATIONS } });
    }
    return write(tx);
  });
}

/** One page of a conversation, newest first; reading it marks the partner's messages read. */
export async function readDialog(db: Db, me: number, partnerId: number, before?: number): Promise<{
  partner: { id: number; nickname: string; avatar: string; available: boolean } ; list: DialogMessage[]; more: boolean; blocked: boolean; blocked_me: boolean;
}> {
  const [partner] = await db.select({ id: user.id, nickname: user.nickname, username: user.username, avatar: user.avatar, status: user.status }).from(user).where(eq(user.id, partnerId));
  if (!partner || partner.id === me) throw new AppError('messages.unavailable');
  const rows = await db.select().from(messages).where(and(pair(me, partnerId), before ? lt(messages.id, before) : undefined))
    .orderBy(desc(messages.id)).limit(DIALOG_PAGE + 1);
  const more = rows.length > DIALOG_PAGE;
  const list = rows.slice(0, DIALOG_PAGE).map(toDialog);
  if (!before) {
    await db.transaction(async (tx) => {
      const read = await tx.update(messages).set({ readTime: now() }).where(and(
        eq(messages.type, 'private'), eq(messages.senderId, partnerId), eq(messages.recipientId, me), eq(messages.readTime, 0),
      )).returning({ id: messages.id });
      if (read.length) await recordEvents(tx, [{ userId: me, kind: 'read', data: { ids: read.map((r) => r.id), partner: partnerId } }]);
    });
  }
  const blocks = await db.select({ userId: userBlock.userId }).from(userBlock).where(or(
    and(eq(userBlock.userId, me), eq(userBlock.blockedId, partnerId)),
    and(eq(userBlock.userId, partnerId), eq(userBlock.blockedId, me)),
  ));
  return {
    partner: { id: partner.id, nickname: partner.nickname || partner.username, avatar: partner.avatar, available: partner.status === 'enable' },
    list, more,
    blocked: blocks.some((b) => b.userId === me),
    blocked_me: blocks.some((b) => b.userId === partnerId),
  };
}

/** The member's conversation partners, the latest conversation first. */
export async function recentPartners(db: Db, me: number, page: number): Promise<{
  list: { user: { id: number; nickname: string; avatar: string }; last: DialogMessage; unread: number }[]; more: boolean;
}> {
  // The partner is computed in a subquery so that grouping by it uses one expression.
  const t = db.select({
    partner: sql<number>`case when ${messages.senderId} = ${me} then ${messages.recipientId} else ${messages.senderId} end`.as('partner'),
    id: messages.id,
    unread: sql<number>`case when ${messages.recipientId} = ${me} and ${messages.readTime} = 0 then 1 else 0 end`.as('unread'),
  }).from(messages).where(and(eq(messages.type, 'private'), or(eq(messages.senderId, me), eq(messages.recipientId, me)))).as('t');
  const grouped = await db.select({
    partner: t.partner,
    lastId: sql<number>`max(${t.id})`.mapWith(Number),
    unread: sql<number>`sum(${t.unread})`.mapWith(Number),
  }).from(t).groupBy(t.partner).orderBy(sql`max(${t.id}) desc`).limit(RECENT_PAGE + 1).offset((page - 1) * RECENT_PAGE);
  const rows = grouped.slice(0, RECENT_PAGE);
  if (!rows.length) return { list: [], more: false };
  const [lasts, people] = await Promise.all([
    db.select().from(messages).where(inArray(messages.id, rows.map((r) => r.lastId))),
    db.select({ id: user.id, nickname: user.nickname, username: user.username, avatar: user.avatar }).from(user).where(inArray(user.id, rows.map((r) => Number(r.partner)))),
  ]);
  const lastById = new Map(lasts.map((m) => [m.id, m]));
  const userById = new Map(people.map((u) => [u.id, u]));
  return {
    list: rows.map((r) => {
      const u = userById.get(Number(r.partner));
      return { user: { id: Number(r.partner), nickname: u ? u.nickname || u.username : '', avatar: u?.avatar ?? '' }, last: toDialog(lastById.get(r.lastId)!), unread: r.unread };
    }),
    more: grouped.length > RECENT_PAGE,
  };
}

/** Blocks or unblocks a member. */
export async function setBlock(db: Db, me: number, target: number, block: boolean): Promise<void> {
  if (me === target) throw new AppError('messages.self');
  const [exists] = await db.select({ id: user.id }).from(user).where(eq(user.id, target));
  if (!exists) throw new AppError('messages.unavailable');
  if (block) await db.insert(userBlock).values({ userId: me, blockedId: target, createTime: now() }).onConflictDoNothing();
  else await db.delete(userBlock).where(and(eq(userBlock.userId, me), eq(userBlock.blockedId, target)));
}

export interface UserCard {
  id: number; nickname: string; avatar: string; motto: string; join_time: number;
  posts: number; answers: number; can_message: boolean; blocked: boolean;
}

/** The small card shown on a name: public fields, and what the viewer may do. */
export async function userCard(db: Db, viewerId: number | null, id: number): Promise<UserCard> {
  const [row] = await db.select().from(user).where(eq(user.id, id));
  if (!row) throw new AppError('messages.userNotFound', { status: 404 });
  const [[posts], [answers], blocks] = await Promise.all([
    db.select({ n: count() }).from(askPost).where(and(eq(askPost.userId, id), eq(askPost.status, 'published'))),
    db.select({ n: count() }).from(askReply).where(and(eq(askReply.userId, id), eq(askReply.parentId, 0), eq(askReply.status, 'published'))),
    viewerId && viewerId !== id
      ? db.select({ userId: userBlock.userId }).from(userBlock).where(or(
        and(eq(userBlock.userId, viewerId), eq(userBlock.blockedId, id)),
        and(eq(userBlock.userId, id), eq(userBlock.blockedId, viewerId)),
      ))
      : Promise.resolve([] as { userId: number }[]),
  ]);
  return {
    id: row.id, nickname: row.nickname || row.username, avatar: row.avatar, motto: row.motto, join_time: row.joinTime,
    posts: posts?.n ?? 0, answers: answers?.n ?? 0,
    can_message: !!viewerId && viewerId !== id && row.status === 'enable' && !blocks.some((b) => b.userId === id),
    blocked: blocks.some((b) => b.userId === viewerId),
  };
}
