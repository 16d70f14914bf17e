import { and, desc, eq, gte, ilike, lte, or, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/client';
import { adminLog } from '../db/schema';

/** Who did something: a member from the console, or the operator's CLI (id 0). */
export interface Actor {
  id: number;
  username: string;
  ip: string;
}

export const CLI_ACTOR: Actor = { id: 0, username: 'cli', ip: 'cli' };

const clip = (value: unknown, max: number): string => {
  const text = typeof value === 'string' ? value : value === undefined || value === null ? '' : JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
};

/** Writes one audit row; before/after are stored as given (strings) or as JSON. */
export async function recordAction(db: Db, actor: Actor, action: string, target: string | number, before: unknown = '', after: unknown = ''): Promise<void> {
  await db.insert(adminLog).values({
    userId: actor.id, username: clip(actor.username, 50), action: clip(action, 60), target: clip(String(target), 200),
    before: clip(before, 20_000), after: clip(after, 20_000), ip: clip(actor.ip, 50), createTime: Math.floor(Date.now() / 1000),
  });
}

export interface AuditFilter {
  action?: string;
  actor?: string;
  /** Free text found in the target, before or after. */
  q?: string;
  from?: number;
  to?: number;
  page: number;
}

export type AuditRow = typeof adminLog.$inferSelect;

/** One page (30 rows) of the audit log, newest first. */
export async function auditPage(db: Db, filter: AuditFilter, limit = 30): Promise<{ list: AuditRow[]; total: number }> {
  const where: SQL[] = [];
  if (filter.action) where.push(eq(adminLog.action, filter.action));
  if (filter.actor) where.push(eq(adminLog.username, filter.actor));
  if (filter.q) {
    const like = `%${filter.q.replace(/[%_\\]/g, (c) => `\\${c}`)}%`;
    where.push(or(ilike(adminLog.target, like), ilike(adminLog.before, like), ilike(adminLog.after, like))!);
  }
  if (filter.from) where.push(gte(adminLog.createTime, filter.from));
  if (filter.to) where.push(lte(adminLog.createTime, filter.to));
  const cond = where.length ? and(...where) : undefined;
  const [list, [count]] = await Promise.all([
    db.select().from(adminLog).where(cond).orderBy(desc(adminLog.id)).limit(limit).offset((filter.page - 1) * limit),
    db.select({ n: sql<number>`count(*)::int` }).from(adminLog).where(cond),
  ]);
  return { list, total: count?.n ?? 0 };
}

/** Distinct action names, for the filter. */
export async function auditActions(db: Db): Promise<string[]> {
  const rows = await db.selectDistinct({ action: adminLog.action }).from(adminLog).orderBy(adminLog.action).limit(200);
  return rows.map((r) => r.action);
}

/** The newest row of an action (e.g. the last backup), or null. */
export async function lastAction(db: Db, action: string): Promise<AuditRow | null> {
  const [row] = await db.select().from(adminLog).where(eq(adminLog.action, action)).orderBy(desc(adminLog.id)).limit(1);
  return row ?? null;
}
