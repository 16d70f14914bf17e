// Forms that write (a POST through their script) never fall back to a native GET carrying what was
// typed: not when their script arrives late, not when the in-app router sees them first. A report
// is sent, confirmed in the page's language, and the reader keeps their place. Redirect messages
// (spec §4) are shown on the page the redirect leads to.
// Needs the e2e server on PostgreSQL (TEST_DATABASE_URL) for the member, the post and its reply.
import { expect, test, type Page, type Route } from '@playwright/test';
import { logIn, newMember, query, readEnv, type E2eEnv } from './helpers';

let env: E2eEnv = { dataDir: '', databaseUrl: null };
const suffix = Date.now().toString(36);
const member = `fm${suffix}`;
let postId = 0;
let replyId = 0;

test.beforeAll(async () => {
  env = readEnv();
  if (!env.databaseUrl) return;
  const author = `fa${suffix}`;
  await newMember(env, author);
  await newMember(env, member);
  const [a] = await query<{ id: number }>(env, 'select id from "user" where username = $1', [author]);
  const [category] = await query<{ id: number }>(env, `select id from ask_category where slug = 'discussion'`);
  const now = Math.floor(Date.now() / 1000);
  const [post] = await query<{ id: number }>(env, `insert into ask_post (category_id, user_id, title, body, html, search_vector, last_activity_time, create_time, update_time)
    values ($1, $2, $3, 'A post to report', '<p>A post to report</p>', to_tsvector('simple', $5), $4, $4, $4) returning id`, [category!.id, a!.id, `Forms ${suffix}`, now, `Forms ${suffix}`]);
  postId = post!.id;
  const [reply] = await query<{ id: number }>(env, `insert into ask_reply (post_id, user_id, body, html, create_time, update_time)
    values ($1, $2, 'A reply to report', '<p>A reply to report</p>', $3, $3) returning id`, [postId, a!.id, now]);
  replyId = reply!.id;
  await query(env, 'update ask_post set reply_count = 1 where id = $1', [postId]);
});

/** Holds back every script chunk until `release` is called, as on a slow phone. */
async function holdScripts(page: Page): Promise<() => Promise<void>> {
  let open!: () => void;
  const gate = new Promise<void>((r) => { open = r; });
  const pattern = /\/_astro\/.*\.js(\?.*)?$/;
  const handler = async (route: Route): Promise<void> => {
    await gate;
    // The page may have gone meanwhile (its requests were cancelled).
    await route.continue().catch(() => undefined);
  };
  await page.route(pattern, handler);
  return async () => {
    open();
    await page.unroute(pattern, handler);
  };
}

/** Every URL the page asks for from now on (documents, fetches, navigations). */
function trackUrls(page: Page): string[] {
  const urls: string[] = [];
  page.on('request', (r) => urls.push(r.url()));
  page.on('framenavigated', (f) => { if (f === page.mainFrame()) urls.push(f.url()); });
  return urls;
}

