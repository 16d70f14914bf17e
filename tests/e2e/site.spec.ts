import { expect, test, type Page } from '@playwright/test';
import { scaled } from '../helpers/time-scale.mjs';

const PAGES = ['/', '/ask', '/ask/post', '/ask/search/atrium', '/chat', '/md', '/modules', '/user/login'];

async function notify(page: Page, options: Record<string, unknown>): Promise<void> {
  await page.evaluate(async (o) => { await window.Atrium.notify(o as never); }, options);
}

test.describe('pages a visitor opens', () => {
  for (const path of PAGES) {
    test(`${path} renders with its heading and no script errors`, async ({ page }) => {
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
      const res = await page.goto(path);
      expect(res?.status()).toBe(200);
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
      await page.waitForLoadState('networkidle');
      expect(errors).toEqual([]);
    });
  }

  test('an unknown page says Page Not Found with its path', async ({ page }) => {
    const res = await page.goto('/no/such/thing');
    expect(res?.status()).toBe(404);
    await expect(page.getByRole('heading', { name: '页面未找到：/no/such/thing' })).toBeVisible();
    await page.context().addCookies([{ name: 'ba-lang', value: 'en', url: page.url() }]);
    await page.reload();
    await expect(page.getByRole('heading', { name: 'Page Not Found: /no/such/thing' })).toBeVisible();
  });

  test('the member center sends a visitor to the login page', async ({ page }) => {
    await page.goto('/user/account/overview');
    await expect(page).toHaveURL(/\/user\/login\?to=%2Fuser%2Faccount%2Foverview$/);
  });
});

test('the language switch reloads into the other language and persists', async ({ page }) => {
  await page.goto('/ask');
  await expect(page.locator('html')).toHaveAttribute('lang', 'zh-cn');
  await expect(page.getByRole('heading', { name: '社区', level: 1 })).toBeVisible();
  await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: /English/ }).click()]);
  await expect(page.locator('html')).toHaveAttribute('lang', 'en');
  await expect(page.getByRole('heading', { name: 'Community', level: 1 })).toBeVisible();
  await page.goto('/md');
  await expect(page.getByRole('heading', { name: 'Docs', level: 1 })).toBeVisible();
  const cookies = await page.context().cookies();
  expect(cookies.find((c) => c.name === 'ba-lang')?.value).toBe('en');
  await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: /简体中文/ }).click()]);
  await expect(page.locator('html')).toHaveAttribute('lang', 'zh-cn');
});

test('dark mode persists and is painted before any script runs', async ({ page, browser }) => {
  await page.goto('/');
  await expect(page.locator('html')).not.toHaveClass(/dark/);
  await page.getByRole('button', { name: '切换深色模式' }).click();
  await expect(page.locator('html')).toHaveClass(/dark/);
  expect(await page.evaluate(() => localStorage.getItem('ba-is-dark'))).toBe('true');
  const cookies = await page.context().cookies();

  // A fresh page with JavaScript disabled shows the dark theme: it comes with the first byte.
  const noJs = await browser.newContext({ javaScriptEnabled: false });
  await noJs.addCookies(cookies);
  const plain = await noJs.newPage();
  await plain.goto('/modules');
  await expect(plain.locator('html')).toHaveClass(/dark/);
  const background = await plain.evaluate(() => getComputedStyle(document.body).backgroundColor);
  expect(background).toBe('rgb(15, 17, 21)');
  await noJs.close();

  await page.reload();
  await expect(page.locator('html')).toHaveClass(/dark/);
  await page.getByRole('button', { name: '切换深色模式' }).click();
  await page.reload();
  await expect(page.locator('html')).not.toHaveClass(/dark/);
});

test('a notification pauses while hovered, closes on Escape and stacks with 16 px gaps', async ({ page }) => {
  // The page's clock is the test's, and stopped: a busy machine must not close the notification before
  // the hover lands (an installed clock alone still runs with the wall clock; pauseAt stops it).
  await page.clock.install();
  await page.goto('/');
  await page.clock.pauseAt(Date.now() + 1000);
  await notify(page, { message: 'Saved', type: 'success', duration: 800 });
  const saved = page.getByRole('status').filter({ hasText: 'Saved' });
  await expect(saved).toBeVisible();
  await saved.hover();
  await page.clock.runFor(1300);
  await expect(saved).toBeVisible();
  await page.mouse.move(5, 500);
  await page.clock.runFor(900);
  await expect(saved).toBeHidden();

  await notify(page, { message: 'First', duration: 0 });
  await notify(page, { message: 'Second', type: 'error', duration: 0, title: 'Oops' });
  const first = page.locator('.ba-notify', { hasText: 'First' });
  const second = page.getByRole('alert').filter({ hasText: 'Second' });
  // The entry animation moves them a few pixels: measured once it has run out (however long that takes here).
  for (const el of [first, second]) await el.evaluate((node) => Promise.all(node.getAnimations().map((a) => a.finished)));
  const a = (await first.boundingBox())!;
  const b = (await second.boundingBox())!;
  expect(b.y - (a.y + a.height)).toBeCloseTo(16, 0);
  expect(Number(await first.evaluate((el) => getComputedStyle(el).zIndex))).toBeGreaterThanOrEqual(2000);

  await page.keyboard.press('Escape');
  await expect(second).toBeHidden();
  await expect(first).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(first).toBeHidden();

  await notify(page, { message: 'Kept', duration: 600, showClose: true });
  const kept = page.locator('.ba-notify', { hasText: 'Kept' });
  await page.keyboard.down('Backspace');
  await page.clock.runFor(1000);
  await expect(kept).toBeVisible();
  await page.keyboard.up('Backspace');
  await page.clock.runFor(700);
  await expect(kept).toBeHidden();
});

