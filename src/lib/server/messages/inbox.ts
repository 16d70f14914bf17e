// A member's messages: the list by tab, read state and deletion. Every query is limited to the
// member's own rows; ids that are not theirs are refused as a whole, without saying which.
import { and, count, desc, eq, inArray, ne, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/client';
import { messages, user } from '../db/schema';
import { AppError } from '../http';
import { translateAny, type Locale } from '../../i18n';
import { MESSAGE_PAGE_SIZE, MESSAGE_TABS, TAB_TYPES, tabOfType, type MessageTab } from '../../shared/messages';
import { recordEvents } from './live';

const now = (): number => Math.floor(Date.now() / 1000);

export interface MessageItem {
  id: number;
  type: string;
  tab: string;
  sender: { id: number; nickname: string; avatar: string } | null;
  /** What happened, in the reader's language ("replied to your post", "3 members liked your answer"). */
  action: string;
  title: string;
  summary: string;
  link: string;
  read: boolean;
  create_time: number;
}

function tabWhere(tab: MessageTab): SQL | undefined {
  return tab === 'all' ? undefined : inArray(messages.type, [...TAB_TYPES[tab]]);
}

/**
 * What a message says happened, in the reader's language. The sender's name is shown before it
 * (`named`), so a like names the latest voter once and counts the others ("Alice and 2 others
 * liked your post"); without a name it counts everyone ("1 member liked your post").
 */
export function describeMessage(locale: Locale, row: { type: string; groupCount: number; summary: string }, named = true): string {
  if (row.type === 'ask_vote') {
    const base = row.summary === 'like_post' ? 'messages.like.post' : 'messages.like.reply';
    const count = Math.max(1, row.groupCount);
    if (!named) return translateAny(locale, base, { count });
    return count === 1 ? translateAny(locale, `${base}By`) : translateAny(locale, `${base}ByMany`, { count, others: count - 1 });
  }
  const key = `messages.type.${row.type}`;
  const text = translateAny(locale, key);
  return text === key ? translateAny(locale, 'messages.type.system') : text;
}

/** Unread counts per tab, `all` included. */
export async function unreadByTab(db: Db, userId: number): Promise<Record<MessageTab, number>> {
  const rows = await db.select({ type: messages.type, n: count() }).from(messages)
    .where(and(eq(messages.recipientId, userId), eq(messages.readTime, 0))).groupBy(messages.type);
  const out = Object.fromEntries(MESSAGE_TABS.map((t) => [t, 0])) as Record<MessageTab, number>;
  for (const r of rows) {
    out.all += r.n;
    out[tabOfType(r.type)] += r.n;
  }
  return out;
}

export async function listMessages(db: Db, userId: number, locale: Locale, input: { tab: MessageTab; unread: boolean; page: number }): Promise<{
  list: MessageItem[]; total: number; page: number; page_size: number; unread: Record<MessageTab, number>;
}> {
  const where = and(eq(messages.recipientId, userId), tabWhere(input.tab), input.unread ? eq(messages.readTime, 0) : undefined);
  const [rows, [total], unread] = await Promise.all([
    db.select({ m: messages, nickname: user.nickname, username: user.username, avatar: user.avatar }).from(messages)
      .leftJoin(user, eq(user.id, messages.senderId)).where(where)
      .orderBy(desc(messages.id)).limit(MESSAGE_PAGE_SIZE).offset((input.page - 1) * MESSAGE_PAGE_SIZE),
    db.select({ n: count() }).from(messages).where(where),
    unreadByTab(db, userId),
  ]);
  return {
    list: rows.map(({ m, nickname, username, avatar }) => ({
      id: m.id,
      type: m.type,
      tab: tabOfType(m.type),
      sender: m.senderId ? { id: m.senderId, nickname: nickname || username || '', avatar: avatar ?? '' } : null,
      action: describeMessage(locale, m, Boolean(m.senderId && (nickname || username))),
      title: m.type === 'private' ? '' : translateAny(locale, m.title),
      summary: m.type === 'ask_vote' ? '' : m.summary,
      link: m.link,
      read: m.readTime > 0,
      create_time: m.createTime,
    })),
    total: total?.n ?? 0,
    page: input.page,
    page_size: MESSAGE_PAGE_SIZE,
    unread,
  };
}

/** Refuses the whole call when any id is not one of the member's own messages. */
async function assertOwn(db: Db, userId: number, ids: readonly number[], extra?: SQL): Promise<void> {
  const unique = [...new Set(ids)];
  const [own] = await db.select({ n: count() }).from(messages)
    .where(and(inArray(messages.id, unique), eq(messages.recipientId, userId), extra));
  if ((own?.n ?? 0) !== unique.length) throw new AppError('messages.notFound');
}

/** Marks messages read: by id, or all of a tab. Returns the ids that changed. */
export async function markRead(db: Db, userId: number, input: { ids: number[] } | { all: true; tab: MessageTab }): Promise<number[]> {
  if ('ids' in input) await assertOwn(db, userId, input.ids);
  return db.transaction(async (tx) => {
    const where = 'ids' in input ? inArray(messages.id, [...new Set(input.ids)]) : tabWhere(input.tab);
    const changed = await tx.update(messages).set({ readTime: now() })
      .where(and(eq(messages.recipientId, userId), eq(messages.readTime, 0), where)).returning({ id: messages.id });
    const ids = changed.map((r) => r.id);
    if (ids.length) await recordEvents(tx, [{ userId, kind: 'read', data: { ids: ids.slice(0, 500), all: ids.length > 500 } }]);
    return ids;
  });
}

/** Deletes messages (not private conversations, which both members keep). */
export async function deleteMessages(db: Db, userId: number, ids: number[]): Promise<number[]> {
  await assertOwn(db, userId, ids, ne(messages.type, 'private'));
  return db.transaction(async (tx) => {
    const gone = await tx.delete(messages)
      .where(and(eq(messages.recipientId, userId), inArray(messages.id, [...new Set(ids)]), ne(messages.type, 'private')))
      .returning({ id: messages.id });
    const out = gone.map((r) => r.id);
    if (out.length) await recordEvents(tx, [{ userId, kind: 'delete', data: { ids: out } }]);
    return out;
  });
}

/** Count without the cache, for tests and the e-mail job. */
export async function countUnread(db: Db, userId: number): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(messages).where(and(eq(messages.recipientId, userId), eq(messages.readTime, 0)));
  return row?.n ?? 0;
}
