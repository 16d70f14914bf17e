import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { messages, userBlock } from '../db/schema';
import { recordEvents } from './live';

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

export const MESSAGE_TYPES = [
  'ask_reply', 'ask_comment', 'ask_accept', 'ask_mention', 'ask_moderation', 'ask_report', 'ask_vote',
  'market_sale', 'market_review', 'market_review_reply', 'market_developer', 'market_module', 'market_withdrawal',
  'private', 'system',
] as const;
export type MessageType = (typeof MESSAGE_TYPES)[number];

export interface Notice {
  type: MessageType;
  senderId: number;
  recipientId: number;
  /**
   * Plain text (a post's title, a module's name), or a dictionary key such as
   * `developer.notice.approved` for messages written by the site: whoever shows messages passes
   * the title through `translateAny()` in the reader's language, which leaves plain text as it is.
   */
  title: string;
  summary?: string;
  /** App path the message opens, e.g. `/ask/info/12#reply-40`. */
  link: string;
  /** Full text of a private message. */
  content?: string;
}

/** The fields of a message its recipient's open pages are sent live. */
export function liveMessage(row: typeof messages.$inferSelect): Record<string, unknown> {
  return {
    message: {
      id: row.id, type: row.type, sender_id: row.senderId, recipient_id: row.recipientId, title: row.title,
      summary: row.summary, link: row.link, content: row.content, group_count: row.groupCount, create_time: row.createTime,
    },
  };
}

/** Members among `recipients` who blocked `senderId`. */
export async function blockedBy(db: Db | Tx, senderId: number, recipients: readonly number[]): Promise<Set<number>> {
  if (!senderId || !recipients.length) return new Set();
  const rows = await db.select({ id: userBlock.userId }).from(userBlock)
    .where(and(eq(userBlock.blockedId, senderId), inArray(userBlock.userId, [...recipients])));
  return new Set(rows.map((r) => r.id));
}

/**
 * Records messages for their recipients: the one way any feature tells a member something.
 * Nobody is told about their own action, one call never tells a member twice, and members who
 * blocked the sender are not told. Their open pages learn of it when the request finishes.
 */
export async function notify(db: Db | Tx, notices: readonly Notice[]): Promise<number> {
  const seen = new Set<number>();
  let wanted = notices.filter((n) => {
    if (n.recipientId === n.senderId || seen.has(n.recipientId)) return false;
    seen.add(n.recipientId);
    return true;
  });
  const senders = new Set(wanted.map((n) => n.senderId).filter(Boolean));
  for (const sender of senders) {
    const blocked = await blockedBy(db, sender, wanted.filter((n) => n.senderId === sender).map((n) => n.recipientId));
    if (blocked.size) wanted = wanted.filter((n) => n.senderId !== sender || !blocked.has(n.recipientId));
  }
  const rows = wanted.map((n) => ({
    type: n.type, senderId: n.senderId, recipientId: n.recipientId, title: n.title.slice(0, 200),
    summary: (n.summary ?? '').slice(0, 300), link: n.link.slice(0, 255), content: n.content ?? '', createTime: Math.floor(Date.now() / 1000),
  }));
  if (!rows.length) return 0;
  const inserted = await db.insert(messages).values(rows).returning();
  await recordEvents(db, inserted.map((row) => ({ userId: row.recipientId, kind: 'message' as const, data: liveMessage(row) })));
  return rows.length;
}

export async function unreadCount(db: Db, userId: number): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(messages)
    .where(and(eq(messages.recipientId, userId), eq(messages.readTime, 0)));
  return row?.n ?? 0;
}

export async function recentMessages(db: Db, userId: number, limit = 20) {
  return db.select().from(messages).where(eq(messages.recipientId, userId)).orderBy(desc(messages.id)).limit(limit);
}