test('the close button closes and the others move up', async ({ page }) => {
  await page.goto('/');
  await notify(page, { message: 'One', duration: 0, position: 'bottom-left' });
  await notify(page, { message: 'Two', duration: 0, position: 'bottom-left' });
  const two = page.locator('.ba-notify', { hasText: 'Two' });
  const before = (await two.boundingBox())!.y;
  await page.locator('.ba-notify', { hasText: 'One' }).getByRole('button', { name: '关闭' }).click();
  await expect(page.locator('.ba-notify', { hasText: 'One' })).toHaveCount(0);
  await expect.poll(async () => (await two.boundingBox())!.y).toBeGreaterThan(before);
});

test('in-app navigation shows the progress bar until the next page is ready', async ({ page }) => {
  await page.goto('/');
  await page.route('**/md', async (route) => {
    await new Promise((r) => setTimeout(r, 1200));
    await route.continue();
  });
  await page.getByRole('navigation', { name: '主导航' }).getByRole('link', { name: '文档' }).click();
  const bar = page.locator('#ba-progress');
  await expect(bar).toBeVisible();
  await expect(page.getByRole('heading', { name: '文档', level: 1 })).toBeVisible();
  await expect(bar).toBeHidden();
  expect(page.url()).toMatch(/\/md$/);
  await page.goBack();
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Atrium');
});

test('a failed chunk after a new deployment reloads once', async ({ page }) => {
  let documents = 0;
  page.on('request', (r) => { if (r.resourceType() === 'document') documents++; });
  await page.goto('/ask');
  expect(documents).toBe(1);
  // A new build went out: the manifest has another id and the old chunks are gone.
  await page.route('**/build-manifest.json*', (route) => route.fulfill({ json: { id: 'next-build' } }));
  await page.route('**/_astro/notify*.js', (route) => route.fulfill({ status: 404, body: '' }));
  await Promise.all([
    page.waitForEvent('load'),
    page.evaluate(() => { void window.Atrium.notify('hello').catch(() => undefined); }),
  ]);
  expect(documents).toBe(2);
  await expect(page).toHaveURL(/\/ask$/);
  // A second failure inside the guard time does not reload again.
  await page.evaluate(() => { void window.Atrium.notify('again').catch(() => undefined); });
  await page.waitForTimeout(1500);
  expect(documents).toBe(2);
});

test('a form sent before its island hydrates waits for it: nothing typed goes into the URL, and it is sent once ready', async ({ page }) => {
  // The login form's code arrives late (a slow phone), after the member has typed and pressed Enter.
  let release!: () => void;
  const held = new Promise<void>((r) => { release = r; });
  await page.route(/\/_astro\/LoginForm\.[\w-]+\.js$/, async (route) => { await held; await route.continue(); });
  await page.goto('/user/login');
  await expect(page.locator('astro-island[ssr]').filter({ has: page.locator('form') })).toHaveCount(1);
  await page.getByLabel('账户名 / 邮箱 / 手机号').fill('nobody');
  await page.getByLabel('密码').fill('not-in-the-url');
  const captcha = page.waitForRequest(/\/api\/common\/clickCaptcha\?id=/);
  await page.getByLabel('密码').press('Enter');
  await page.waitForTimeout(500);
  expect(page.url()).not.toContain('not-in-the-url');
  expect(new URL(page.url()).search).toBe('');
  release();
  // Hydrated, the form goes through its own code: the fields kept what was typed, the captcha opens.
  await captcha;
  await expect(page.getByLabel('账户名 / 邮箱 / 手机号')).toHaveValue('nobody');
  await expect(page.locator('.click-captcha img')).toBeVisible();
});

test('an island whose code is gone after a new deployment reloads to the page being opened', async ({ page }) => {
  await page.goto('/ask');
  await page.waitForLoadState('networkidle');
  // A new build went out: the manifest has another id and the old chunks are gone, until the
  // browser loads /chat afresh (from the new build, whose chunks exist).
  let stale = true;
  const documents: string[] = [];
  page.on('request', (r) => {
    if (r.resourceType() !== 'document') return;
    documents.push(new URL(r.url()).pathname);
    stale = false;
  });
  await page.route('**/build-manifest.json*', (route) => route.fulfill({ json: { id: 'next-build' } }));
  await page.route(/\/_astro\/ChatApp\.[\w-]+\.js/, (route) => (stale ? route.fulfill({ status: 404, body: '' }) : route.continue()));
  const reloaded = page.waitForRequest((r) => r.resourceType() === 'document', { timeout: scaled(10_000) });
  await page.getByRole('navigation', { name: '主导航' }).getByRole('link', { name: 'AI 对话' }).click();
  await reloaded;
  expect(documents).toEqual(['/chat']);
  await expect(page).toHaveURL(/\/chat$/);
  // The island runs: its model picker and composer are the live React ones.
  await expect(page.locator('astro-island[component-url*="ChatApp"]')).not.toHaveAttribute('ssr');
});
