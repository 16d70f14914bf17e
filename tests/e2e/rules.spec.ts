// Rules and menus in the console (issue 28 items 2 and 4): in Chromium, an administrator creates a
// link menu and an iframe menu from the rule editor and a member sees both in the member center (the
// iframe sandboxed); siblings reordered with the keyboard (Move up / Move down, focus kept); a route
// rule with an internal redirect followed in-app and one with an external redirect by a full load.
import { expect, test, type Page } from '@playwright/test';
import admin from '../../src/lib/i18n/en/admin';
import { createUser } from '../../src/lib/server/account/users';
import { ADMIN_GROUP } from '../../src/lib/server/site/seed';
import { scaled } from '../helpers/time-scale.mjs';
import { PASSWORD, usePrivateSite, withRuntime } from './private-site';

const DOCS = 'https://docs.example.com';

const srv = usePrivateSite('rules', (dataDir) => withRuntime(dataDir, async (rt) => {
  await rt.site.set('user_login_captcha', '0');
  await rt.site.set('user_iframe_allow', DOCS);
  await createUser(rt.db, { username: 'boss', email: 'boss@example.com', password: PASSWORD, groupId: ADMIN_GROUP });
  await createUser(rt.db, { username: 'mia', email: 'mia@example.com', password: PASSWORD });
}));

interface Rule { id: number; pid: number; name: string; type: string }
const rulesOf = async (page: Page): Promise<Rule[]> => (await (await page.request.get(`${srv.url}/api/admin/rules`)).json()).data.list;

