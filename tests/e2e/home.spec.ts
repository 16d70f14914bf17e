// The home page as a visitor meets it, and the pages that lost the way back: the login page's
// header and form details. Screenshots at 1366 and 390 px are attached to the report.
import { expect, test, type Page } from '@playwright/test';
import { atrium, logIn, newMember, query, readEnv, withLock, type E2eEnv } from './helpers';
import { scaled } from '../helpers/time-scale.mjs';

let env: E2eEnv = { dataDir: '', databaseUrl: null };
test.beforeAll(() => { env = readEnv(); });

async function shoot(page: Page, name: string): Promise<void> {
  await test.info().attach(name, { body: await page.screenshot({ fullPage: true }), contentType: 'image/png' });
}

test('the home page shows a new question at once and links on to it, at 1366 and 390 px', async ({ browser }) => {
  test.skip(!env.databaseUrl, 'set TEST_DATABASE_URL to post through the API (.ci/run does)');
  test.setTimeout(scaled(90_000));
  const suffix = Date.now().toString(36).slice(-6);
  const name = `hom${suffix}`;
  await newMember(env, name);
  const member = await logIn(env, browser, name);
  const title = `首页上的新问题 ${suffix}`;
  const id = await withLock('editor-module', async () => {
    atrium(env, 'module:install', 'editor');
    const [category] = await query<{ id: number }>(env, `select id from ask_category where slug = 'question'`);
    const reply = await member.evaluate(async (body) => {
      const res = await fetch('/api/ask/post', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return res.json() as Promise<{ code: number; msg: string; data: { id: number } }>;
    }, { title, category_id: category!.id, content: '首页应该马上显示这个问题。', nonce: `home-${suffix}-post` });
    expect(reply.code, reply.msg).toBe(1);
    return reply.data.id;
  });
  await member.context().close();

  for (const width of [1366, 390]) {
    const context = await browser.newContext({ viewport: { width, height: 900 }, locale: 'zh-CN' });
    const page = await context.newPage();
    await page.goto('/');
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    const latest = page.getByRole('region', { name: '最新问题' });
    await expect(latest.getByRole('link', { name: title })).toBeVisible();
    await expect(page.getByRole('region', { name: '待解决的问题' }).getByRole('link', { name: title })).toBeVisible();
    await expect(page.getByRole('region', { name: '最近更新的文档' }).getByRole('link').first()).toBeVisible();
    await expect(page.getByRole('region', { name: '新上架模块' })).toBeVisible();
    await expect(page.getByRole('region', { name: '热门模块' })).toBeVisible();
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
    await shoot(page, `home-zh-cn-${width}`);
    await context.addCookies([{ name: 'ba-lang', value: 'en', url: page.url() }]);
    await page.reload();
    await expect(page.getByRole('region', { name: 'Latest questions' }).getByRole('link', { name: title })).toBeVisible();
    await shoot(page, `home-en-${width}`);
    await page.getByRole('region', { name: 'Latest questions' }).getByRole('link', { name: title }).click();
    await expect(page).toHaveURL(new RegExp(`/ask/info/${id}$`));
    await expect(page.getByRole('heading', { level: 1, name: title })).toBeVisible();
    await context.close();
  }
});

test('the login page has the site header, one-row radio groups, an account-first reset and a real cancel button', async ({ browser }) => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'zh-CN' });
  const page = await context.newPage();
  await page.goto('/user/login?type=register');
  await page.waitForFunction(() => !document.querySelector('astro-island[ssr]'));
  // The way home and the switches.
  await expect(page.locator('.site-header .brand')).toHaveAttribute('href', '/');
  await expect(page.getByRole('button', { name: /English/ })).toBeVisible();
  await expect(page.getByRole('button', { name: '切换深色模式' })).toBeVisible();
  // E-mail and mobile side by side.
  const email = await page.getByRole('radio', { name: '邮箱' }).boundingBox();
  const mobile = await page.getByRole('radio', { name: '手机号' }).boundingBox();
  expect(Math.abs(email!.y - mobile!.y)).toBeLessThan(4);
  expect(mobile!.x).toBeGreaterThan(email!.x);
  await shoot(page, 'login-register-390');

  // The captcha dialog's cancel is drawn as a button, not a full-width field.
  await page.getByRole('textbox', { name: '邮箱' }).fill('someone@example.com');
  await page.getByRole('button', { name: '获取验证码' }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toBeVisible();
  const cancel = dialog.getByRole('button', { name: '取消', exact: true });
  const [cancelBox, dialogBox] = [await cancel.boundingBox(), await dialog.boundingBox()];
  expect(cancelBox!.width).toBeLessThan(dialogBox!.width / 2);
  expect(await cancel.evaluate((el) => getComputedStyle(el).textAlign)).toBe('center');
  await shoot(page, 'login-captcha-390');
  await cancel.click();
  await expect(dialog).toHaveCount(0);
  // Escape closes it too.
  await page.getByRole('button', { name: '获取验证码' }).click();
  await expect(dialog).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);

  // Resetting a password: its own heading, the account first, the new password last.
  await page.getByRole('tab', { name: '登录' }).click();
  await page.getByRole('button', { name: '忘记密码？' }).click();
  await expect(page.getByRole('heading', { level: 1, name: '重置密码' })).toBeVisible();
  const account = await page.getByRole('textbox', { name: '邮箱' }).boundingBox();
  const password = await page.getByLabel('新密码').boundingBox();
  expect(account!.y).toBeLessThan(password!.y);
  await shoot(page, 'login-retrieve-390');
  await context.close();
});
