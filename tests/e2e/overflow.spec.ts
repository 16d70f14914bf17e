// Phones and zoom (WCAG 2.2 1.4.10 Reflow): no page scrolls sideways, and none clips its content,
// at 390 px, at 320 px and at 1280 px zoomed to 200 % (a 640 px wide window at device scale 2).
// Every page type is opened in both languages, as a visitor and as a member whose pages hold
// content that ran wide before (a post with a table, a long code line and a long URL; balance,
// points, orders and invoices; developer pages; check-ins). Code blocks and tables may scroll
// inside themselves (1.4.10 allows it for content that needs two dimensions): the page may not.
// The member's content is made through the API the pages use; the CLI tops up and approves.
// Needs the e2e server on PostgreSQL (TEST_DATABASE_URL): the CLI and the test share its database.
import { expect, test, type Browser, type BrowserContext, type Page } from '@playwright/test';
import { ADMIN_GROUP } from '../../src/lib/server/site/seed';
import { atrium, logIn, newMember, query, readEnv, withLock, type E2eEnv } from './helpers';
import { scaled } from '../helpers/time-scale.mjs';

let env: E2eEnv = { dataDir: '', databaseUrl: null };
test.beforeAll(() => { env = readEnv(); });

/** The widths: a phone, the 320 px of WCAG 1.4.10, and a 1280 × 800 window at 200 % zoom. */
const WIDTHS = [
  { name: '390 px', viewport: { width: 390, height: 844 }, deviceScaleFactor: 3 },
  { name: '320 px', viewport: { width: 320, height: 568 }, deviceScaleFactor: 2 },
  { name: '1280 px at 200 %', viewport: { width: 640, height: 400 }, deviceScaleFactor: 2 },
] as const;
type Width = (typeof WIDTHS)[number];
const LONG_CODE = `const connectionString = "postgres://atrium:${'s3cr3t'.repeat(12)}@db.internal.example.com:5432/atrium?sslmode=require&application_name=atrium-web";`;
const LONG_URL = `https://example.com/${'very-long-path-segment-'.repeat(8)}end`;
const POST_BODY = [
  'A post that used to push the page sideways on phones.',
  '',
  '| Setting | Default | Meaning | Where it is read | Example value | Notes for operators |',
  '|---|---|---|---|---|---|',
  '| DATABASE_URL | (embedded) | the PostgreSQL server to use instead of PGlite | every instance at start | postgres://user:pass@host:5432/db | restart to apply |',
  '| REDIS_URL | (none) | rate limits, caches and the bus between instances | every instance at start | redis://10.0.0.6:6379 | optional |',
  '',
  '```ts',
  LONG_CODE,
  '```',
  '',
  `A long link: ${LONG_URL} and a long word: ${'Donaudampfschifffahrtsgesellschaft'.repeat(3)}.`,
].join('\n');

/**
 * What the page measures: the document's width against the viewport's, what sticks out of it
 * (right, or left where no scrolling reaches), and what is cut off inside a box that hides its
 * overflow (text ending in an ellipsis is meant to, and a box that scrolls is reachable). Hidden
 * things do not count: the skip link, visually hidden text, a closed drawer (inert).
 */
async function overflowOf(page: Page): Promise<{ scrollWidth: number; clientWidth: number; culprits: string[] }> {
  return page.evaluate(() => {
    const root = document.documentElement;
    const culprits: string[] = [];
    const name = (el: Element): string => `${el.tagName.toLowerCase()}${el.className && typeof el.className === 'string' ? `.${el.className.trim().split(/\s+/).join('.')}` : ''}`;
    const shown = (el: Element): boolean => {
      if (el.closest('[inert], [aria-hidden="true"], .visually-hidden, .skip')) return false;
      if (!el.checkVisibility({ opacityProperty: true, visibilityProperty: true })) return false;
      const box = el.getBoundingClientRect();
      return box.width > 1 && box.height > 1;
    };
    // Inside a box that scrolls or clips across, what sticks out is that box's to show (checked on it).
    const contained = (el: Element): boolean => {
      for (let up = el.parentElement; up && up !== document.body; up = up.parentElement) if (getComputedStyle(up).overflowX !== 'visible') return true;
      return false;
    };
    const cuts = (o: string): boolean => o === 'hidden' || o === 'clip';
    for (const el of document.querySelectorAll('body, body *')) {
      if (culprits.length >= 5) break;
      if (!shown(el)) continue;
      const box = el.getBoundingClientRect();
      const style = getComputedStyle(el);
      if (style.position === 'fixed' || !contained(el)) {
        if (box.right > root.clientWidth + 1) { culprits.push(`${name(el)} (right ${Math.round(box.right)})`); continue; }
        if (box.left < -1) { culprits.push(`${name(el)} (left ${Math.round(box.left)})`); continue; }
      }
      // Replaced elements (images, fields), text ending in an ellipsis and excerpts clamped to a few
      // lines (the whole text is a link away) are cut by design.
      if (/^(img|svg|video|canvas|iframe|input|select|textarea)$/i.test(el.tagName) || style.textOverflow === 'ellipsis' || style.webkitLineClamp !== 'none') continue;
      if (cuts(style.overflowX) && el.scrollWidth > el.clientWidth + 1) culprits.push(`${name(el)} (clips ${el.scrollWidth - el.clientWidth} px across)`);
      else if (cuts(style.overflowY) && el.scrollHeight > el.clientHeight + 1) culprits.push(`${name(el)} (clips ${el.scrollHeight - el.clientHeight} px down)`);
    }
    return { scrollWidth: root.scrollWidth, clientWidth: root.clientWidth, culprits };
  });
}