test.describe('forms that write', () => {
  test.beforeEach(() => { test.skip(!env.databaseUrl, 'set TEST_DATABASE_URL to run the member flows (.ci/run does)'); });

  test('a report sent before the page script ran waits for it: the reason stays out of the URL, it is confirmed and the reader stays put', async ({ browser }) => {
    test.slow();
    const page = await logIn(env, browser, member);
    const urls = trackUrls(page);
    const release = await holdScripts(page);
    await page.goto(`/ask/info/${postId}`, { waitUntil: 'commit' });
    const reply = page.locator(`#reply-${replyId}`);
    await reply.getByText('举报', { exact: true }).click();
    const reason = `spam-${suffix}-zh`;
    await reply.getByLabel('举报理由').fill(reason);
    const scrolled = await page.evaluate(() => scrollY);
    await reply.getByRole('button', { name: '提交举报' }).click();
    await page.waitForTimeout(500);
    expect(page.url()).toBe(new URL(`/ask/info/${postId}`, page.url()).href);
    await release();
    await expect(page.getByRole('status').filter({ hasText: '举报已提交，感谢你的反馈' }).first()).toBeVisible();
    await expect(reply.locator('[data-report-status]')).toHaveText('举报已提交，感谢你的反馈');
    expect(page.url()).toBe(new URL(`/ask/info/${postId}`, page.url()).href);
    expect(Math.abs((await page.evaluate(() => scrollY)) - scrolled)).toBeLessThan(50);
    expect(urls.filter((u) => u.includes(reason))).toEqual([]);
    const rows = await query<{ target_type: string; target_id: number }>(env, 'select target_type, target_id from ask_report where reason = $1', [reason]);
    expect(rows).toEqual([{ target_type: 'reply', target_id: replyId }]);
    await page.context().close();
  });

  test('a report from a post opened in-app is sent by its script, not by the page router, and confirmed in English', async ({ browser }) => {
    test.slow();
    const page = await logIn(env, browser, member);
    await page.goto('/ask');
    await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: /English/ }).click()]);
    await expect(page.locator('html')).toHaveAttribute('lang', 'en');
    const urls = trackUrls(page);
    // In-app navigation: the post page's script runs after the router's own submit listener.
    await page.getByRole('link', { name: `Forms ${suffix}` }).first().click();
    await expect(page).toHaveURL(new RegExp(`/ask/info/${postId}$`));
    await page.waitForLoadState('networkidle');
    const post = page.locator('#post .post-actions');
    await post.getByText('Report', { exact: true }).click();
    const reason = `spam-${suffix}-en`;
    await post.getByLabel('Reason for the report').fill(reason);
    await post.getByRole('button', { name: 'Send report' }).click();
    await expect(post.locator('[data-report-status]')).toHaveText('Thanks, the moderators will review your report');
    await expect(page.getByRole('status').filter({ hasText: 'Thanks, the moderators will review your report' }).first()).toBeVisible();
    await expect(page).toHaveURL(new RegExp(`/ask/info/${postId}$`));
    expect(urls.filter((u) => u.includes(reason))).toEqual([]);
    expect(await query(env, 'select target_type from ask_report where reason = $1', [reason])).toEqual([{ target_type: 'post' }]);
    await page.context().close();
  });

  test('every form that writes is a POST and, sent before its script ran, is held: nothing typed reaches a URL', async ({ browser }) => {
    test.slow();
    const page = await logIn(env, browser, member);
    const marker = `typed${suffix}`;
    const seen: string[] = [];
    const paths = [`/ask/info/${postId}`, '/ask/post', '/user/account/profile', '/user/account/changePassword', '/user/account/invoice',
      '/user/developer/verif', '/user/messageCenter', '/chat', '/modules/webhook', '/user/login?type=register'];
    for (const path of paths) {
      if (path.startsWith('/user/login')) await page.context().clearCookies();
      const urls = trackUrls(page);
      const release = await holdScripts(page);
      await page.goto(path, { waitUntil: 'commit' });
      // Parsed: the scripts, held back, have not run (DOMContentLoaded waits for them).
      await page.waitForFunction(() => document.readyState === 'interactive');
      const sent = await page.evaluate((marker) => {
        const forms = Array.from(document.querySelectorAll('form')).filter((f) => f.getAttribute('role') !== 'search' && (f.getAttribute('method') ?? '').toLowerCase() !== 'get');
        const report = forms.map((f) => `${f.className || f.dataset.ask || f.dataset.market || 'form'}:${f.getAttribute('method')}`);
        for (const form of forms) {
          for (const el of Array.from(form.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>('input:not([type]), input[type=text], input[type=email], input[type=password], input[type=search], textarea'))) el.value = marker;
          for (const el of Array.from(form.elements) as HTMLInputElement[]) el.required = false;
          form.noValidate = true;
          form.requestSubmit();
        }
        return report;
      }, marker);
      await page.waitForTimeout(300);
      seen.push(...sent);
      for (const form of sent) expect(form, path).toMatch(/:post$/);
      expect(new URL(page.url()).pathname + new URL(page.url()).search, path).toBe(path);
      expect(urls.filter((u) => u.includes(marker)), path).toEqual([]);
      // Away first: the held forms are dropped with their page instead of being sent once the scripts come.
      await page.goto('about:blank');
      await release();
    }
    console.log(seen.join('\n'));
    await page.context().close();
  });

  test('with scripts off, a report is a POST: the reason never reaches the URL', async ({ browser }) => {
    const context = await browser.newContext({ javaScriptEnabled: false, locale: 'zh-CN' });
    const page = await context.newPage();
    await page.goto(`/ask/info/${postId}`);
    await page.locator('#post .report summary').click();
    await page.locator('#post .report textarea').fill(`noscript-${suffix}`);
    const sent = page.waitForRequest((r) => r.resourceType() === 'document');
    await page.locator('#post .report button[type=submit]').click();
    const request = await sent;
    expect(request.method()).toBe('POST');
    expect(request.url()).not.toContain('noscript');
    await page.waitForLoadState();
    expect(page.url()).not.toContain('noscript');
    await context.close();
  });
});

test('a call that needs login shows its message on the login page it leads to, in both languages', async ({ page }) => {
  test.skip(!env.databaseUrl, 'set TEST_DATABASE_URL to run the member flows (.ci/run does)');
  const post = `/ask/info/${postId}`;
  for (const [lang, message] of [['zh-cn', '请先登录'], ['en', 'Please log in first']] as const) {
    await page.goto('/');
    await page.context().addCookies([{ name: 'ba-lang', value: lang, url: page.url() }]);
    await page.goto(post);
    await page.waitForLoadState('networkidle');
    // A visitor collects the post: the API answers 303 'need login' (spec §4).
    await page.locator('#post [data-ask="collect"]').click();
    await expect(page).toHaveURL(`/user/login?to=${encodeURIComponent(post)}`);
    await expect(page.getByRole('alert').filter({ hasText: message })).toBeVisible();
  }
});
