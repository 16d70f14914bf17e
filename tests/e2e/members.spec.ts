// A member's life: sign up with captcha and e-mail code, use the member center, leave.
// Needs the e2e server on PostgreSQL (TEST_DATABASE_URL) to read the captcha's answer.
import { expect, test } from '@playwright/test';
import { expectNoReadableToken, hydrated, latestCode, query as queryDb, readEnv, solveCaptcha as solve, type E2eEnv } from './helpers';
import { scaled } from '../helpers/time-scale.mjs';

let env: E2eEnv = { dataDir: '', databaseUrl: null };
test.beforeAll(() => { env = readEnv(); });
const query = <T>(sql: string, params: unknown[] = []): Promise<T[]> => queryDb<T>(env, sql, params);
const solveCaptcha = (page: Parameters<typeof solve>[1], open: () => Promise<void>): Promise<void> => solve(env, page, open);

test('sign up, use the member center, change password, log out', async ({ page, browser }) => {
  test.skip(!env.databaseUrl, 'set TEST_DATABASE_URL to run the member flows (.ci/run does)');
  // A whole member's life in one test: on a slow CI machine it runs past the default 30 s.
  test.slow();
  const name = `m${Date.now().toString(36)}`;
  const address = `${name}@example.com`;
  await page.goto('/user/login?type=register');
  // Typing before the form hydrates can be lost, and the code button does nothing yet.
  await page.waitForFunction(() => !document.querySelector('astro-island[ssr]'));
  await page.getByLabel('账户名', { exact: true }).fill(name);
  await page.getByLabel('密码').fill('firstpass1');
  await page.getByRole('textbox', { name: '邮箱' }).fill(address);
  await solveCaptcha(page, () => page.getByRole('button', { name: '获取验证码' }).click());
  await expect(page.getByRole('button', { name: /秒后重发/ })).toBeVisible({ timeout: scaled(10_000) });
  await page.getByLabel('验证码').fill(latestCode(env, address));
  await page.getByRole('button', { name: '注册', exact: true }).click();

  await expect(page).toHaveURL(/\/user\/account\/overview$/);
  await expect(page.getByRole('heading', { name: '账户概览', level: 1 })).toBeVisible();
  // Signed in by HttpOnly cookies: no token where a script could read it.
  await expectNoReadableToken(page);
  const menu = page.locator('main nav');
  for (const entry of ['个人资料', '修改密码', '积分记录', '每日签到']) await expect(menu.getByRole('link', { name: entry })).toBeVisible();
  // The menu folds away and stays folded on the next page, until unfolded.
  await page.getByRole('button', { name: '显示/隐藏菜单' }).click();
  await expect(menu).toBeHidden();
  await page.reload();
  await expect(menu).toBeHidden();
  await page.getByRole('button', { name: '显示/隐藏菜单' }).click();
  await expect(menu).toBeVisible();
  // On a phone the menu folds into a headline naming the page; it unfolds, folds on Escape and
  // folds again once an entry is chosen.
  await page.setViewportSize({ width: 390, height: 844 });
  const headline = page.getByRole('button', { name: /^会员中心 .*账户概览 菜单$/ });
  await expect(headline).toBeVisible();
  await expect(headline).toHaveAttribute('aria-expanded', 'false');
  await expect(menu).toBeHidden();
  await expect(page.getByRole('button', { name: '显示/隐藏菜单' })).toBeHidden();
  await headline.click();
  await expect(menu).toBeVisible();
  await expect(headline).toHaveAttribute('aria-expanded', 'true');
  await page.keyboard.press('Escape');
  await expect(menu).toBeHidden();
  await expect(headline).toBeFocused();
  await headline.click();
  await menu.getByRole('link', { name: '积分记录' }).click();
  await expect(page).toHaveURL(/\/user\/account\/integral$/);
  await expect(page.getByRole('button', { name: /^会员中心 .*积分记录 菜单$/ })).toHaveAttribute('aria-expanded', 'false');
  await expect(menu).toBeHidden();
  await page.setViewportSize({ width: 1280, height: 720 });
  await expect(menu).toBeVisible();

  await menu.getByRole('link', { name: '个人资料' }).click();
  // The profile form is an island: the avatar's file input uploads only once it has hydrated (on a
  // loaded CI machine the file was set before, and no upload ever started).
  await expect(page).toHaveURL(/\/user\/account\/profile$/);
  await hydrated(page);
  await page.getByRole('textbox', { name: '昵称' }).fill('新的昵称');
  // A real PNG (1×1), uploaded through /api/ajax/upload as the avatar.
  const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
  const uploaded = page.waitForResponse((r) => r.url().includes('/api/ajax/upload'));
  await page.locator('input[name="avatarFile"]').setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: png });
  expect((await (await uploaded).json()).code).toBe(1);
  await expect(page.locator('.avatar-row img')).toHaveAttribute('src', /^\/storage\/avatar\//);
  await page.getByRole('button', { name: '保存' }).click();
  await expect(page.getByRole('status').filter({ hasText: '资料已保存' })).toBeVisible();
  await page.reload();
  await expect(page.getByRole('textbox', { name: '昵称' })).toHaveValue('新的昵称');
  const avatar = await page.locator('.avatar-row img').getAttribute('src');
  expect(avatar).toMatch(/^\/storage\/avatar\/.+\.png$/);
  const served = await page.request.get(avatar!);
  expect(served.headers()['content-type']).toBe('image/png');

  await page.goto('/user/account/signIn');
  await page.waitForFunction(() => !document.querySelector('astro-island[ssr]'));
  await page.getByRole('button', { name: /签到领 10 积分/ }).click();
  await expect(page.getByText('今天已签到，连续 1 天')).toBeVisible();
  await page.goto('/user/account/integral');
  await expect(page.getByRole('cell', { name: '+10' })).toBeVisible();

  // The export button comes with the member group's button rule.
  await page.goto('/user/account/balance');
  await expect(page.getByRole('link', { name: '导出 CSV' })).toBeVisible();
  // An operator moves the member to a group without that rule: the button is not in the page at all.
  const [readers] = await query<{ id: number }>(
    `insert into user_group (name, rules, status) select 'Readers', string_agg(id::text, ','), 1 from user_rule where name <> 'account/balance/export' returning id`,
  );
  await query('update "user" set group_id = $1 where username = $2', [readers!.id, name]);

  // A second device logs in, then the first changes the password: the second is asked to log in.
  const other = await browser.newContext({ locale: 'zh-CN' });
  const second = await other.newPage();
  await second.goto('/user/login');
  // A click on the login button before the form hydrates submits nothing and opens no captcha.
  await second.waitForFunction(() => !document.querySelector('astro-island[ssr]'));
  await second.getByLabel('账户名 / 邮箱 / 手机号').fill(name);
  await second.getByLabel('密码').fill('firstpass1');
  await solveCaptcha(second, () => second.getByRole('button', { name: '登录', exact: true }).last().click());
  await expect(second).toHaveURL(/\/user\/account\/overview$/);
  await second.goto('/user/account/balance');
  await expect(second.getByRole('heading', { name: '余额记录', level: 1 })).toBeVisible();
  await expect(second.getByRole('link', { name: '导出 CSV' })).toHaveCount(0);
  expect(await second.content()).not.toContain('balanceExport');

  await page.goto('/user/account/changePassword');
  await page.waitForFunction(() => !document.querySelector('astro-island[ssr]'));
  await page.getByLabel('旧密码').fill('firstpass1');
  await page.getByLabel('新密码', { exact: true }).fill('secondpass2');
  await page.getByLabel('确认新密码').fill('secondpass2');
  await page.getByRole('button', { name: '修改密码' }).click();
  await expect(page.getByRole('status').filter({ hasText: '其他设备上的登录已退出' })).toBeVisible();
  // The second device's page may learn it first from its message stream (ended with the session)
  // and go to the login page itself, interrupting this navigation: either way it ends there.
  await second.goto('/user/account/profile').catch(() => undefined);
  await expect(second).toHaveURL(/\/user\/login\?to=/);
  await other.close();

  // The public card works for a visitor.
  const [member] = await query<{ id: number }>('select id from "user" where username = $1', [name]);
  const visitor = await browser.newContext({ locale: 'zh-CN' });
  const card = await visitor.newPage();
  await card.goto(`/user/card/${member!.id}`);
  await expect(card.getByRole('heading', { name: '新的昵称', level: 1 })).toBeVisible();
  await visitor.close();

  await page.locator('.user-box summary').click();
  await page.getByRole('button', { name: '退出登录' }).click();
  // The page reloads as a visitor: the member center now sends them to the login page.
  await expect(page).toHaveURL(/\/user\/login\?to=%2Fuser%2Faccount%2FchangePassword$/);
  await page.goto('/');
  await expect(page.getByRole('link', { name: '登录' })).toBeVisible();
  expect(await page.evaluate(() => localStorage.getItem('userInfo-v5'))).toBeNull();
  // Logging out cleared the session's cookies, the readable user info with them.
  expect(await page.evaluate(() => document.cookie)).not.toContain('userInfo-v5');
  expect((await page.context().cookies()).map((c) => c.name).filter((n) => /^(ba-user-|userInfo)/.test(n))).toEqual([]);
});
