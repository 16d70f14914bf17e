// Fit and finish (issue 29): what a new user tripped over, checked the way they saw it, in
// Chromium on a desktop and on a 390 px phone, in both languages.
import { crc32, deflateSync } from 'node:zlib';
import { expect, test, type Page } from '@playwright/test';
import { atrium, hydrated, logIn, newMember, query, readEnv, type E2eEnv } from './helpers';
import { scaled } from '../helpers/time-scale.mjs';

let env: E2eEnv = { dataDir: '', databaseUrl: null };
test.beforeAll(() => { env = readEnv(); });

const PHONE = { width: 390, height: 844 };
async function useLanguage(page: Page, locale: 'zh-cn' | 'en'): Promise<void> {
  await page.context().addCookies([{ name: 'ba-lang', value: locale, domain: new URL(page.url()).hostname, path: '/' }]);
}

for (const locale of ['zh-cn', 'en'] as const) {
  test(`a profile save shows the new name and initial in the header at once (${locale})`, async ({ browser }) => {
    test.skip(!env.databaseUrl, 'set TEST_DATABASE_URL to log in (.ci/run does)');
    const name = `hdr${locale === 'en' ? 'en' : 'zh'}${Date.now().toString(36).slice(-5)}`;
    await newMember(env, name);
    const page = await logIn(env, browser, name);
    await useLanguage(page, locale);
    await page.goto('/user/account/profile');
    await hydrated(page);
    const header = page.locator('.site-header .user-box summary');
    await expect(header.locator('.user-name')).toHaveText(name);
    // Scripts see the spec's persisted subset (§3) in the user-info cookie, without the tokens (HttpOnly cookies).
    const stored = await page.evaluate(() => {
      const value = document.cookie.split('; ').find((c) => c.startsWith('userInfo-v5='))?.slice('userInfo-v5='.length) ?? '{}';
      return Object.keys(JSON.parse(decodeURIComponent(value)) as object).sort();
    });
    expect(stored).toEqual(['avatar', 'id', 'nickname', 'show_open_source_star_time', 'username']);
    await page.getByLabel(locale === 'en' ? 'Nickname' : '昵称').fill('Zed Header');
    await page.getByRole('button', { name: locale === 'en' ? 'Save' : '保存', exact: true }).click();
    await expect(header.locator('.user-name')).toHaveText('Zed Header');
    await expect(header.locator('.avatar')).toHaveText('Z');
    // On a phone, where the header is tightest, the same.
    await page.setViewportSize(PHONE);
    await page.getByLabel(locale === 'en' ? 'Nickname' : '昵称').fill('Quinn');
    await page.getByRole('button', { name: locale === 'en' ? 'Save' : '保存', exact: true }).click();
    await expect(header.locator('.avatar')).toHaveText('Q');
    await expect(header.locator('.user-name')).toHaveText('Quinn');
    await page.context().close();
  });
}

/** A small valid PNG, different for every `seed` (uploads of equal bytes are one stored file). */
function png(seed: number, size = 64): Buffer {
  const chunk = (type: string, data: Buffer): Buffer => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const out = Buffer.alloc(body.length + 8);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), body.length + 4);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const rows = Buffer.alloc((size * 3 + 1) * size);
  for (let y = 0; y < size; y++) for (let x = 0; x < size * 3; x++) rows[y * (size * 3 + 1) + 1 + x] = (x * 7 + y * 13 + seed * 31) & 255;
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', header), chunk('IDAT', deflateSync(rows)), chunk('IEND', Buffer.alloc(0))]);
}