test('an administrator adds a link menu and an iframe menu in the console; a member sees both', async ({ browser }) => {
  test.setTimeout(scaled(120_000));
  const bossPage = await (await browser.newContext()).newPage();
  await srv.logIn(bossPage, 'boss', 'en');
  await bossPage.goto(`${srv.url}/admin/groups`);
  await expect(bossPage.getByRole('heading', { level: 2, name: admin['admin.rules.heading'] })).toBeVisible();
  const account = (await rulesOf(bossPage)).find((r) => r.name === 'account' && r.type === 'menu_dir')!;

  for (const menu of [
    { name: 'account/handbook', title: '手册', en: 'Handbook', type: 'link', url: 'https://handbook.example.org/' },
    { name: 'account/embedded', title: '内嵌文档', en: 'Embedded docs', type: 'iframe', url: `${DOCS}/start` },
  ]) {
    await bossPage.getByText(admin['admin.rules.new'], { exact: true }).click();
    const form = bossPage.locator('form[data-api="/api/admin/ruleCreate"]');
    await form.locator('select[name=pid]').selectOption(String(account.id));
    await form.locator('select[name=type]').selectOption('menu');
    await form.getByLabel(admin['admin.rules.title'], { exact: true }).fill(menu.title);
    await form.getByLabel(admin['admin.rules.titleEn'], { exact: true }).fill(menu.en);
    await form.getByLabel(admin['admin.rules.name'], { exact: true }).fill(menu.name);
    await form.locator('select[name=menu_type]').selectOption(menu.type);
    await form.getByLabel(admin['admin.rules.url'], { exact: true }).fill(menu.url);
    await form.getByRole('button', { name: admin['admin.rules.createSubmit'] }).click();
    await expect(bossPage.getByText(admin['admin.rules.created'])).toBeVisible({ timeout: scaled(30_000) });
    await expect(bossPage.locator('.admin-rule-title', { hasText: menu.en })).toBeVisible();
  }

  // The member, in English: both entries under My account, the iframe embedded with a sandbox.
  const miaPage = await (await browser.newContext()).newPage();
  await miaPage.route(`${DOCS}/**`, (route) => route.fulfill({ contentType: 'text/html', body: '<h1>Embedded handbook</h1>' }));
  await srv.logIn(miaPage, 'mia', 'en');
  await miaPage.goto(`${srv.url}/user/account/overview`);
  const nav = miaPage.locator('#member-menu');
  await expect(nav.getByRole('link', { name: 'Handbook' })).toHaveAttribute('href', 'https://handbook.example.org/');
  await nav.getByRole('link', { name: 'Embedded docs' }).click();
  await expect(miaPage).toHaveURL(/\/user\/iframe\//);
  const frame = miaPage.locator('iframe.member-iframe');
  await expect(frame).toHaveAttribute('sandbox', /allow-scripts/);
  await expect(miaPage.frameLocator('iframe.member-iframe').getByRole('heading', { name: 'Embedded handbook' })).toBeVisible();
});

test('siblings reordered with the keyboard: Move down keeps the focus and the order holds after a reload', async ({ browser }) => {
  test.setTimeout(scaled(90_000));
  const page = await (await browser.newContext()).newPage();
  await srv.logIn(page, 'boss', 'en');
  await page.goto(`${srv.url}/admin/groups`);
  const account = (await rulesOf(page)).find((r) => r.name === 'account' && r.type === 'menu_dir')!;
  const level = page.locator(`ul[data-rule-pid="${account.id}"]`);
  const titles = () => level.locator(':scope > li > .admin-rule-row .admin-rule-title').allTextContents();
  const before = await titles();
  expect(before.length).toBeGreaterThan(2);
  const first = before[0]!;
  const down = level.getByRole('button', { name: `${admin['admin.rules.moveDown']}: ${first}`, exact: true });
  await down.focus();
  await page.keyboard.press('Enter');
  await expect(page.locator('[data-rule-sort-status]')).toHaveText(admin['admin.rules.sorted']);
  await expect(down).toBeFocused();
  await page.keyboard.press('Enter');
  await expect.poll(titles).toEqual([before[1], before[2], first, ...before.slice(3)]);
  await expect(down).toBeFocused();
  // Saved: the new order survives a reload and is the member center's order.
  await page.waitForTimeout(300);
  await page.reload();
  await expect.poll(titles).toEqual([before[1], before[2], first, ...before.slice(3)]);
  const up = level.getByRole('button', { name: `${admin['admin.rules.moveUp']}: ${first}`, exact: true });
  await up.focus();
  await page.keyboard.press(' ');
  await expect.poll(titles).toEqual([before[1], first, before[2], ...before.slice(3)]);
});

test('a route rule with an internal redirect is followed in-app, one with an external redirect by a full load', async ({ browser }) => {
  test.setTimeout(scaled(90_000));
  const bossPage = await (await browser.newContext()).newPage();
  await srv.logIn(bossPage, 'boss', 'en');
  // The internal one through the console's form, the external one through its API.
  await bossPage.goto(`${srv.url}/admin/groups`);
  await bossPage.getByText(admin['admin.rules.new'], { exact: true }).click();
  const form = bossPage.locator('form[data-api="/api/admin/ruleCreate"]');
  await form.locator('select[name=type]').selectOption('route');
  await form.getByLabel(admin['admin.rules.title'], { exact: true }).fill('旧论坛');
  await form.getByLabel(admin['admin.rules.name'], { exact: true }).fill('old-forum');
  await form.getByLabel(admin['admin.rules.path'], { exact: true }).fill('/old-forum');
  await form.getByLabel(admin['admin.rules.redirect'], { exact: true }).fill('/ask');
  await form.getByLabel(admin['admin.rules.noLogin'], { exact: true }).check();
  await form.getByRole('button', { name: admin['admin.rules.createSubmit'] }).click();
  await expect(bossPage.getByText(admin['admin.rules.created'])).toBeVisible({ timeout: scaled(30_000) });
  const external = await bossPage.request.post(`${srv.url}/api/admin/ruleCreate`, {
    headers: { origin: srv.url },
    data: { type: 'route', name: 'old-site', title: '旧站', path: '/old-site', redirect: 'https://elsewhere.example.net/welcome', no_login_valid: 1 },
  });
  const made = await external.json();
  expect(made.code, made.msg).toBe(1);

  const page = await (await browser.newContext()).newPage();
  await page.route('https://elsewhere.example.net/**', (route) => route.fulfill({ contentType: 'text/html', body: '<h1>Elsewhere</h1>' }));
  await page.goto(`${srv.url}/`);
  // In-app: a link to the old path is followed by the client router, and the page is never reloaded.
  await page.evaluate(() => { (window as unknown as { marker: number }).marker = 42; });
  await page.evaluate(() => {
    const a = document.createElement('a');
    a.href = '/old-forum';
    a.textContent = 'Old forum';
    a.id = 'old-forum-link';
    document.querySelector('main')!.append(a);
  });
  await page.locator('#old-forum-link').click();
  await expect(page).toHaveURL(`${srv.url}/ask`);
  expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(42);
  // Opened directly, the old path lands on the forum too.
  await page.goto(`${srv.url}/old-forum`);
  await expect(page).toHaveURL(`${srv.url}/ask`);
  // External: a full page load to the other site.
  await page.goto(`${srv.url}/old-site`);
  await expect(page).toHaveURL('https://elsewhere.example.net/welcome');
  await expect(page.getByRole('heading', { name: 'Elsewhere' })).toBeVisible();
});

test('badges are never split over two lines at 390 px (console tables, the rule editor, the member center)', async ({ browser }) => {
  test.setTimeout(scaled(90_000));
  const page = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
  await srv.logIn(page, 'boss', 'en');
  for (const path of ['/admin/members', '/admin/groups', '/user/ask/myReports']) {
    await page.goto(`${srv.url}${path}`);
    const split = await page.locator('.badge, .admin-badge').evaluateAll((els) => els
      // Split: several line boxes (inline), or one box taller than a line and a half (inline-block).
      .filter((el) => (el as HTMLElement).offsetParent !== null
        && (el.getClientRects().length > 1 || el.getBoundingClientRect().height > parseFloat(getComputedStyle(el).fontSize) * 2.4))
      .map((el) => el.textContent));
    expect(split, path).toEqual([]);
    if (path.startsWith('/admin')) expect(await page.locator('.badge, .admin-badge').count(), path).toBeGreaterThan(0);
  }
});
