// Limits that must hold under real parallel requests, on PGlite and on PostgreSQL + Redis:
// at most 5 guesses are ever compared against one verification code, and a login lock belongs to
// the account (whichever of its names is typed) and lets exactly 10 tries through.
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../src/lib/server/env';
import { createRuntime } from '../../src/lib/server/boot/runtime';
import { createUser } from '../../src/lib/server/account/users';
import { sendCode } from '../../src/lib/server/account/codes';
import { freshPostgres, postJson, startServer, type TestServer } from '../helpers/server';
import { ROOT, TEMPLATE_DIR, TMP } from '../helpers/paths';
import { scaled } from '../helpers/time-scale.mjs';

const DB = process.env.TEST_DATABASE_URL;
const REDIS = process.env.TEST_REDIS_URL;
const started: TestServer[] = [];
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(started.map((s) => s.stop()));
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const EN = { 'think-lang': 'en' };
type Setup = { server: TestServer; code: string };

/** A member `mallory` (e-mail m@example.com, mobile 13800138001), login captcha off, a password-reset code sent to her e-mail. */
async function setUp(kind: 'pglite' | 'postgres'): Promise<Setup> {
  const dataDir = mkdtempSync(join(TMP, 'secc-'));
  dirs.push(dataDir);
  const env: Record<string, string> = { ATRIUM_ROOT: ROOT, DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  if (kind === 'pglite') cpSync(TEMPLATE_DIR, dataDir, { recursive: true });
  else Object.assign(env, { DATABASE_URL: await freshPostgres(), REDIS_URL: REDIS!, REDIS_PREFIX: `secc${Date.now().toString(36)}:` });
  const rt = await createRuntime(readConfig(env));
  try {
    await createUser(rt.db, { username: 'mallory', password: 'right-password1', email: 'm@example.com', mobile: '13800138001' });
    await rt.site.set('user_login_captcha', '0');
    await sendCode(rt, { channel: 'email', to: 'm@example.com', event: 'user_retrieve_pwd', ip: '127.0.0.9', locale: 'en', userId: null });
  } finally {
    await rt.close();
  }
  const outbox = join(dataDir, 'outbox');
  const mail = readdirSync(outbox).map((f) => readFileSync(join(outbox, f), 'utf8')).find((m) => m.includes('m@example.com'))!;
  const code = /\b(\d{6})\b/.exec(mail)![1]!;
  const server = await startServer({ dataDir, env: kind === 'postgres' ? { DATABASE_URL: env.DATABASE_URL!, REDIS_URL: env.REDIS_URL!, REDIS_PREFIX: env.REDIS_PREFIX! } : {} });
  started.push(server);
  return { server, code };
}

/** Six digits that are not `code`. */
function wrongGuess(i: number, code: string): string {
  const guess = String((Number(code) + 1 + i) % 1_000_000).padStart(6, '0');
  return guess;
}

async function codeGuessesAreCounted({ server, code }: Setup): Promise<void> {
  const replies = await Promise.all(Array.from({ length: 120 }, (_, i) => postJson(server.url, '/api/account/retrievePassword',
    { type: 'email', account: 'm@example.com', captcha: wrongGuess(i, code), password: 'stolen-password1' }, EN)));
  const msgs = replies.map((r) => r.json().msg);
  expect(replies.every((r) => r.status === 200)).toBe(true);
  // Exactly five guesses were compared; every other one found the code already void.
  expect(msgs.filter((m) => m === 'The code is incorrect')).toHaveLength(5);
  expect(msgs.filter((m) => m === 'The code is no longer valid; please request a new one')).toHaveLength(115);
  const late = await postJson(server.url, '/api/account/retrievePassword', { type: 'email', account: 'm@example.com', captcha: code, password: 'stolen-password1' }, EN);
  expect(late.json()).toMatchObject({ code: 0, msg: 'The code is no longer valid; please request a new one' });
}

async function loginLockIsPerAccount({ server }: Setup): Promise<void> {
  const replies = await Promise.all(Array.from({ length: 40 }, (_, i) => postJson(server.url, '/api/user/checkIn',
    { tab: 'login', username: 'mallory', password: `wrong-password${i}`, keep: false }, EN)));
  const msgs = replies.map((r) => r.json().msg);
  expect(msgs.filter((m) => m === 'Incorrect account or password')).toHaveLength(10);
  expect(msgs.filter((m) => /^Too many failed logins/.test(m))).toHaveLength(30);
  // The same account by its e-mail or mobile is locked too, even with the right password.
  for (const account of ['m@example.com', '13800138001', 'MALLORY']) {
    const res = await postJson(server.url, '/api/user/checkIn', { tab: 'login', username: account, password: 'right-password1', keep: false }, EN);
    expect(res.json().msg).toMatch(/^Too many failed logins/);
  }
}

describe('parallel guesses on PGlite', () => {
  it('compares at most 5 of 120 parallel guesses at a password-reset code, and the code is void after them', async () => {
    await codeGuessesAreCounted(await setUp('pglite'));
  }, scaled(180_000));
  it('lets 10 of 40 parallel wrong logins through and locks the account under all its names', async () => {
    await loginLockIsPerAccount(await setUp('pglite'));
  }, scaled(180_000));
});

describe.skipIf(!DB || !REDIS)('parallel guesses on PostgreSQL + Redis', () => {
  it('compares at most 5 of 120 parallel guesses at a password-reset code, and the code is void after them', async () => {
    await codeGuessesAreCounted(await setUp('postgres'));
  }, scaled(180_000));
  it('lets 10 of 40 parallel wrong logins through and locks the account under all its names', async () => {
    await loginLockIsPerAccount(await setUp('postgres'));
  }, scaled(180_000));
});
