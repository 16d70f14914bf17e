// Login history: every login attempt on a member's account, for the member (account security) and
// for operators (console member view). Written on the login path, so one statement does it all:
// the insert and the prune of that member's rows past the bounds.
import { count, desc, eq, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/client';
import { userLoginLog } from '../db/schema';

/** Rows kept per member, and the age after which a member's rows go (both checked on each insert). */
export const LOGIN_HISTORY_KEEP = 100;
export const LOGIN_HISTORY_DAYS = 90;
export const LOGIN_HISTORY_PER_PAGE = 20;

export type LoginMethod = 'password' | 'register' | 'install';
export type LoginResult = 'ok' | 'wrong_password' | 'locked' | 'disabled';

export interface LoginAttempt { userId: number; method: LoginMethod; result: LoginResult; ip: string; userAgent: string }
export interface LoginHistoryItem { id: number; method: LoginMethod; result: LoginResult; ip: string; userAgent: string; createTime: number }

/** A User-Agent header as stored: control characters dropped, at most the column's 255 characters. */
export function cleanUserAgent(value: string | null | undefined): string {
  return (value ?? '').replace(/[\u0000-\u001f\u007f]/g, '').slice(0, 255);
}

/**
 * One statement: inserts the attempt and deletes the same member's rows older than the bounds. The
 * delete reads the snapshot before the insert, so keeping KEEP - 1 earlier rows leaves KEEP. It
 * walks only that member's index range, a hundred rows at most.
 */
export function loginRecordSql(a: LoginAttempt, now = Math.floor(Date.now() / 1000)): SQL {
  const cut = now - LOGIN_HISTORY_DAYS * 86_400;
  return sql`with added as (
    insert into ${userLoginLog} (user_id, method, result, ip, user_agent, create_time)
    values (${a.userId}, ${a.method}, ${a.result}, ${a.ip.slice(0, 50)}, ${cleanUserAgent(a.userAgent)}, ${now}) returning id
  )
  delete from ${userLoginLog} where user_id = ${a.userId} and (create_time < ${cut} or id < (
    select id from ${userLoginLog} where user_id = ${a.userId} order by id desc offset ${LOGIN_HISTORY_KEEP - 2} limit 1
  ))`;
}

/** Records one attempt (and prunes); `db` may be a transaction. */
export async function recordLogin(db: Db, attempt: LoginAttempt): Promise<void> {
  await db.execute(loginRecordSql(attempt));
}

/** One page of a member's attempts, newest first. */
export async function loginHistory(db: Db, userId: number, page: number): Promise<{ list: LoginHistoryItem[]; total: number; page: number; pages: number }> {
  const [rows, [total]] = await Promise.all([
    db.select().from(userLoginLog).where(eq(userLoginLog.userId, userId)).orderBy(desc(userLoginLog.id))
      .limit(LOGIN_HISTORY_PER_PAGE).offset((page - 1) * LOGIN_HISTORY_PER_PAGE),
    db.select({ n: count() }).from(userLoginLog).where(eq(userLoginLog.userId, userId)),
  ]);
  const n = total?.n ?? 0;
  return {
    list: rows.map((r) => ({ id: r.id, method: r.method as LoginMethod, result: r.result as LoginResult, ip: r.ip, userAgent: r.userAgent, createTime: r.createTime })),
    total: n,
    page,
    pages: Math.max(1, Math.ceil(n / LOGIN_HISTORY_PER_PAGE)),
  };
}
