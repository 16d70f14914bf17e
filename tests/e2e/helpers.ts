// Shared by the end-to-end specs: the server's settings, SQL against its database, the captcha.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { expect, type Browser, type Locator, type Page } from '@playwright/test';
import pg from 'pg';
import { hashPassword } from '../../src/lib/server/auth/password';
import { scaled } from '../helpers/time-scale.mjs';

export interface E2eEnv { dataDir: string; databaseUrl: string | null }

/** Written by tests/e2e/serve.mjs when the server starts: read once the server runs. */
export function readEnv(): E2eEnv {
  return JSON.parse(readFileSync(join(process.cwd(), 'tests/.tmp/e2e.json'), 'utf8')) as E2eEnv;
}

export async function query<T>(env: E2eEnv, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: env.databaseUrl! });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}

/**
 * Does what opens the captcha, then clicks its targets where the database says they are. The
 * captcha is found by the id the page asked for, so tests running side by side do not mix them up.
 */
export async function solveCaptcha(env: E2eEnv, page: Page, open: () => Promise<void>): Promise<void> {
  const asked = page.waitForRequest(/\/api\/common\/clickCaptcha\?id=/);
  await open();
  const id = new URL((await asked).url()).searchParams.get('id')!;
  const image = page.locator('.click-captcha img');
  await expect(image).toBeVisible();
  const key = createHash('sha256').update(`click:${id}`).digest('hex');
  const [row] = await query<{ captcha: string }>(env, 'select captcha from captcha where key = $1', [key]);
  const stored = JSON.parse(row!.captcha) as { text: { x: number; y: number; width: number; height: number }[]; width: number; height: number };
  const box = (await image.boundingBox())!;
  for (const target of stored.text) {
    await page.mouse.click(box.x + ((target.x + target.width / 2) / stored.width) * box.width, box.y + ((target.y + target.height / 2) / stored.height) * box.height);
  }
}


/**
 * Runs `fn` while holding a lock file, so specs in other workers that change the same site-wide
 * state (e.g. installing and uninstalling the editor module) take turns.
 */
