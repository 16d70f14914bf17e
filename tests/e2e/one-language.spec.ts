// One language per page: every page type rendered in English shows no Chinese outside what members
// wrote (marked `data-user-content`, or in an element with its own `lang`, like the language
// switch), and rendered in Chinese shows no sentence of the English interface. Run as a member over
// the demo content (posts in both languages, the demo's modules math and webhook, the guide in two translations).
// Needs the e2e server on PostgreSQL (TEST_DATABASE_URL): the demo seed and the test share its database.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { DICTIONARIES } from '../../src/lib/i18n';
import { logIn, newMember, query, readEnv, type E2eEnv } from './helpers';
import { scaled } from '../helpers/time-scale.mjs';

let env: E2eEnv = { dataDir: '', databaseUrl: null };
test.beforeAll(() => { env = readEnv(); });

/** What the page says in its interface: text and labels, without members' words and other-language islands. */
async function interfaceText(page: Page): Promise<string> {
  return page.evaluate(() => {
    const skip = '[data-user-content], [lang], script, style, template, textarea, pre, code, .markdown-body';
    const root = document.body.cloneNode(true) as HTMLElement;
    for (const el of root.querySelectorAll(skip)) el.remove();
    const labels = [...document.body.querySelectorAll<HTMLElement>('[title], [aria-label], [placeholder], img[alt]')]
      .filter((el) => !el.closest(skip))
      .flatMap((el) => ['title', 'aria-label', 'placeholder', 'alt'].map((a) => el.getAttribute(a) ?? ''));
    // (The document title repeats the page's heading, members' words included.)
    return [root.innerText, ...labels].join('\n');
  });
}

/** Sentences of the English interface that Chinese pages must not show (short words like "AI" or "Markdown" are shared). */
function englishPhrases(): string[] {
  const zhText = Object.values(DICTIONARIES['zh-cn']).flatMap((g) => Object.values(g as Record<string, string>)).join('\n');
  const phrases = new Set<string>();
  for (const group of Object.values(DICTIONARIES.en)) {
    for (const value of Object.values(group as Record<string, string>)) {
      for (const part of value.split(/\{[^}]*\}/)) {
        const p = part.trim();
        if (p.length >= 12 && /^[A-Za-z][A-Za-z ,.'’-]+[A-Za-z.]$/.test(p) && p.includes(' ') && !zhText.includes(p)) phrases.add(p);
      }
    }
  }
  return [...phrases];
}

function chineseIn(text: string): string[] {
  return [...text.matchAll(/.{0,20}[\u3400-\u9fff\u3000-\u303f\uff00-\uffef]+.{0,20}/g)].map((m) => m[0].trim());
}

test('every page type speaks one language, in English and in Chinese', async ({ browser }) => {
  test.skip(!env.databaseUrl, 'set TEST_DATABASE_URL to run the language check (.ci/run does)');
  test.setTimeout(scaled(240_000));
  const seeded = spawnSync(process.execPath, [join(process.cwd(), 'dist/atrium.mjs'), '--migrate-only', '--demo'], {
    env: { ...process.env, ATRIUM_ROOT: process.cwd(), DATABASE_URL: env.databaseUrl!, DATA_DIR: env.dataDir, LOG_LEVEL: 'warn' }, encoding: 'utf8',
  });
  expect(seeded.status, seeded.stderr).toBe(0);
  const name = `lang${Date.now().toString(36).slice(-6)}`;
  await newMember(env, name);
  const [me] = await query<{ id: number }>(env, 'select id from "user" where username = $1', [name]);
  const [post] = await query<{ id: number }>(env, 'select id from ask_post where status = $1 order by id limit 1', ['published']);
  const [author] = await query<{ id: number }>(env, 'select user_id as id from ask_post where id = $1', [post!.id]);
  const page = await logIn(env, browser, name);
  // Points and balance entries of Atrium's own making.
  await page.goto('/user/account/signIn');
  const paths = [
    '/', '/ask', `/ask/info/${post!.id}`, '/ask/lists/category/1', `/ask/lists/user/${author!.id}`, '/ask/search/pglite', '/ask/post',
    '/md', '/md/guide/install', '/md/search?q=install', '/modules', '/modules/webhook', '/modules/editor', '/chat',
    `/user/card/${me!.id}`, '/user/account/overview', '/user/account/profile', '/user/account/balance', '/user/account/integral',
    '/user/account/signIn', '/user/account/moduleOrders', '/user/developer/verif', '/user/messageCenter', '/no-such-page',
  ];
  const phrases = englishPhrases();
  const problems: string[] = [];
  for (const locale of ['en', 'zh-cn'] as const) {
    await page.context().addCookies([{ name: 'ba-lang', value: locale, domain: new URL(page.url()).hostname, path: '/' }]);
    for (const path of paths) {
      await page.goto(path);
      await expect(page.locator('html')).toHaveAttribute('lang', locale);
      const text = await interfaceText(page);
      const found = locale === 'en' ? chineseIn(text) : phrases.filter((p) => text.includes(p));
      if (found.length) problems.push(`${locale} ${path}: ${found.slice(0, 6).join(' | ')}`);
    }
  }
  expect(problems).toEqual([]);
});