/** Opens every path in one language and lists the pages that scroll sideways or clip their content. */
async function sweep(context: BrowserContext, paths: readonly string[]): Promise<string[]> {
  const page = await context.newPage();
  const wide: string[] = [];
  for (const path of paths) {
    const res = await page.goto(path);
    expect(res?.status(), path).toBeLessThan(500);
    await page.waitForLoadState('load');
    // Islands that hydrate on load may change the layout: measure once they have (those waiting
    // for a click or for the viewport are measured as the server drew them).
    await page.waitForFunction(() => !document.querySelector('astro-island[ssr][client="load"]'), undefined, { timeout: scaled(5000) }).catch(() => undefined);
    const m = await overflowOf(page);
    if (m.scrollWidth > m.clientWidth || m.culprits.length) wide.push(`${path} (${page.url()}): ${m.scrollWidth} > ${m.clientWidth}: ${m.culprits.join(', ')}`);
  }
  await page.close();
  return wide;
}

async function phone(browser: Browser, width: Width, lang: 'zh-cn' | 'en', storageState?: Awaited<ReturnType<BrowserContext['storageState']>>): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: width.viewport, deviceScaleFactor: width.deviceScaleFactor, locale: lang === 'en' ? 'en-US' : 'zh-CN', ...(storageState ? { storageState } : {}) });
  await context.addCookies([{ name: 'ba-lang', value: lang, url: test.info().project.use.baseURL! }]);
  return context;
}

/** A JSON API call from the page, the way the site's own client makes it (cookie session). */
async function api<T = { id?: number }>(page: Page, path: string, data?: unknown): Promise<{ code: number; msg: string; data: T }> {
  return page.evaluate(async ({ path, data }) => {
    const res = await fetch(path, data === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(data) });
    return res.json();
  }, { path, data }) as Promise<{ code: number; msg: string; data: T }>;
}

