// One session for the whole site (issue 29 item 12, spec §9): a member who signs in on the main
// domain is signed in on ask./doc./modules. (cookies on the parent domain), an expired access token
// is renewed there through the 409 → refresh path, and logging out on a subdomain logs out
// everywhere. Chromium resolves atrium.test and its subdomains to this machine (--host-resolver-rules);
// the site runs in this process (SITE_DOMAIN=atrium.test) so the test can expire a token.
import { sql } from 'drizzle-orm';
import { expect, test, type Page } from '@playwright/test';
import { startInProcess, type InProcessServer } from '../helpers/in-process';
import { createUser } from '../../src/lib/server/account/users';
import { expectNoReadableToken } from './helpers';
import { scaled } from '../helpers/time-scale.mjs';

test.use({
  launchOptions: {
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync',
      '--host-resolver-rules=MAP atrium.test 127.0.0.1, MAP *.atrium.test 127.0.0.1'],
  },
});

let site: InProcessServer;
let userId = 0;
const at = (host: string, path = '/'): string => `http://${host}:${new URL(site.url).port}${path}`;

test.beforeAll(async () => {
  test.setTimeout(scaled(120_000));
  site = await startInProcess({ SITE_DOMAIN: 'atrium.test' });
  await site.runtime.site.set('user_login_captcha', '0');
  userId = (await createUser(site.runtime.db, { username: 'subby', nickname: 'Subby', password: 'secret123', email: 'subby@example.com' })).id;
});
test.afterAll(async () => { await site?.stop(); });

const hydrated = (page: Page): Promise<unknown> => page.waitForFunction(() => !document.querySelector('astro-island[ssr]'));
const headerName = (page: Page) => page.locator('.site-header .user-box .user-name');

test('signed in on the main domain: the same session on every subdomain, renewed there, ended there for all', async ({ page }) => {
  test.slow();
  await page.goto(at('atrium.test', '/user/login'));
  await hydrated(page);
  await page.getByLabel('账户名 / 邮箱 / 手机号').fill('subby');
  await page.getByLabel('密码').fill('secret123');
  await page.getByRole('button', { name: '登录', exact: true }).last().click();
  // A first login warms the server (a loaded machine took over 7 s).
  await expect(page).toHaveURL(/\/user\/account\/overview$/, { timeout: scaled(20_000) });
  await expectNoReadableToken(page);
  const cookies = await page.context().cookies();
  for (const name of ['ba-user-token', 'ba-user-refresh', 'userInfo-v5']) {
    const c = cookies.find((x) => x.name === name);
    expect(c?.domain, name).toBe('.atrium.test');
    expect(c?.sameSite, name).toBe('Strict');
    expect(c?.secure, name).toBe(false);
  }
  expect(cookies.find((c) => c.name === 'userInfo-v5')!.httpOnly).toBe(false);

  // Every subdomain: the page knows the member (server side) and so do its scripts (the user info).
  for (const host of ['ask.atrium.test', 'doc.atrium.test', 'modules.atrium.test']) {
    await page.goto(at(host));
    await expect(headerName(page), host).toHaveText('Subby');
    const user = await page.evaluate(() => {
      const value = document.cookie.split('; ').find((c) => c.startsWith('userInfo-v5='))?.slice('userInfo-v5='.length);
      return value ? JSON.parse(decodeURIComponent(value)) as { id: number; username: string } : null;
    });
    expect(user, host).toMatchObject({ id: userId, username: 'subby' });
  }

  // On a subdomain, the access token expires while a form is open: the save meets 409, the page
  // renews the session from the HttpOnly refresh cookie (on this host) and the save goes through.
  await page.goto(at('ask.atrium.test', '/user/account/profile'));
  await hydrated(page);
  await site.runtime.db.execute(sql.raw(`update token set expire_time = 1 where type = 'user' and user_id = ${userId}`));
  await site.runtime.sessions.forgetUser(userId);
  const refreshed = page.waitForResponse((r) => r.url().startsWith(at('ask.atrium.test', '/api/common/refreshToken')));
  await page.getByLabel('昵称').fill('Subby Two');
  await page.getByRole('button', { name: '保存', exact: true }).click();
  expect(((await (await refreshed).json()) as { code: number }).code).toBe(1);
  await expect(headerName(page)).toHaveText('Subby Two');
  await expect(page).toHaveURL(at('ask.atrium.test', '/user/account/profile'));
  await expectNoReadableToken(page);
  // The renewed session is the main domain's too.
  await page.goto(at('atrium.test'));
  await expect(headerName(page)).toHaveText('Subby Two');

  // Logging out on the docs subdomain ends it everywhere.
  await page.goto(at('doc.atrium.test'));
  await hydrated(page);
  await page.locator('.site-header .user-box summary').click();
  await page.getByRole('button', { name: '退出登录' }).click();
  await expect(page.getByRole('link', { name: '登录' }).first()).toBeVisible();
  expect((await page.context().cookies()).map((c) => c.name).filter((n) => /^(ba-user-|userInfo)/.test(n))).toEqual([]);
  for (const host of ['atrium.test', 'ask.atrium.test']) {
    await page.goto(at(host));
    await expect(page.locator('.site-header .user-box'), host).toHaveCount(0);
    expect(await page.evaluate(() => document.cookie), host).not.toContain('userInfo-v5');
  }
});

test('tokens an older release left in localStorage are removed on the next page load', async ({ page }) => {
  await page.goto(at('ask.atrium.test'));
  await page.evaluate(() => {
    localStorage.setItem('ba-user-token', 'legacy-token');
    localStorage.setItem('userInfo-v5', JSON.stringify({ id: 1, username: 'old', token: 'legacy-token', refresh_token: 'legacy-refresh' }));
    localStorage.setItem('ba-is-dark', 'false');
  });
  await page.reload();
  await expect.poll(() => page.evaluate(() => [localStorage.getItem('ba-user-token'), localStorage.getItem('userInfo-v5')])).toEqual([null, null]);
  // Other preferences stay.
  expect(await page.evaluate(() => localStorage.getItem('ba-is-dark'))).toBe('false');
});
