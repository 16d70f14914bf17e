import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { notice, noticeRead } from '../db/schema';

export interface NoticeItem {
  id: number;
  title: string;
  content: string;
  create_time: number;
  read: boolean;
}

/** One page of published notices, newest first, each marked read or not for the member. */
export async function noticePage(db: Db, userId: number, page: number, limit: number): Promise<{ list: NoticeItem[]; total: number; unread: number }> {
  const rows = await db.select({ n: notice, readTime: noticeRead.readTime }).from(notice)
    .leftJoin(noticeRead, and(eq(noticeRead.noticeId, notice.id), eq(noticeRead.userId, userId)))
    .where(eq(notice.status, 1)).orderBy(desc(notice.id)).limit(limit).offset((page - 1) * limit);
  const [counts] = await db.select({
    total: sql<number>`count(*)::int`,
    unread: sql<number>`count(*) filter (where ${noticeRead.readTime} is null)::int`,
  }).from(notice)
    .leftJoin(noticeRead, and(eq(noticeRead.noticeId, notice.id), eq(noticeRead.userId, userId)))
    .where(eq(notice.status, 1));
  return {
    list: rows.map((r) => ({ id: r.n.id, title: r.n.title, content: r.n.content, create_time: r.n.createTime, read: r.readTime !== null })),
    total: counts?.total ?? 0,
    unread: counts?.unread ?? 0,
  };
}

/** Marks notices read for the member; ids that are not published notices are ignored. */
export async function markNoticesRead(db: Db, userId: number, ids: readonly number[]): Promise<number> {
  if (!ids.length) return 0;
  const existing = await db.select({ id: notice.id }).from(notice).where(and(inArray(notice.id, [...ids]), eq(notice.status, 1)));
  if (!existing.length) return 0;
  const t = Math.floor(Date.now() / 1000);
  await db.insert(noticeRead).values(existing.map((n) => ({ userId, noticeId: n.id, readTime: t }))).onConflictDoNothing();
  return existing.length;
}

export async function addNotice(db: Db, title: string, content: string): Promise<number> {
  const [row] = await db.insert(notice).values({ title: title.slice(0, 120), content, createTime: Math.floor(Date.now() / 1000) }).returning({ id: notice.id });
  return row!.id;
}