for (const locale of ['zh-cn', 'en'] as const) {
  for (const viewport of [PHONE, { width: 1366, height: 900 }]) {
    test(`the upload queue never covers the module form's button, folds when idle and clears itself (${locale}, ${viewport.width} px)`, async ({ browser }) => {
      test.skip(!env.databaseUrl, 'set TEST_DATABASE_URL to log in (.ci/run does)');
      test.setTimeout(scaled(90_000));
      const name = `upq${viewport.width}${locale === 'en' ? 'e' : 'z'}${Date.now().toString(36).slice(-4)}`;
      await newMember(env, name);
      const [member] = await query<{ id: number }>(env, 'select id from "user" where username = $1', [name]);
      const t = Math.floor(Date.now() / 1000);
      await query(env, `insert into developer (user_id, real_name, id_number, mobile, email, province, status, create_time, update_time) values ($1, '张三', '11010519491231002X', '13800138000', $2, '11', 'approved', $3, $3)`, [member!.id, `${name}@example.com`, t]);
      const page = await logIn(env, browser, name);
      await useLanguage(page, locale);
      await page.setViewportSize(viewport);
      await page.goto('/user/developer/modules?new=1');
      await hydrated(page);
      const seed = viewport.width + (locale === 'en' ? 1 : 0) * 100 + (Date.now() % 1000) * 10;
      await page.locator('input.visually-hidden[type=file]:not([multiple])').first().setInputFiles({ name: 'cover.png', mimeType: 'image/png', buffer: png(seed) });
      await expect(page.locator('.studio-images img').first()).toBeVisible({ timeout: scaled(20_000) });
      await page.locator('input.visually-hidden[type=file][multiple]').setInputFiles([1, 2, 3].map((i) => ({ name: `shot-${i}.png`, mimeType: 'image/png', buffer: png(seed + i) })));
      const queue = page.locator('section.upq');
      // The cover and the three screenshots are in the form (the cover's row may have left the queue already).
      await expect(page.locator('.studio-images img')).toHaveCount(4, { timeout: scaled(20_000) });
      await expect(queue.locator('.upq-row[data-state="success"]').first()).toBeAttached();
      const submit = page.getByRole('button', { name: locale === 'en' ? 'Create module' : '创建模块', exact: true });
      /** A tap on the button lands on it, and the queue's box and the button's do not meet. */
      const buttonFree = async (): Promise<void> => {
        for (const where of ['start', 'end'] as const) {
          await submit.evaluate((el, block) => el.scrollIntoView({ block }), where);
          const box = (await submit.boundingBox())!;
          const hit = await page.evaluate(([x, y]) => document.elementFromPoint(x!, y!)?.closest('button')?.textContent ?? '', [box.x + box.width / 2, box.y + box.height / 2]);
          expect(hit, `tap on the button, scrolled to the ${where}`).toBe(locale === 'en' ? 'Create module' : '创建模块');
          const panel = (await queue.boundingBox())!;
          const overlaps = box.x < panel.x + panel.width && panel.x < box.x + box.width && box.y < panel.y + panel.height && panel.y < box.y + box.height;
          expect(overlaps, `queue over the button, scrolled to the ${where}`).toBe(false);
        }
      };
      await buttonFree();
      // Idle: folded to its header; opened, it still leaves the button free.
      await expect(queue.locator('.upq-list')).toBeHidden();
      await queue.getByRole('button', { name: locale === 'en' ? 'Expand' : '展开' }).click();
      await expect(queue.locator('.upq-list')).toBeVisible();
      await buttonFree();
      // Finished files leave by themselves; an empty queue is gone.
      await expect(queue).toHaveCount(0, { timeout: scaled(30_000) });
      await page.context().close();
    });
  }
}

const guide = (locale: 'zh-cn' | 'en', page: string): string => `/md/${locale === 'en' ? 'guide-en' : 'guide'}/${page}`;

for (const locale of ['zh-cn', 'en'] as const) {
  test(`docs on a phone: no gap under the contents button, table headers on one line (${locale})`, async ({ page }) => {
    await page.setViewportSize(PHONE);
    await page.goto('/');
    await useLanguage(page, locale);
    await page.goto(guide(locale, 'configuration'));
    const button = (await page.locator('.doc-menu-btn').boundingBox())!;
    const content = (await page.locator('#main').boundingBox())!;
    expect(content.y - (button.y + button.height), 'space between the button and the page').toBeLessThanOrEqual(24);
    const heads = page.locator('.markdown-body th');
    expect(await heads.count()).toBeGreaterThan(1);
    const lines = await heads.evaluateAll((ths) => ths.map((th) => {
      const lineHeight = parseFloat(getComputedStyle(th).lineHeight) || 24;
      const range = document.createRange();
      range.selectNodeContents(th);
      return { text: th.textContent ?? '', lines: Math.round(range.getBoundingClientRect().height / lineHeight) };
    }));
    for (const h of lines) expect(h.lines, h.text).toBeLessThanOrEqual(1);
  });

  test(`the sign-up form: its own heading, and "Send code" on one line at 390 px (${locale})`, async ({ page }) => {
    await page.setViewportSize(PHONE);
    await page.goto('/');
    await useLanguage(page, locale);
    await page.goto('/user/login');
    await hydrated(page);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(locale === 'en' ? 'Log in' : '登录');
    await page.getByRole('tab', { name: locale === 'en' ? 'Sign up' : '注册' }).click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(locale === 'en' ? 'Sign up' : '注册');
    const send = page.getByRole('button', { name: locale === 'en' ? 'Send code' : '获取验证码' });
    const height = await send.evaluate((el) => {
      const range = document.createRange();
      range.selectNodeContents(el);
      return range.getBoundingClientRect().height / (parseFloat(getComputedStyle(el).lineHeight) || 20);
    });
    expect(Math.round(height)).toBe(1);
  });

  test(`the phone chat drawer dims the page and closes on a tap beside it; a search with no match says so (${locale})`, async ({ page }) => {
    await page.setViewportSize(PHONE);
    await page.goto('/');
    await useLanguage(page, locale);
    await page.goto('/chat');
    await hydrated(page);
    await page.locator('.chat-menu').click();
    const backdrop = page.locator('.chat-backdrop');
    await expect(backdrop).toBeVisible();
    await page.getByRole('searchbox').fill('zzqx-nothing');
    await expect(page.locator('.chat-list')).toContainText(locale === 'en' ? 'No conversation matches “zzqx-nothing”' : '没有与“zzqx-nothing”匹配的对话');
    await page.mouse.click(370, 400);
    await expect(backdrop).toHaveCount(0);
    await expect(page.locator('.chat-side')).not.toBeInViewport();
  });
}

