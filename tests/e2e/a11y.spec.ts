// WCAG 2.2 AA (issue 27): axe-core finds no violation on any page type, in both languages, at
// 1366 and 390 px, in the light and the dark theme, as a visitor, a member and an administrator;
// html-validate finds no error in the HTML the server sent for each (html-validate.ts).
// One test per page type runs the eight variants of it; no rule is disabled and nothing excluded.
// The member's content (a post with a task list, a table, code and a reply with a comment; a
// bought module; a check-in) is made through the API the pages use; the CLI tops up and approves.
// Needs the e2e server on PostgreSQL (TEST_DATABASE_URL): the CLI and the test share its database.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Browser, type BrowserContext, type Page } from '@playwright/test';
import { ADMIN_GROUP } from '../../src/lib/server/site/seed';
import { atrium, logIn, newMember, query, readEnv, withLock, type E2eEnv } from './helpers';
import { axeViolations } from './axe';
import { htmlErrors } from './html-validate';
import { scaled } from '../helpers/time-scale.mjs';

const WIDTHS = [{ width: 1366, height: 900 }, { width: 390, height: 844 }] as const;
const LANGS = ['zh-cn', 'en'] as const;
const THEMES = ['light', 'dark'] as const;
type Role = 'visitor' | 'member' | 'admin';
type State = Awaited<ReturnType<BrowserContext['storageState']>>;

const POST_BODY = [
  'A post with everything markdown renders.',
  '',
  '- [x] a finished task',
  '- [ ] an open task',
  '',
  '| Setting | Default |',
  '|---|---|',
  '| DATABASE_URL | (embedded) |',
  '',
  '```ts',
  `const connectionString = "postgres://atrium:${'s3cr3t'.repeat(12)}@db.internal.example.com:5432/atrium";`,
  '```',
  '',
  'Inline `code`, a [link](https://example.com) and **bold** text.',
].join('\n');

interface World { env: E2eEnv; member: State; admin: State; postId: number; memberId: number; categoryId: number; uid: string; forSale: string }
let world: World | null = null;

async function api<T = { id?: number }>(page: Page, path: string, data?: unknown): Promise<{ code: number; msg: string; data: T }> {
  return page.evaluate(async ({ path, data }) => {
    const res = await fetch(path, data === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(data) });
    return res.json();
  }, { path, data }) as Promise<{ code: number; msg: string; data: T }>;
}

/** A resident ID number with a valid check digit, unique per call (one per developer application). */
function idNumber(seed: number): string {
  const day = new Date(Date.UTC(1960, 0, 1) + (seed % 15000) * 86_400_000);
  const body = `110108${day.toISOString().slice(0, 10).replace(/-/g, '')}${String(seed % 1000).padStart(3, '0')}`;
  const weights = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
  const sum = [...body].reduce((s, d, i) => s + Number(d) * weights[i]!, 0);
  return body + '10X98765432'[sum % 11]!;
}

