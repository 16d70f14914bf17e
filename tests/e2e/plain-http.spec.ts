// A site served over plain HTTP on a LAN address (no TLS): the browser gives it no secure context,
// so client code may not rely on what only secure contexts have (crypto.randomUUID, the Clipboard
// API, …). The page is opened at a non-loopback address of this machine, relayed to the e2e server;
// the traffic never leaves the machine.
import { expect, test } from '@playwright/test';
import { latestCode, readEnv, solveCaptcha, startLanRelay, type E2eEnv } from './helpers';
import { scaled } from '../helpers/time-scale.mjs';

let env: E2eEnv = { dataDir: '', databaseUrl: null };
let relay: Awaited<ReturnType<typeof startLanRelay>> = null;
let origin = '';

test.beforeAll(async ({ baseURL }) => {
  env = readEnv();
  relay = await startLanRelay(baseURL!);
  origin = relay?.origin ?? '';
});

test.afterAll(async () => {
  await relay?.close();
});

test('sign-up works over plain HTTP at a LAN address: the captcha opens, the member is signed in', async ({ page }) => {
  test.skip(!origin, 'this machine has no non-loopback IPv4 address');
  test.skip(!env.databaseUrl, 'set TEST_DATABASE_URL to read the captcha answer (.ci/run does)');
  test.slow();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const name = `lan${Date.now().toString(36)}`;
  const address = `${name}@example.com`;
  await page.goto(`${origin}/user/login?type=register`);
  // The condition this test is about: no secure context, so no crypto.randomUUID.
  expect(await page.evaluate(() => ({ secure: window.isSecureContext, uuid: typeof crypto.randomUUID }))).toEqual({ secure: false, uuid: 'undefined' });
  await page.waitForFunction(() => !document.querySelector('astro-island[ssr]'));
  await page.getByLabel('账户名', { exact: true }).fill(name);
  await page.getByLabel('密码').fill('firstpass1');
  await page.getByRole('textbox', { name: '邮箱' }).fill(address);
  await solveCaptcha(env, page, () => page.getByRole('button', { name: '获取验证码' }).click());
  await expect(page.getByRole('button', { name: /秒后重发/ })).toBeVisible({ timeout: scaled(10_000) });
  await page.getByLabel('验证码').fill(latestCode(env, address));
  await page.getByRole('button', { name: '注册', exact: true }).click();
  await expect(page).toHaveURL(`${origin}/user/account/overview`);
  await expect(page.getByRole('heading', { name: '账户概览', level: 1 })).toBeVisible();
  expect(errors).toEqual([]);
});

test('a docs code block is copied over plain HTTP at a LAN address, without the Clipboard API', async ({ page }) => {
  test.skip(!origin, 'this machine has no non-loopback IPv4 address');
  await page.goto(`${origin}/md/guide/install`);
  expect(await page.evaluate(() => ({ secure: window.isSecureContext, clipboard: typeof navigator.clipboard }))).toEqual({ secure: false, clipboard: 'undefined' });
  const button = page.getByRole('button', { name: '复制' }).first();
  await button.click();
  await expect(page.getByRole('button', { name: '已复制' }).first()).toBeVisible();
  // What the copy command put on the clipboard, pasted into a field.
  const code = await page.locator('.markdown-body pre').first().evaluate((pre) => (pre.querySelector('code') ?? pre).textContent);
  await page.evaluate(() => {
    const area = document.createElement('textarea');
    area.id = 'paste-here';
    document.body.append(area);
  });
  await page.locator('#paste-here').focus();
  await page.keyboard.press('ControlOrMeta+V');
  await expect(page.locator('#paste-here')).toHaveValue(code!);
});
