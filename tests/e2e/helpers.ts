// Shared by the end-to-end specs: the server's settings, SQL against its database, the captcha.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, type Page } from '@playwright/test';
import pg from 'pg';

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