/** Each worker makes its own member, administrator and content once. */
async function setUp(browser: Browser): Promise<World> {
  if (world) return world;
  const env = readEnv();
  const suffix = `${Date.now().toString(36).slice(-5)}${test.info().workerIndex}`;
  const name = `a11y${suffix}`;
  const boss = `a11a${suffix}`;
  const seller = `a11s${suffix}`;
  const uid = `a11y-${suffix}`;
  const forSale = `a11z-${suffix}`;
  await newMember(env, name);
  await newMember(env, boss, ADMIN_GROUP);
  await newMember(env, seller);
  const [me] = await query<{ id: number }>(env, 'select id from "user" where username = $1', [name]);
  const [them] = await query<{ id: number }>(env, 'select id from "user" where username = $1', [seller]);
  atrium(env, 'user:money', name, '50', 'top-up for the accessibility sweep');
  atrium(env, 'user:score', name, '30', 'points for the accessibility sweep');
  const page = await logIn(env, browser, name);
  const t = Math.floor(Date.now() / 1000);
  const [mod] = await query<{ id: number }>(env, `insert into module (uid, developer_id, name, summary, category, price, status, latest_version, publish_time, create_time, update_time)
    values ($1, $2, $3, $4, 'tools', 990, 'published', '1.0.0', $5, $5, $5) returning id`,
  [uid, them!.id, `Module ${suffix}`, 'A module to buy', t]);
  await query(env, `insert into module_version (module_id, version, status, publish_time, create_time) values ($1, '1.0.0', 'published', $2, $2)`, [mod!.id, t]);
  // A second module the member has not bought: its page offers the purchase and its confirmation dialog.
  const [other] = await query<{ id: number }>(env, `insert into module (uid, developer_id, name, summary, category, price, score_price, status, latest_version, publish_time, create_time, update_time)
    values ($1, $2, $3, $4, 'tools', 1990, 500, 'published', '1.0.0', $5, $5, $5) returning id`,
  [forSale, them!.id, `Module for sale ${suffix}`, 'A module not bought yet', t]);
  await query(env, `insert into module_version (module_id, version, status, publish_time, create_time) values ($1, '1.0.0', 'published', $2, $2)`, [other!.id, t]);
  const bought = await api(page, '/api/modules/buy', { uid, pay_type: 'balance', nonce: `a11y-buy-${suffix}` });
  expect(bought.code, bought.msg).toBe(1);
  expect((await api(page, '/api/account/signIn', {})).code).toBe(1);
  const applied = await api(page, '/api/developer/verif', {
    real_name: '张三', id_number: idNumber(Date.now() + test.info().workerIndex), mobile: '13800138000', email: `${name}@example.com`, province: '11', city: '1101',
    intro: '写了五年 Node.js，准备发布几个写作相关的模块。',
  });
  expect(applied.code, applied.msg).toBe(1);
  atrium(env, 'developer:review', name, 'approve');
  let postId = 0;
  let categoryId = 0;
  await withLock('editor-module', async () => {
    atrium(env, 'module:install', 'editor');
    const [category] = await query<{ id: number }>(env, `select id from ask_category where slug = 'question'`);
    categoryId = category!.id;
    const post = await api(page, '/api/ask/post', { title: `Accessible post ${suffix}`, category_id: categoryId, content: POST_BODY, tags: ['a11y'], nonce: `a11y-post-${suffix}` });
    expect(post.code, post.msg).toBe(1);
    postId = post.data.id!;
    const reply = await api(page, '/api/ask/reply', { post_id: postId, content: 'A reply:\n\n- [ ] with a task\n\n```\ncode\n```' });
    expect(reply.code, reply.msg).toBe(1);
    const comment = await api(page, '/api/ask/reply', { post_id: postId, parent_id: reply.data.id, content: 'A comment on the reply.' });
    expect(comment.code, comment.msg).toBe(1);
  });
  const member = await page.context().storageState();
  await page.context().close();
  const adminPage = await logIn(env, browser, boss);
  const admin = await adminPage.context().storageState();
  await adminPage.context().close();
  world = { env, member, admin, postId, memberId: me!.id, categoryId, uid, forSale };
  return world;
}

/**
 * A dialog a page opens, audited open at each language, theme and width, then closed with Escape.
 * `open` answers false where the page has no such dialog (the chat's drawer exists on phones only).
 */
interface Dialog { name: string; role: Role; open: (page: Page, lang: string, width: number) => Promise<boolean> }

