import { and, eq, gte, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { user, userMoneyLog, userScoreLog } from '../db/schema';
import { AppError } from '../http';
import { formatDate } from '../../shared/date';
import { translateAny, type Locale } from '../../i18n';

const now = (): number => Math.floor(Date.now() / 1000);

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

/** What a ledger entry says in any language: a message key (any group: `user`, `chat`) and its values. */
export interface LedgerMessage {
  key: LedgerKey;
  params: Record<string, string | number>;
}

export const LEDGER_KEYS = ['user.ledger.memo.checkIn', 'user.ledger.memo.signUp', 'user.ledger.memo.post', 'user.ledger.memo.accepted', 'user.ledger.memo.buy', 'user.ledger.memo.sale', 'chat.memo'] as const;
export type LedgerKey = (typeof LEDGER_KEYS)[number];

/** An entry's text in the reader's language: its message when it has one, else the memo as written. */
export function ledgerText(row: { memo: string; memoKey: string; memoParams: string }, locale: Locale): { text: string; userContent: boolean } {
  if (!(LEDGER_KEYS as readonly string[]).includes(row.memoKey)) return { text: row.memo, userContent: true };
  let params: Record<string, string | number> = {};
  try {
    const parsed: unknown = JSON.parse(row.memoParams);
    if (parsed && typeof parsed === 'object') params = parsed as Record<string, string | number>;
  } catch {
    // A damaged row still says what kind of entry it is.
  }
  return { text: translateAny(locale, row.memoKey, params), userContent: false };
}

/**
 * Changes a member's balance (cents) or points and appends the log row in one transaction that
 * locks the member: the newest log row's `after` always equals the value, whatever runs concurrently.
 */
/** Largest balance (cents, a bigint read as a JS number: exact up to 2^53) and points (a PostgreSQL integer). */
export const LEDGER_MAX = { money: Number.MAX_SAFE_INTEGER, score: 2_147_483_647 } as const;

async function adjust(db: Db | Tx, kind: 'money' | 'score', userId: number, amount: number, memo: string, message?: LedgerMessage): Promise<{ before: number; after: number }> {
  if (!Number.isInteger(amount) || amount === 0) throw new RangeError(`${kind} change must be a non-zero whole number`);
  if (Math.abs(amount) > LEDGER_MAX[kind]) throw new AppError('account.amountTooLarge');
  return db.transaction(async (tx) => {
    const [row] = await tx.select({ value: kind === 'money' ? user.money : user.score }).from(user).where(eq(user.id, userId)).for('update');
    if (!row) throw new AppError('api.invalidInput');
    const after = row.value + amount;
    if (after < 0) throw new AppError('api.invalidInput');
    if (after > LEDGER_MAX[kind]) throw new AppError('account.amountTooLarge');
    const t = now();
    const log = { userId, before: row.value, after, memo: memo.slice(0, 255), memoKey: message?.key ?? '', memoParams: JSON.stringify(message?.params ?? {}), createTime: t };
    if (kind === 'money') {
      await tx.update(user).set({ money: after, updateTime: t }).where(eq(user.id, userId));
      await tx.insert(userMoneyLog).values({ ...log, money: amount });
    } else {
      await tx.update(user).set({ score: after, updateTime: t }).where(eq(user.id, userId));
      await tx.insert(userScoreLog).values({ ...log, score: amount });
    }
    return { before: row.value, after };
  });
}

/**
 * Adds (or, negative, takes) balance in cents. `memo` is the entry's fixed text (an operator's
 * words, or Atrium's own in English, also a lookup key); `message` what readers see in their language.
 */
export function adjustMoney(db: Db | Tx, userId: number, cents: number, memo: string, message?: LedgerMessage): Promise<{ before: number; after: number }> {
  return adjust(db, 'money', userId, cents, memo, message);
}

/** Adds (or, negative, takes) points; `memo` and `message` as for `adjustMoney`. */
export function adjustScore(db: Db | Tx, userId: number, points: number, memo: string, message?: LedgerMessage): Promise<{ before: number; after: number }> {
  return adjust(db, 'score', userId, points, memo, message);
}

/** Daily sums of the last seven days, oldest first (reference: account/overview). */
export async function overview(db: Db, userId: number, timeZone: string): Promise<{ days: string[]; score: number[]; money: string[] }> {
  const days = Array.from({ length: 7 }, (_, i) => formatDate(Date.now() - (6 - i) * 86_400_000, 'yyyy-mm-dd', timeZone));
  const since = now() - 8 * 86400;
  const [moneyRows, scoreRows] = await Promise.all([
    db.select({ amount: userMoneyLog.money, time: userMoneyLog.createTime }).from(userMoneyLog).where(and(eq(userMoneyLog.userId, userId), gte(userMoneyLog.createTime, since))),
    db.select({ amount: userScoreLog.score, time: userScoreLog.createTime }).from(userScoreLog).where(and(eq(userScoreLog.userId, userId), gte(userScoreLog.createTime, since))),
  ]);
  const sum = (rows: { amount: number; time: number }[]): number[] => days.map((day) => rows
    .filter((r) => formatDate(r.time, 'yyyy-mm-dd', timeZone) === day)
    .reduce((a, r) => a + r.amount, 0));
  const cents = sum(moneyRows);
  return { days, score: sum(scoreRows), money: cents.map((c) => (c / 100).toFixed(2)) };
}

/** One page of a member's money or points log, newest first. */
export async function ledgerPage(db: Db, kind: 'money' | 'score', userId: number, page: number, limit: number) {
  const table = kind === 'money' ? userMoneyLog : userScoreLog;
  const [rows, [{ total } = { total: 0 }]] = await Promise.all([
    db.select().from(table).where(eq(table.userId, userId)).orderBy(sql`${table.id} desc`).limit(limit).offset((page - 1) * limit),
    db.select({ total: sql<number>`count(*)::int` }).from(table).where(eq(table.userId, userId)),
  ]);
  return { rows, total };
}
