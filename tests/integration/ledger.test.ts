// Balance and points stay equal to their logs under concurrency, on PGlite and on PostgreSQL.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { and, desc, eq, sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { readConfig } from '../../src/lib/server/env';
import type { Runtime } from '../../src/lib/server/runtime';
import { createRuntime } from '../../src/lib/server/boot/runtime';
import { createUser } from '../../src/lib/server/account/users';
import { adjustMoney, adjustScore } from '../../src/lib/server/account/ledger';
import { signIn } from '../../src/lib/server/account/sign-in';
import { user, userMoneyLog, userScoreLog, userSignIn } from '../../src/lib/server/db/schema';
import { ROOT, TEMPLATE_DIR, TMP } from '../helpers/paths';
import { freshPostgres } from '../helpers/server';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => { for (const c of cleanups.splice(0)) await c(); });

async function pgliteRuntime(): Promise<Runtime> {
  const dir = mkdtempSync(join(TMP, 'ledger-'));
  cpSync(TEMPLATE_DIR, dir, { recursive: true });
  const rt = await createRuntime(readConfig({ ATRIUM_ROOT: ROOT, DATA_DIR: dir, LOG_LEVEL: 'warn' }));
  cleanups.push(async () => { await rt.close(); rmSync(dir, { recursive: true, force: true }); });
  return rt;
}

async function postgresRuntime(): Promise<Runtime> {
  const rt = await createRuntime(readConfig({ ATRIUM_ROOT: ROOT, DATABASE_URL: await freshPostgres(), DATABASE_POOL_SIZE: '20', LOG_LEVEL: 'warn' }));
  cleanups.push(() => rt.close());
  return rt;
}

async function checkConsistency(rt: Runtime, userId: number): Promise<void> {
  const [row] = await rt.db.select().from(user).where(eq(user.id, userId));
  const [money] = await rt.db.select({ sum: sql<number>`coalesce(sum(${userMoneyLog.money}), 0)::int` }).from(userMoneyLog).where(eq(userMoneyLog.userId, userId));
  const [score] = await rt.db.select({ sum: sql<number>`coalesce(sum(${userScoreLog.score}), 0)::int` }).from(userScoreLog).where(eq(userScoreLog.userId, userId));
  expect(money?.sum).toBe(row!.money);
  expect(score?.sum).toBe(row!.score);
  const [lastMoney] = await rt.db.select().from(userMoneyLog).where(eq(userMoneyLog.userId, userId)).orderBy(desc(userMoneyLog.id)).limit(1);
  const [lastScore] = await rt.db.select().from(userScoreLog).where(eq(userScoreLog.userId, userId)).orderBy(desc(userScoreLog.id)).limit(1);
  expect(lastMoney?.after ?? 0).toBe(row!.money);
  expect(lastScore?.after ?? 0).toBe(row!.score);
  // Every row continues where the previous one ended.
  const chain = await rt.db.select().from(userScoreLog).where(eq(userScoreLog.userId, userId)).orderBy(userScoreLog.id);
  chain.forEach((r, i) => { if (i > 0) expect(r.before).toBe(chain[i - 1]!.after); });
}

async function hammer(rt: Runtime): Promise<void> {
  const member = await createUser(rt.db, { username: `lg${Date.now().toString(36)}`, password: 'ledger123' });
  const jobs: Promise<unknown>[] = [];
  for (let i = 0; i < 50; i++) {
    jobs.push(signIn(rt, member.id));
    jobs.push(adjustScore(rt.db, member.id, i % 2 ? 3 : 5, `bonus ${i}`));
    jobs.push(adjustMoney(rt.db, member.id, i % 3 ? 125 : 1000, `top-up ${i}`));
  }
  const results = await Promise.allSettled(jobs);
  expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
  const signIns = await rt.db.select().from(userSignIn).where(and(eq(userSignIn.userId, member.id)));
  expect(signIns).toHaveLength(1);
  const [row] = await rt.db.select().from(user).where(eq(user.id, member.id));
  expect(row!.score).toBe(10 + 25 * 5 + 25 * 3);
  expect(row!.money).toBe(17 * 1000 + 33 * 125);
  await checkConsistency(rt, member.id);
}