/** Page types: a path (made from the member's content), who opens it, and the dialogs it opens. */
const PAGES: { name: string; roles: Role[]; path: (w: World) => string; editor?: boolean; dialogs?: Dialog[] }[] = [
  { name: 'home', roles: ['visitor', 'member'], path: () => '/' },
  { name: 'ask', roles: ['visitor', 'member'], path: () => '/ask' },
  { name: 'ask unsolved', roles: ['visitor'], path: () => '/ask?tab=unsolved' },
  { name: 'post', roles: ['visitor', 'member', 'admin'], path: (w) => `/ask/info/${w.postId}`, dialogs: [{
    name: 'member card', role: 'visitor', open: async (page) => {
      await page.locator('.post-meta a.by-line').first().click();
      await expect(page.locator('.ucard:not([aria-busy])')).toBeVisible();
      return true;
    },
  }] },
  { name: 'category list', roles: ['visitor'], path: (w) => `/ask/lists/category/${w.categoryId}` },
  { name: 'member posts list', roles: ['visitor'], path: (w) => `/ask/lists/user/${w.memberId}` },
  { name: 'forum search', roles: ['visitor'], path: () => '/ask/search/accessible' },
  { name: 'forum search form', roles: ['visitor'], path: () => '/ask/search' },
  { name: 'new post', roles: ['member'], path: () => '/ask/post', editor: true },
  { name: 'docs', roles: ['visitor'], path: () => '/md' },
  { name: 'docs book', roles: ['visitor'], path: () => '/md/guide' },
  { name: 'docs page', roles: ['visitor', 'member'], path: () => '/md/guide/cli' },
  { name: 'docs search', roles: ['visitor'], path: () => '/md/search?q=warning' },
  { name: 'docs editor', roles: ['admin'], path: () => '/md/edit/guide/cli', editor: true },
  { name: 'modules', roles: ['visitor', 'member'], path: () => '/modules' },
  { name: 'module', roles: ['visitor', 'member'], path: (w) => `/modules/${w.uid}` },
  { name: 'module for sale', roles: ['member'], path: (w) => `/modules/${w.forSale}`, dialogs: ['balance', 'score'].map((pay) => ({
    name: `buy with ${pay}`, role: 'member' as Role, open: async (page: Page) => {
      await page.locator(`button[data-market="ask-buy"][data-pay="${pay}"]`).click();
      await expect(page.locator(`dialog[data-confirm-pay="${pay}"]`)).toBeVisible();
      return true;
    },
  })) },
  { name: 'login', roles: ['visitor'], path: () => '/user/login', dialogs: [{
    name: 'captcha', role: 'visitor', open: async (page, lang) => {
      await page.waitForFunction(() => !document.querySelector('astro-island[ssr]'));
      await page.getByLabel(lang === 'en' ? 'Account, e-mail or mobile' : '账户名 / 邮箱 / 手机号').fill('somebody');
      await page.getByLabel(lang === 'en' ? 'Password' : '密码', { exact: true }).fill('forumpass1');
      await page.getByLabel(lang === 'en' ? 'Password' : '密码', { exact: true }).press('Enter');
      await expect(page.locator('.click-captcha img')).toBeVisible();
      return true;
    },
  }] },
  { name: 'register', roles: ['visitor'], path: () => '/user/login?type=register' },
  { name: 'reset password', roles: ['visitor'], path: () => '/reset-password' },
  { name: 'member card', roles: ['visitor', 'member'], path: (w) => `/user/card/${w.memberId}` },
  { name: 'chat', roles: ['visitor', 'member'], path: () => '/chat', dialogs: (['visitor', 'member'] as Role[]).map((role) => ({
    name: 'conversations drawer', role, open: async (page: Page, _lang: string, width: number) => {
      if (width > 760) return false;
      await page.waitForFunction(() => !document.querySelector('astro-island[ssr]'));
      await page.locator('button[aria-controls="chat-side"]').click();
      await expect(page.locator('#chat-side[role="dialog"]')).toBeVisible();
      return true;
    },
  })) },
  { name: 'not found', roles: ['visitor'], path: () => '/no-such-page' },
  ...['overview', 'profile', 'changePassword', 'integral', 'balance', 'signIn', 'invoice', 'moduleOrders', 'notice', 'apiTokens'].map((p) => (
    { name: `account ${p}`, roles: ['member'] as Role[], path: () => `/user/account/${p}` })),
  ...['post', 'comment', 'collect', 'reports'].map((p) => ({ name: `my ${p}`, roles: ['member'] as Role[], path: () => `/user/ask/${p}` })),
  ...['verif', 'modules', 'orders', 'earnings'].map((p) => ({ name: `developer ${p}`, roles: ['member'] as Role[], path: () => `/user/developer/${p}` })),
  { name: 'market review', roles: ['admin'], path: () => '/user/market/review' },
  { name: 'message center', roles: ['member'], path: () => '/user/messageCenter' },
  { name: 'private messages', roles: ['member'], path: () => '/user/messageCenter?tab=private' },
  ...['dashboard', 'members', 'groups', 'settings', 'notices', 'reports', 'books', 'market', 'finance', 'modules', 'audit'].map((p) => (
    { name: `admin ${p}`, roles: ['admin'] as Role[], path: () => `/admin/${p}` })),
  // Site modules, connecting to another Atrium's market: the key's fingerprint to confirm and the
  // token form (the market read is this e2e site's own, at the address the browser uses).
  { name: 'admin modules remote market key', roles: ['admin'], path: () => `/admin/modules?market=${encodeURIComponent(`http://127.0.0.1:${process.env.E2E_PORT ?? 4399}`)}` },
  { name: 'admin member', roles: ['admin'], path: (w) => `/admin/members/${w.memberId}`, dialogs: [{
    name: 'confirm administrator', role: 'admin', open: async (page) => {
      const group = page.locator('select[name="group_id"]');
      const admin = await group.locator('option[data-confirm]').first().getAttribute('value');
      await group.selectOption(admin!);
      await group.locator('xpath=ancestor::form').getByRole('button').click();
      await expect(page.locator('dialog[data-admin-confirm]')).toBeVisible();
      return true;
    },
  }] },
];

interface Found { view: string; rule: string; impact: string; nodes: number; targets: string[]; help: string }

/**
 * Every WCAG A/AA rule runs in the light theme; the dark theme changes colours only, so there the
 * rules that read colours run again (axe's colour contrast and link-from-text rules), and nothing
 * is skipped that the theme could change.
 */
const COLOUR_RULES = ['color-contrast', 'link-in-text-block'];

async function audit(page: Page, view: string, colourOnly: boolean): Promise<Found[]> {
  // Islands that hydrate on load may change the page: audit once they have.
  await page.waitForLoadState('load');
  await page.waitForFunction(() => !document.querySelector('astro-island[ssr][client="load"]'), undefined, { timeout: scaled(5000) }).catch(() => undefined);
  return (await axeViolations(page, colourOnly ? COLOUR_RULES : undefined)).map((v) => ({
    view, rule: v.id, impact: v.impact, nodes: v.nodes.length, help: v.help,
    targets: v.nodes.slice(0, 4).map((n) => `${n.target}${n.summary ? ` — ${n.summary.split('\n').slice(1, 2).join('').trim()}` : ''}`),
  }));
}

test.describe('axe finds no WCAG 2.2 AA violation', () => {
  test.describe.configure({ mode: 'parallel' });
  test.beforeAll(async ({ browser }) => {
    test.setTimeout(scaled(240_000));
    if (!readEnv().databaseUrl) return;
    await setUp(browser);
  });

  for (const spec of PAGES) {
    test(spec.name, async ({ browser }) => {
      test.skip(!world, 'set TEST_DATABASE_URL to run the accessibility sweep (.ci/run does)');
      test.setTimeout(scaled(240_000 * spec.roles.length));
      const w = world!;
      const path = spec.path(w);
      const found: Found[] = [];
      let views = 0;
      for (const role of spec.roles) {
        const state = role === 'member' ? w.member : role === 'admin' ? w.admin : undefined;
        const context = await browser.newContext({ ...(state ? { storageState: state } : {}) });
        const page = await context.newPage();
        const run = async () => {
          for (const lang of LANGS) {
            for (const theme of THEMES) {
              await context.addCookies([
                { name: 'ba-lang', value: lang, url: test.info().project.use.baseURL! },
                { name: 'ba-is-dark', value: theme === 'dark' ? '1' : '0', url: test.info().project.use.baseURL! },
              ]);
              // One load per language and theme; the narrow layout is the same page resized.
              await page.setViewportSize(WIDTHS[0]);
              const res = await page.goto(path);
              expect(res?.status(), path).toBeLessThan(500);
              // html-validate on the HTML the server sent (the theme changes one attribute: once per language).
              if (theme === THEMES[0]) {
                const view = `${path} ${role} ${lang}`;
                for (const error of await htmlErrors(await res!.text(), view)) found.push({ view, rule: 'html-validate', impact: '', nodes: 1, targets: [error], help: '' });
              }
              for (const size of WIDTHS) {
                await page.setViewportSize(size);
                views += 1;
                found.push(...await audit(page, `${path} ${role} ${lang} ${theme} ${size.width}`, theme === 'dark'));
              }
              // Each dialog open, at both widths (opened again at each: a drawer exists on phones only).
              for (const dialog of spec.dialogs?.filter((d) => d.role === role) ?? []) {
                for (const size of WIDTHS) {
                  await page.setViewportSize(size);
                  await page.goto(path);
                  if (!await dialog.open(page, lang, size.width)) continue;
                  views += 1;
                  found.push(...await audit(page, `${path} ${role} ${lang} ${theme} ${size.width} with ${dialog.name} open`, theme === 'dark'));
                  await page.keyboard.press('Escape');
                }
              }
            }
          }
        };
        if (spec.editor) await withLock('editor-module', async () => { atrium(w.env, 'module:install', 'editor'); await run(); });
        else await run();
        await context.close();
      }
      const dir = join(process.cwd(), 'tests/.tmp/a11y');
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `${spec.name.replace(/\W+/g, '-')}.json`), JSON.stringify({ views, found }, null, 1));
      expect(found.map((f) => `${f.view}: ${f.rule} (${f.impact}, ${f.nodes}) ${f.targets.join(' | ')}`)).toEqual([]);
    });
  }
});