test.describe.serial('no page scrolls sideways or clips its content at 390 px, 320 px and 200 % zoom', () => {
  const suffix = Date.now().toString(36).slice(-6);
  const name = `ovf${suffix}`;
  const seller = `ovs${suffix}`;
  const uid = `wide-${suffix}`;
  let memberState: Awaited<ReturnType<BrowserContext['storageState']>> | undefined;
  let postId = 0;
  let memberId = 0;
  let categoryId = 0;

  test('the member makes the content that used to run wide', async ({ browser }) => {
    test.skip(!env.databaseUrl, 'set TEST_DATABASE_URL to run the overflow sweep (.ci/run does)');
    test.setTimeout(scaled(120_000));
    await newMember(env, name, ADMIN_GROUP);
    await newMember(env, seller);
    const [me] = await query<{ id: number }>(env, 'select id from "user" where username = $1', [name]);
    const [them] = await query<{ id: number }>(env, 'select id from "user" where username = $1', [seller]);
    memberId = me!.id;
    atrium(env, 'user:money', name, '50', 'top-up for the overflow sweep');
    atrium(env, 'user:score', name, '30', 'points for the overflow sweep');
    const page = await logIn(env, browser, name);

    // A paid module from another member, bought with balance: module orders and the invoice page have rows.
    const t = Math.floor(Date.now() / 1000);
    const [mod] = await query<{ id: number }>(env, `insert into module (uid, developer_id, name, summary, category, price, status, latest_version, publish_time, create_time, update_time)
      values ($1, $2, $3, $4, 'tools', 990, 'published', '1.0.0', $5, $5, $5) returning id`,
    [uid, them!.id, `Wide module ${suffix}`, `A summary with a long word ${'Supercalifragilistic'.repeat(3)}`, t]);
    await query(env, `insert into module_version (module_id, version, status, publish_time, create_time) values ($1, '1.0.0', 'published', $2, $2)`, [mod!.id, t]);
    const bought = await api(page, '/api/modules/buy', { uid, pay_type: 'balance', nonce: `ovf-buy-${suffix}` });
    expect(bought.code, bought.msg).toBe(1);

    // Today's check-in, and a developer application approved by CLI (the developer pages open).
    expect((await api(page, '/api/account/signIn', {})).code).toBe(1);
    const applied = await api(page, '/api/developer/verif', {
      real_name: '张三', id_number: '110108198506123453', mobile: '13800138000', email: `${name}@example.com`, province: '11', city: '1101',
      intro: '写了五年 Node.js，准备发布几个写作相关的模块。',
    });
    expect(applied.code, applied.msg).toBe(1);
    atrium(env, 'developer:review', name, 'approve');

    // The post with a table, a long code line and a long URL needs the editor module.
    await withLock('editor-module', async () => {
      atrium(env, 'module:install', 'editor');
      const [category] = await query<{ id: number }>(env, `select id from ask_category where slug = 'question'`);
      categoryId = category!.id;
      const post = await api(page, '/api/ask/post', { title: `Wide table and code ${suffix}`, category_id: categoryId, content: POST_BODY, tags: ['overflow'], nonce: `ovf-post-${suffix}` });
      expect(post.code, post.msg).toBe(1);
      postId = post.data.id!;
    });
    memberState = await page.context().storageState();
    await page.context().close();
  });

  for (const width of WIDTHS) for (const lang of ['zh-cn', 'en'] as const) {
    test(`as a visitor, in ${lang}, at ${width.name}`, async ({ browser }) => {
      test.skip(!env.databaseUrl || !postId, 'needs the member content (TEST_DATABASE_URL)');
      test.setTimeout(scaled(120_000));
      const context = await phone(browser, width, lang);
      const wide = await sweep(context, [
        '/', '/ask', '/ask?tab=unsolved', `/ask/info/${postId}`, `/ask/lists/category/${categoryId}`, `/ask/lists/user/${memberId}`,
        '/ask/search/atrium', '/ask/post', '/md', '/md/guide', '/md/guide/cli', '/md/search?q=warning', '/md/edit/guide',
        '/modules', `/modules/${uid}`, '/modules/editor', '/user/login', '/user/login?type=register', `/user/card/${memberId}`, '/chat',
        `/no-such-page-${'x'.repeat(80)}`,
      ]);
      await context.close();
      expect(wide).toEqual([]);
    });

    test(`as a member, in ${lang}, at ${width.name}`, async ({ browser }) => {
      test.skip(!env.databaseUrl || !memberState, 'needs the member content (TEST_DATABASE_URL)');
      test.setTimeout(scaled(180_000));
      const context = await phone(browser, width, lang, memberState);
      const wide = await withLock('editor-module', async () => {
        atrium(env, 'module:install', 'editor');
        const found = await sweep(context, ['/ask/post', '/md/edit/guide', '/md/edit/guide/cli']);
        // The docs editor shows the text first; the page tree is folded under its toggle.
        const page = await context.newPage();
        await page.goto('/md/edit/guide/cli');
        await page.waitForFunction(() => !document.querySelector('astro-island[ssr]'));
        const toggle = page.locator('.md-side__toggle');
        await expect(toggle).toHaveAttribute('aria-expanded', 'false');
        await expect(page.locator('.md-tree__list').first()).toBeHidden();
        await expect(page.getByTestId('doc-edit-form')).toBeInViewport();
        await toggle.click();
        await expect(page.locator('.md-tree__list').first()).toBeVisible();
        await page.close();
        return found;
      });
      wide.push(...await sweep(context, [
        '/', '/ask', `/ask/info/${postId}`, '/ask/search/atrium', '/md/guide', `/modules/${uid}`, `/user/card/${memberId}`, '/chat',
        '/user/account/overview', '/user/account/profile', '/user/account/changePassword', '/user/account/integral',
        '/user/account/balance', '/user/account/signIn', '/user/account/invoice', '/user/account/moduleOrders', '/user/account/notice', '/user/account/apiTokens',
        '/user/ask/post', '/user/ask/comment', '/user/ask/collect', '/user/ask/reports',
        '/user/developer/verif', '/user/developer/modules', '/user/developer/orders', '/user/developer/earnings',
        '/user/market/review', '/user/messageCenter', '/no-such-page',
      ]));
      // The logged-in header: brand and tools share the first row, every navigation link is in
      // view on the row below (none hidden in a sideways scroll).
      const page = await context.newPage();
      await page.goto('/ask');
      const header = await page.locator('.site-header .container').boundingBox();
      const tools = await page.locator('.head-tools').boundingBox();
      const brand = await page.locator('.brand').boundingBox();
      expect(Math.abs(tools!.y - brand!.y)).toBeLessThan(12);
      const links = await page.locator('.head-nav a').evaluateAll((all) => all.map((a) => {
        const r = a.getBoundingClientRect();
        return { left: r.left, right: r.right, top: r.top };
      }));
      expect(links.length).toBeGreaterThanOrEqual(4);
      for (const box of links) {
        expect(box.left).toBeGreaterThanOrEqual(0);
        expect(box.right).toBeLessThanOrEqual(width.viewport.width);
        expect(box.top).toBeGreaterThan(brand!.y + brand!.height - 2);
      }
      // At 320 px the navigation may wrap to a row of its own (global.css keeps scroll-padding-top above it).
      expect(header!.height).toBeLessThan(width.viewport.width <= 400 ? 150 : 110);
      await context.close();
      expect(wide).toEqual([]);
    });
  }
});