// A picture chosen in the first moments of the page, before the profile form has hydrated, used to
// sit in the file input unheard: no upload, nothing said. The form now uploads it when it hydrates.
test('an avatar chosen before the profile form hydrates is still uploaded', async ({ browser }) => {
  test.skip(!env.databaseUrl, 'set TEST_DATABASE_URL to log in (.ci/run does)');
  const name = `avh${Date.now().toString(36).slice(-5)}`;
  await newMember(env, name);
  const page = await logIn(env, browser, name);
  // The islands' code is held back until the file has been chosen.
  let release!: () => void;
  const held = new Promise<void>((resolve) => { release = resolve; });
  await page.route((url) => url.pathname.startsWith('/_astro/') && url.pathname.endsWith('.js'), async (route) => { await held; await route.continue(); });
  await page.goto('/user/account/profile', { waitUntil: 'commit' });
  const input = page.locator('input[name="avatarFile"]');
  await input.waitFor({ state: 'attached' });
  const uploaded = page.waitForResponse((r) => r.url().includes('/api/ajax/upload'));
  await input.setInputFiles({ name: 'early.png', mimeType: 'image/png', buffer: png(Date.now() % 100_000) });
  await expect(page.locator('astro-island[ssr]').first()).toBeAttached();
  release();
  expect((await (await uploaded).json()).code).toBe(1);
  await expect(page.locator('.avatar-row img')).toHaveAttribute('src', /^\/storage\/avatar\//);
  await page.context().close();
});

test('the module orders table fits its card at 1366 px: the invoice button is in view', async ({ browser }) => {
  test.skip(!env.databaseUrl, 'set TEST_DATABASE_URL to log in (.ci/run does)');
  const name = `ord${Date.now().toString(36).slice(-6)}`;
  await newMember(env, name);
  const [member] = await query<{ id: number }>(env, 'select id from "user" where username = $1', [name]);
  const [mod] = await query<{ id: number; developer_id: number }>(env, 'select id, developer_id from module order by id limit 1');
  const t = Math.floor(Date.now() / 1000);
  await query(env, `insert into module_order (order_no, user_id, module_id, developer_id, pay_type, amount, status, updates_until, pay_time, create_time) values ($1, $2, $3, $4, 'balance', 990, 'paid', $5, $6, $6)`,
    [`2026112712345678${String(t).slice(-8)}`, member!.id, mod!.id, mod!.developer_id, t + 365 * 86400, t]);
  const page = await logIn(env, browser, name);
  await page.setViewportSize({ width: 1366, height: 900 });
  for (const locale of ['zh-cn', 'en'] as const) {
    await useLanguage(page, locale);
    await page.goto('/user/account/moduleOrders');
    const fits = await page.getByTestId('module-orders').evaluate((table) => table.scrollWidth <= table.parentElement!.clientWidth);
    expect(fits, locale).toBe(true);
    await expect(page.getByRole('link', { name: locale === 'en' ? 'Request invoice' : '申请发票' })).toBeInViewport({ ratio: 1 });
  }
  await page.context().close();
});

for (const locale of ['zh-cn', 'en'] as const) {
  test(`the setup and reset forms say a field error once, beside its field (${locale})`, async ({ page }) => {
    test.skip(!env.databaseUrl, 'set TEST_DATABASE_URL to use the CLI (.ci/run does)');
    const name = `rst${locale === 'en' ? 'e' : 'z'}${Date.now().toString(36).slice(-5)}`;
    await newMember(env, name);
    const path = /\/reset-password\?token=\S+/.exec(atrium(env, 'user:reset-password', name))![0];
    await page.setViewportSize(PHONE);
    await page.goto('/');
    await useLanguage(page, locale);
    await page.goto(path);
    await page.locator('input[name=password]').fill('a&b');
    await page.locator('form[data-api] button[type=submit]').click();
    const beside = page.locator('[data-error-for="password"]');
    await expect(beside).not.toBeEmpty();
    const message = (await beside.textContent())!;
    await expect(page.locator('form[data-api] [role=status]')).not.toHaveText(message);
    expect(await page.getByText(message, { exact: true }).count()).toBe(1);
  });
}