// The audit itself: a page made to break four rules is reported with each of them, and the colour-only
// audit (the dark theme's) reports the contrast failure alone. An audit that found nothing here would
// pass every page above whatever they held.
test('the audit reports the violations a page has', async ({ page }) => {
  await page.setContent(`<!doctype html><html lang="en"><head><title>Broken on purpose</title></head><body><main>
    <h1>Broken on purpose</h1><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">
    <p style="color:#bbb;background:#fff">Grey on white, too faint to read</p>
    <button></button><label>Name <input id="a"></label><input id="a"></main></body></html>`);
  const all = (await axeViolations(page)).map((v) => v.id);
  expect(all).toEqual(expect.arrayContaining(['image-alt', 'color-contrast', 'button-name', 'label']));
  expect((await axeViolations(page, COLOUR_RULES)).map((v) => v.id)).toEqual(['color-contrast']);
  // A second audit of the same document (axe put in once) finds the same.
  expect((await axeViolations(page)).map((v) => v.id)).toEqual(all);
});

// The captcha is a modal dialog: announced by its name, Tab never leaves it, Escape closes it and
// focus goes back to where it was; axe finds nothing wrong with it open. Typed with the keyboard.
for (const lang of LANGS) {
  test(`the captcha dialog keeps focus, closes on Escape and hands focus back (${lang})`, async ({ browser }) => {
    test.setTimeout(scaled(90_000));
    const context = await browser.newContext({ locale: lang === 'en' ? 'en-US' : 'zh-CN' });
    await context.addCookies([{ name: 'ba-lang', value: lang, url: test.info().project.use.baseURL! }]);
    const page = await context.newPage();
    await page.goto('/user/login');
    await page.waitForFunction(() => !document.querySelector('astro-island[ssr]'));
    const name = lang === 'en' ? 'Security check' : '安全验证';
    await page.getByLabel(lang === 'en' ? 'Account, e-mail or mobile' : '账户名 / 邮箱 / 手机号').focus();
    await page.keyboard.type('somebody');
    await page.keyboard.press('Tab');
    await page.keyboard.type('forumpass1');
    const asked = page.waitForRequest(/\/api\/common\/clickCaptcha\?id=/);
    await page.keyboard.press('Enter');
    await asked;
    const dialog = page.getByRole('dialog', { name });
    await expect(dialog).toBeVisible();
    await expect(page.locator('.click-captcha img')).toBeVisible();
    const inside = () => page.evaluate(() => !!document.activeElement?.closest('dialog[open]'));
    expect(await inside()).toBe(true);
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press('Tab');
      expect(await inside(), `Tab ${i + 1} left the dialog`).toBe(true);
    }
    for (let i = 0; i < 4; i++) {
      await page.keyboard.press('Shift+Tab');
      expect(await inside(), `Shift+Tab ${i + 1} left the dialog`).toBe(true);
    }
    const found = await audit(page, `/user/login captcha ${lang}`, false);
    expect(found.map((f) => `${f.rule} ${f.targets.join(' | ')}`)).toEqual([]);
    await page.keyboard.press('Escape');
    await expect(dialog).toHaveCount(0);
    await expect(page.getByLabel(lang === 'en' ? 'Password' : '密码', { exact: true })).toBeFocused();
    await context.close();
  });
}

