// The dashboard: 30 days of activity per day (in the site's time zone), what waits for a decision,
// and the state of the system.
import { and, count, eq, gte, sql, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Db } from '../db/client';
import { askPost, askReply, askReport, attachment, developer, developerWithdrawal, invoice, module, moduleOrder, moduleVersion, siteDaily, user } from '../db/schema';
import type { Runtime } from '../runtime';
import { VERSION } from '../site/seed';
import { lastAction, type AuditRow } from './audit';

export const DAYS = 30;

/** The last `days` calendar days in `timeZone`, oldest first (yyyy-mm-dd). */
export function lastDays(timeZone: string, days = DAYS, at = Date.now()): string[] {
  const fmt = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
  return Array.from({ length: days }, (_, i) => fmt.format(new Date(at - (days - 1 - i) * 86_400_000)));
}

async function perDay(db: Db, table: PgTable, time: PgColumn, tz: string, since: number, value: SQL = sql`count(*)`, where?: SQL): Promise<Map<string, number>> {
  const day = sql<string>`to_char(to_timestamp(${time}) at time zone ${tz}, 'YYYY-MM-DD')`;
  const rows = await db.select({ day, n: sql<number>`(${value})::float8` }).from(table)
    .where(where ? and(gte(time, since), where) : gte(time, since)).groupBy(sql`1`);
  return new Map(rows.map((r) => [r.day, Number(r.n)]));
}

export interface Series { key: string; values: number[] }

export async function activity(db: Db, timeZone: string): Promise<{ days: string[]; series: Series[] }> {
  const days = lastDays(timeZone);
  const since = Math.floor(Date.now() / 1000) - (DAYS + 1) * 86_400;
  const paid = eq(moduleOrder.status, 'paid');
  const [members, posts, replies, orders, revenue, uploads, errors] = await Promise.all([
    perDay(db, user, user.joinTime, timeZone, since),
    perDay(db, askPost, askPost.createTime, timeZone, since),
    perDay(db, askReply, askReply.createTime, timeZone, since),
    perDay(db, moduleOrder, moduleOrder.createTime, timeZone, since, sql`count(*)`, paid),
    perDay(db, moduleOrder, moduleOrder.createTime, timeZone, since, sql`coalesce(sum(case when ${moduleOrder.payType} = 'balance' then ${moduleOrder.amount} else 0 end), 0) / 100.0`, paid),
    perDay(db, attachment, attachment.createTime, timeZone, since),
    db.select({ day: siteDaily.day, n: siteDaily.count }).from(siteDaily).where(and(eq(siteDaily.name, 'errors'), gte(siteDaily.day, days[0]!)))
      .then((rows) => new Map(rows.map((r) => [r.day, r.n]))),
  ]);
  const line = (key: string, m: Map<string, number>): Series => ({ key, values: days.map((d) => Math.round((m.get(d) ?? 0) * 100) / 100) });
  return {
    days,
    series: [line('members', members), line('posts', posts), line('replies', replies), line('orders', orders), line('revenue', revenue), line('uploads', uploads), line('errors', errors)],
  };
}

export interface Attention { reports: number; developers: number; modules: number; versions: number; invoices: number; withdrawals: number }

export async function attention(db: Db): Promise<Attention> {
  const n = async (q: Promise<{ n: number }[]>): Promise<number> => Number((await q)[0]?.n ?? 0);
  const [reports, developers, modules, versions, invoices, withdrawals] = await Promise.all([
    n(db.select({ n: count() }).from(askReport).where(eq(askReport.status, 'open'))),
    n(db.select({ n: count() }).from(developer).where(eq(developer.status, 'pending'))),
    n(db.select({ n: count() }).from(module).where(eq(module.status, 'review'))),
    n(db.select({ n: count() }).from(moduleVersion).where(eq(moduleVersion.status, 'review'))),
    n(db.select({ n: count() }).from(invoice).where(eq(invoice.status, 'pending'))),
    n(db.select({ n: count() }).from(developerWithdrawal).where(eq(developerWithdrawal.status, 'pending'))),
  ]);
  return { reports, developers, modules, versions, invoices, withdrawals };
}

export interface SystemState { version: string; database: { kind: string; ok: boolean }; redis: 'off' | 'ok' | 'down'; lastBackup: AuditRow | null }

export async function systemState(rt: Runtime): Promise<SystemState> {
  const [ok, lastBackup] = await Promise.all([rt.database.ping(), lastAction(rt.db, 'backup')]);
  let redis: SystemState['redis'] = 'off';
  if (rt.config.redisUrl) {
    redis = await rt.limiter.hit('admin:ping', 1_000_000, 60).then(() => 'ok' as const, () => 'down' as const);
  }
  return { version: VERSION, database: { kind: rt.database.kind, ok }, redis, lastBackup };
}

/** Counts one server error for today's bar (UTC day). */
export async function countError(db: Db): Promise<void> {
  const day = new Date().toISOString().slice(0, 10);
  await db.insert(siteDaily).values({ day, name: 'errors', count: 1 })
    .onConflictDoUpdate({ target: [siteDaily.day, siteDaily.name], set: { count: sql`${siteDaily.count} + 1` } });
}
