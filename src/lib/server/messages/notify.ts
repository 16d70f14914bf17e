import { and, desc, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { messages } from '../db/schema';

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

export const MESSAGE_TYPES = [
  'ask_reply', 'ask_comment', 'ask_accept', 'ask_mention', 'ask_moderation',
  'market_sale', 'market_review', 'market_review_reply', 'market_developer', 'market_module', 'market_withdrawal',
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
}

/**
 * Records messages for their recipients: the one way any feature tells a member something.
 * Nobody is told about their own action, and one call never tells a member twice.
 */
export async function notify(db: Db | Tx, notices: readonly Notice[]): Promise<number> {
  const seen = new Set<number>();
  const rows = notices.filter((n) => {
    if (n.recipientId === n.senderId || seen.has(n.recipientId)) return false;
    seen.add(n.recipientId);
    return true;
  }).map((n) => ({
    type: n.type, senderId: n.senderId, recipientId: n.recipientId, title: n.title.slice(0, 200),
    summary: (n.summary ?? '').slice(0, 300), link: n.link.slice(0, 255), createTime: Math.floor(Date.now() / 1000),
  }));
  if (rows.length) await db.insert(messages).values(rows);
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