// On a phone the chat's conversation list is a drawer: closed, Tab never walks into it; open, it is
// a modal dialog that holds focus, closes on Escape and hands focus back to its button.
test('the chat drawer on a phone is modal when open and out of reach when closed', async ({ browser }) => {
  test.setTimeout(scaled(90_000));
  const context = await browser.newContext({ locale: 'en-US', viewport: { width: 390, height: 800 } });
  await context.addCookies([{ name: 'ba-lang', value: 'en', url: test.info().project.use.baseURL! }]);
  const page = await context.newPage();
  await page.goto('/chat');
  await page.waitForFunction(() => !document.querySelector('astro-island[ssr]'));
  const side = page.locator('#chat-side');
  await expect(side).toHaveJSProperty('inert', true);
  const menu = page.getByRole('button', { name: /Conversations/ });
  await menu.focus();
  await page.keyboard.press('Enter');
  const drawer = page.getByRole('dialog', { name: 'Conversations' });
  await expect(drawer).toBeVisible();
  await expect(side).toHaveJSProperty('inert', false);
  const inside = () => page.evaluate(() => !!document.activeElement?.closest('#chat-side'));
  expect(await inside()).toBe(true);
  for (let i = 0; i < 8; i++) {
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => {
      const el = document.activeElement;
      return !el || el === document.body || !!el.closest('#chat-side');
    }), `Tab ${i + 1} reached the page behind the drawer`).toBe(true);
  }
  await page.keyboard.press('Escape');
  await expect(drawer).toHaveCount(0);
  await expect(menu).toBeFocused();
  await expect(side).toHaveJSProperty('inert', true);
  await context.close();
});