export async function withLock<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const path = join(process.cwd(), 'tests/.tmp', `${name}.lock`);
  const started = Date.now();
  const patience = scaled(120_000);
  for (;;) {
    try {
      writeFileSync(path, String(process.pid), { flag: 'wx' });
      break;
    } catch {
      // A worker that timed out inside `fn` is ended without its `finally`: its lock is stale once
      // its process is gone (and a retry of that very test would otherwise wait for it).
      let holder: string | null = null;
      try { holder = readFileSync(path, 'utf8'); } catch { continue; } // released meanwhile: try again
      if (!processAlive(Number(holder))) { rmSync(path, { force: true }); continue; }
      if (Date.now() - started > patience) throw new Error(`lock ${name} still held after ${patience / 1000} s`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(path, { force: true });
  }
}

/** Whether a process with this pid exists (an empty or unreadable lock counts as held: its writer may be mid-write). */
function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** Runs the operator CLI against the e2e server's database. */
export function atrium(env: E2eEnv, ...args: string[]): string {
  const r = spawnSync(process.execPath, [join(process.cwd(), 'dist/cli.mjs'), ...args], {
    env: { ...process.env, ATRIUM_ROOT: process.cwd(), DATABASE_URL: env.databaseUrl!, DATA_DIR: env.dataDir, LOG_LEVEL: 'warn' }, encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`atrium ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** A member who joined three days ago (past the new-member limits), password `forumpass1`. */
export async function newMember(env: E2eEnv, name: string, groupId = 1): Promise<void> {
  const t = Math.floor(Date.now() / 1000) - 3 * 86400;
  await query(env, `insert into "user" (username, nickname, password, group_id, join_time, create_time, update_time) values ($1, $1, $2, $3, $4, $4, $4)`,
    [name, await hashPassword('forumpass1'), groupId, t]);
}

/** A new browser context logged in as `name` through the login form (captcha solved). */
export async function logIn(env: E2eEnv, browser: Browser, name: string): Promise<Page> {
  const context = await browser.newContext({ locale: 'zh-CN' });
  const page = await context.newPage();
  await page.goto('/user/login');
  // Clicking before the form hydrates would submit it the browser's way, without the captcha.
  await page.waitForFunction(() => !document.querySelector('astro-island[ssr]'));
  await page.getByLabel('账户名 / 邮箱 / 手机号').fill(name);
  await page.getByLabel('密码').fill('forumpass1');
  await solveCaptcha(env, page, () => page.getByRole('button', { name: '登录', exact: true }).last().click());
  await expect(page).toHaveURL(/\/user\/account\/overview$/);
  await expectNoReadableToken(page);
  return page;
}

/**
 * The session's tokens are in HttpOnly cookies only (issue 29 item 12): the browser holds them,
 * but neither `document.cookie` nor localStorage/sessionStorage shows a script any of them.
 */
export async function expectNoReadableToken(page: Page): Promise<void> {
  const tokens = (await page.context().cookies()).filter((c) => c.name === 'ba-user-token' || c.name === 'ba-user-refresh');
  expect(tokens.map((c) => c.name)).toContain('ba-user-token');
  for (const c of tokens) expect(c.httpOnly, c.name).toBe(true);
  const readable = await page.evaluate(() => {
    const stored = (s: Storage): string[] => Array.from({ length: s.length }, (_, i) => `${s.key(i)}=${s.getItem(s.key(i)!)}`);
    return { cookie: document.cookie, storage: [...stored(localStorage), ...stored(sessionStorage)].join('\n') };
  });
  // The user-info cookie is there for scripts, with nothing secret in it.
  expect(readable.cookie).toContain('userInfo-v5=');
  for (const c of tokens) {
    expect(readable.cookie).not.toContain(c.value);
    expect(readable.storage).not.toContain(c.value);
  }
  expect(readable.cookie).not.toMatch(/ba-user-(token|refresh)=/);
  expect(readable.storage).not.toMatch(/ba-user-token|userInfo-v5/);
}

/**
 * A resident ID number with a valid check digit, different on every call (specs share one database
 * and one ID number may back only one developer application).
 */
let idSeq = 0;
export function uniqueIdNumber(): string {
  const seed = Date.now() + process.pid * 7919 + (idSeq++) * 104_729;
  const day = new Date(Date.UTC(1960, 0, 1) + (seed % 15000) * 86_400_000);
  const body = `110108${day.toISOString().slice(0, 10).replace(/-/g, '')}${String(Math.floor(seed / 15000) % 1000).padStart(3, '0')}`;
  const weights = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
  const sum = [...body].reduce((s, d, i) => s + Number(d) * weights[i]!, 0);
  return body + '10X98765432'[sum % 11]!;
}

/** The six-digit code of the latest e-mail the site wrote to `address` (the outbox of DATA_DIR). */
export function latestCode(env: E2eEnv, address: string): string {
  const dir = join(env.dataDir, 'outbox');
  const file = readdirSync(dir).filter((f) => f.includes(address)).sort().at(-1)!;
  return /\b(\d{6})\b/.exec(readFileSync(join(dir, file), 'utf8'))![1]!;
}

/**
 * Waits until every island the server rendered has hydrated. Before that a file input or a form has
 * no handler yet: a file set on it is dropped (no upload starts) and a click submits the browser's way.
 */
export async function hydrated(page: Page): Promise<void> {
  await page.waitForFunction(() => !document.querySelector('astro-island[ssr]'));
}

/** Presses Tab (or Shift+Tab) until `target` has focus; fails if it never does. Reads the page only. */
export async function tabTo(page: Page, target: Locator, { back = false, max = 80 } = {}): Promise<void> {
  await expect(target.first()).toBeVisible();
  for (let i = 0; i < max; i++) {
    if (await target.first().evaluate((el) => el === document.activeElement || el.contains(document.activeElement)).catch(() => false)) return;
    await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
  }
  throw new Error(`${max} presses of ${back ? 'Shift+Tab' : 'Tab'} never reached ${target}`);
}

/**
 * The e2e server at a non-loopback IPv4 address of this machine (Chromium trusts 127.0.0.0/8 as a
 * secure context, a LAN address over plain HTTP not), relayed byte for byte; the traffic never leaves
 * the machine. Null when the machine has no such address.
 */
export async function startLanRelay(baseURL: string): Promise<{ origin: string; close(): Promise<void> } | null> {
  const address = Object.values(networkInterfaces()).flat().find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
  if (!address) return null;
  const upstream = new URL(baseURL);
  const relay = createServer((socket) => {
    const to = connect(Number(upstream.port), upstream.hostname);
    socket.pipe(to).pipe(socket);
    socket.on('error', () => to.destroy());
    to.on('error', () => socket.destroy());
  });
  await new Promise<void>((resolve) => relay.listen(0, address, resolve));
  return {
    origin: `http://${address}:${(relay.address() as { port: number }).port}`,
    close: () => new Promise<void>((resolve) => relay.close(() => resolve())),
  };
}
