// What the cloud-upload specs share: a real object store (Swift + s3api), an app server of their own
// on PostgreSQL and Redis (so the operator CLI's setting changes reach it at once), members, login.
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, mkdtempSync, openSync, closeSync, writeSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { expect, type Browser, type Locator, type Page } from '@playwright/test';
import pg from 'pg';
import { startServer, type TestServer } from '../helpers/server';
import { startSwift, type SwiftStore, type SwiftOptions } from '../helpers/swift';
import { hashPassword } from '../../src/lib/server/auth/password';
import { scaled } from '../helpers/time-scale.mjs';

export interface CloudSite {
  swift: SwiftStore;
  app: TestServer;
  databaseUrl: string;
  dataDir: string;
  env: Record<string, string>;
  cli(...args: string[]): string;
  sql<T>(text: string, params?: unknown[]): Promise<T[]>;
  stop(): Promise<void>;
}

const TMP = join(process.cwd(), 'tests', '.tmp');

/** Swift, then an app server with the store's keys in its environment; the caller picks the mode. */
export async function startCloudSite(extraEnv: Record<string, string> = {}, swiftOptions: SwiftOptions = {}): Promise<CloudSite> {
  const swift = await startSwift({ bucket: 'atrium-e2e', ...swiftOptions });
  const base = process.env.TEST_DATABASE_URL!;
  const name = `${process.env.TEST_PG_PREFIX ?? 'atrium'}_cloud_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const u = new URL(base);
  u.pathname = `/${name}`;
  const databaseUrl = u.toString();
  const dataDir = mkdtempSync(join(TMP, 'cloud-'));
  const env: Record<string, string> = {
    DATABASE_URL: databaseUrl, REDIS_URL: process.env.TEST_REDIS_URL!, REDIS_PREFIX: `${name}:`,
    S3_ACCESS_KEY_ID: swift.accessKeyId, S3_SECRET_ACCESS_KEY: swift.secretAccessKey, ...extraEnv,
  };
  const app = await startServer({ dataDir, env, startTimeout: scaled(90_000) });
  const cli = (...args: string[]): string => {
    const r = spawnSync(process.execPath, [join(process.cwd(), 'dist/cli.mjs'), ...args], {
      env: { ...process.env, ATRIUM_ROOT: process.cwd(), DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...env }, encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(`atrium ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  const sql = async <T>(text: string, params: unknown[] = []): Promise<T[]> => {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try { return (await client.query(text, params)).rows as T[]; } finally { await client.end(); }
  };
  cli('config:set', 'user_login_captcha', '0');
  return {
    swift, app, databaseUrl, dataDir, env, cli, sql,
    async stop() {
      await app.stop();
      await swift.stop();
      rmSync(dataDir, { recursive: true, force: true });
      const a = new pg.Client({ connectionString: base });
      await a.connect();
      await a.query(`drop database if exists ${name} with (force)`).catch(() => undefined);
      await a.end();
    },
  };
}

/** A member who joined three days ago, password `cloudpass1`. */
export async function addMember(site: CloudSite, name: string): Promise<number> {
  const t = Math.floor(Date.now() / 1000) - 3 * 86400;
  const [row] = await site.sql<{ id: number }>(`insert into "user" (username, nickname, password, group_id, join_time, create_time, update_time) values ($1, $1, $2, 1, $3, $3, $3) returning id`,
    [name, await hashPassword('cloudpass1'), t]);
  return row!.id;
}

/** A page of the site's own server, logged in through the form (the site runs without login captcha). */
export async function logInTo(site: CloudSite, browser: Browser, name: string, locale = 'zh-CN'): Promise<Page> {
  const context = await browser.newContext({ baseURL: site.app.url, locale });
  const page = await context.newPage();
  await page.goto('/user/login');
  await page.waitForFunction(() => !document.querySelector('astro-island[ssr]'));
  await page.getByLabel(locale === 'en' ? /Account/ : '账户名 / 邮箱 / 手机号').fill(name);
  await page.getByLabel(locale === 'en' ? 'Password' : '密码').fill('cloudpass1');
  await page.getByRole('button', { name: locale === 'en' ? 'Log in' : '登录', exact: true }).last().click();
  await expect(page).toHaveURL(/\/user\/account\/overview$/);
  return page;
}

/**
 * Opens the post form and pastes `png` into its editor as `pasted.png`; answers the editor's textbox.
 * A paste before the editor module's component is in would land in a bare textarea, which drops
 * files. The component comes after the page's islands hydrate (the module's browser half loads on its
 * own), and only on a page drawn once the install reached the server (the CLI tells it through Redis):
 * the form is loaded again until it is there.
 */
export async function pasteIntoPostEditor(page: Page, png: Buffer): Promise<Locator> {
  await expect(async () => {
    await page.goto('/ask/post');
    await page.waitForFunction(() => !document.querySelector('astro-island[ssr]'));
    await expect(page.locator('.md-editor textarea')).toBeVisible({ timeout: scaled(3000) });
  }).toPass({ timeout: scaled(30_000) });
  const editor = page.getByRole('textbox', { name: '内容' });
  await editor.click();
  await page.evaluate((b64) => {
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const data = new DataTransfer();
    data.items.add(new File([bytes], 'pasted.png', { type: 'image/png' }));
    document.querySelector('.md-editor textarea')!.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
  }, png.toString('base64'));
  return editor;
}

/** A file of `size` random bytes in tests/.tmp and its sha1. */
export function randomFile(name: string, size: number): { path: string; sha1: string } {
  const path = join(mkdtempSync(join(TMP, 'file-')), name);
  const fd = openSync(path, 'w');
  const hash = createHash('sha1');
  const chunk = 8 * 1024 * 1024;
  for (let written = 0; written < size; written += chunk) {
    const buf = randomBytes(Math.min(chunk, size - written));
    hash.update(buf);
    writeSync(fd, buf);
  }
  closeSync(fd);
  return { path, sha1: hash.digest('hex') };
}

/** sha1 of an object read back from the store. */
export async function storedSha1(site: CloudSite, key: string): Promise<string> {
  const { S3Client, GetObjectCommand } = await import('@aws-sdk/client-s3');
  const s3 = new S3Client({ region: site.swift.region, endpoint: site.swift.endpoint, forcePathStyle: true, credentials: { accessKeyId: site.swift.accessKeyId, secretAccessKey: site.swift.secretAccessKey } });
  const out = await s3.send(new GetObjectCommand({ Bucket: site.swift.bucket, Key: key }));
  const hash = createHash('sha1');
  for await (const chunk of out.Body as AsyncIterable<Uint8Array>) hash.update(chunk);
  return hash.digest('hex');
}

export function sha1OfFile(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha1');
    createReadStream(path).on('data', (c) => hash.update(c)).on('end', () => resolve(hash.digest('hex'))).on('error', reject);
  });
}