describe('ledger under concurrency', () => {
  it('holds on PGlite: one check-in a day, logs equal balances', async () => {
    await hammer(await pgliteRuntime());
  });

  it.skipIf(!process.env.TEST_DATABASE_URL)('holds on PostgreSQL with 20 connections', async () => {
    await hammer(await postgresRuntime());
  });

  it('refuses to go below zero and changes nothing', async () => {
    const rt = await pgliteRuntime();
    const member = await createUser(rt.db, { username: 'poor_one', password: 'ledger123' });
    await adjustMoney(rt.db, member.id, 500, 'gift');
    await expect(adjustMoney(rt.db, member.id, -600, 'too much')).rejects.toThrow();
    const [row] = await rt.db.select().from(user).where(eq(user.id, member.id));
    expect(row!.money).toBe(500);
    await checkConsistency(rt, member.id);
  });
});

describe('ledger entries in the reader\'s language', () => {
  it('stores a message key with its values and renders it in Chinese or English; operators\' memos stay as written', async () => {
    const { readFileSync } = await import('node:fs');
    const { ledgerText } = await import('../../src/lib/server/account/ledger');
    const rt = await pgliteRuntime();
    const member = await createUser(rt.db, { username: 'lang_ledger', password: 'ledgerpass1' });
    await signIn(rt, member.id);
    await adjustMoney(rt.db, member.id, 500, 'bank transfer');
    const [checkIn] = await rt.db.select().from(userScoreLog).where(eq(userScoreLog.userId, member.id));
    expect(checkIn!.memoKey).toBe('user.ledger.memo.checkIn');
    expect(ledgerText(checkIn!, 'zh-cn').text).toMatch(/^每日签到 \d{4}-\d{2}-\d{2}$/);
    expect(ledgerText(checkIn!, 'en').text).toMatch(/^Daily check-in \d{4}-\d{2}-\d{2}$/);
    const [transfer] = await rt.db.select().from(userMoneyLog).where(eq(userMoneyLog.userId, member.id));
    expect(ledgerText(transfer!, 'zh-cn')).toEqual({ text: 'bank transfer', userContent: true });

    // Rows written before keys existed: the data migration gives Atrium's own memos their key.
    await rt.db.insert(userScoreLog).values([
      { userId: member.id, score: 2, before: 0, after: 2, memo: 'Post #13 published', createTime: 1 },
      { userId: member.id, score: -10, before: 2, after: -8, memo: 'module:notes order:20261126013005123456', createTime: 2 },
      { userId: member.id, score: 1, before: 0, after: 1, memo: 'a gift from the team', createTime: 3 },
    ]);
    await rt.db.insert(userMoneyLog).values({ userId: member.id, money: -100, before: 500, after: 400, memo: 'module:notes order:20261126013005123456', createTime: 4 });
    const backfill = readFileSync(join(ROOT, 'drizzle', '0012_ledger_memo_backfill.sql'), 'utf8');
    for (const statement of backfill.split('--> statement-breakpoint')) await rt.db.execute(sql.raw(statement));
    const scores = await rt.db.select().from(userScoreLog).where(and(eq(userScoreLog.userId, member.id), sql`${userScoreLog.createTime} < 10`)).orderBy(userScoreLog.createTime);
    expect(scores.map((r) => ledgerText(r, 'zh-cn').text)).toEqual(['发布帖子 #13', '购买模块 notes（订单 20261126013005123456）', 'a gift from the team']);
    expect(scores.map((r) => ledgerText(r, 'en').text)).toEqual(['Post #13 published', 'Bought module notes (order 20261126013005123456)', 'a gift from the team']);
    const [bought] = await rt.db.select().from(userMoneyLog).where(eq(userMoneyLog.createTime, 4));
    expect(ledgerText(bought!, 'zh-cn').text).toBe('购买模块 notes（订单 20261126013005123456）');
  });
});
