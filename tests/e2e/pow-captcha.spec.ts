// Signing up with the captcha without pictures, using only the keyboard (no click, focus or fill):
// the dialog opens on the picture captcha with the way out to the proof-of-work challenge as its
// first stop; the browser solves the challenge, the code is sent, the member is signed up. Once on
// localhost (a secure context) and once over plain HTTP at a LAN address, where the browser has no
// `crypto.subtle` (the solver hashes with hash-wasm). Reads no database: only the e-mail outbox.
import { expect, test, type Page } from '@playwright/test';
import { axeViolations, describeViolations } from './axe';
import { latestCode, readEnv, startLanRelay, tabTo, type E2eEnv } from './helpers';
import { scaled } from '../helpers/time-scale.mjs';

let env: E2eEnv = { dataDir: '', databaseUrl: null };
let relay: Awaited<ReturnType<typeof startLanRelay>> = null;
let lanOrigin = '';

test.beforeAll(async ({ baseURL }) => {
  env = readEnv();
  relay = await startLanRelay(baseURL!);
  lanOrigin = relay?.origin ?? '';
});

test.afterAll(async () => {
  await relay?.close();
});

const WORDS = {
  'zh-cn': {
    account: '账户名', password: '密码', email: '邮箱', send: '获取验证码', dialog: '安全验证', switch: '改用无图片的验证',
    panel: '无图片验证', status: /正在计算|验证成功/, resend: /秒后重发/, code: '验证码', overview: '账户概览',
  },
  en: {
    account: 'Account name', password: 'Password', email: 'E-mail', send: 'Send code', dialog: 'Security check', switch: 'Use a challenge without pictures',
    panel: 'Check without pictures', status: /Working it out|Verification is successful/, resend: /Resend in/, code: 'Code', overview: 'Overview',
  },
} as const;

async function signUpWithoutPictures(page: Page, origin: string, secure: boolean, lang: 'zh-cn' | 'en' = 'zh-cn'): Promise<void> {
  const w = WORDS[lang];
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const name = `pow${Date.now().toString(36)}${secure ? 's' : 'p'}${lang === 'en' ? 'e' : ''}`;
  const address = `${name}@example.com`;
  await page.context().addCookies([{ name: 'ba-lang', value: lang, url: origin }]);
  await page.goto(`${origin}/user/login?type=register`);
  expect(await page.evaluate(() => ({ secure: window.isSecureContext, subtle: typeof crypto.subtle }))).toEqual({ secure, subtle: secure ? 'object' : 'undefined' });
  await page.waitForFunction(() => !document.querySelector('astro-island[ssr]'));

  await tabTo(page, page.getByLabel(w.account, { exact: true }));
  await page.keyboard.type(name);
  await tabTo(page, page.getByLabel(w.password));
  await page.keyboard.type('firstpass1');
  await tabTo(page, page.getByRole('textbox', { name: w.email }));
  await page.keyboard.type(address);
  const asked = page.waitForRequest(/\/api\/common\/clickCaptcha\?id=/);
  await tabTo(page, page.getByRole('button', { name: w.send }));
  await page.keyboard.press('Enter');
  await asked;

  // The picture comes first; the first stop in the dialog is the way to the challenge without it.
  const dialog = page.getByRole('dialog', { name: w.dialog });
  await expect(dialog.locator('.click-captcha')).toBeVisible();
  const switchButton = dialog.getByRole('button', { name: w.switch });
  await expect(switchButton).toBeFocused();
  const challenged = page.waitForResponse(/\/api\/common\/altcha$/);
  await page.keyboard.press('Enter');
  expect((await (await challenged).json()).code).toBe(1);
  await expect(dialog.getByRole('group', { name: w.panel })).toBeFocused();
  await expect(dialog.getByRole('status')).toHaveText(w.status);
  // Solved, the dialog closes by itself and the code is sent.
  await expect(dialog).toHaveCount(0, { timeout: scaled(60_000) });
  await expect(page.getByRole('button', { name: w.resend })).toBeVisible({ timeout: scaled(10_000) });

  await tabTo(page, page.getByLabel(w.code));
  await page.keyboard.type(latestCode(env, address));
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(`${origin}/user/account/overview`);
  await expect(page.getByRole('heading', { name: w.overview, level: 1 })).toBeVisible();
  expect(errors).toEqual([]);
}

for (const lang of ['zh-cn', 'en'] as const) {
  test(`signs up with the keyboard through the captcha without pictures (${lang})`, async ({ page, baseURL }) => {
    test.slow();
    await signUpWithoutPictures(page, new URL(baseURL!).origin, true, lang);
  });
}

test('signs up through the captcha without pictures over plain HTTP at a LAN address', async ({ page }) => {
  test.skip(!lanOrigin, 'this machine has no non-loopback IPv4 address');
  test.slow();
  await signUpWithoutPictures(page, lanOrigin, false);
});

// The panel while it works and after a failure: named, announced, axe-clean, in both languages; a
// failure puts focus on "Try again", which starts over. The challenge is held back (then refused)
// by the test, so the panel stays in each state long enough to look at.
for (const lang of ['zh-cn', 'en'] as const) {
  test(`the challenge without pictures is announced, axe-clean and recovers from a failure (${lang})`, async ({ browser, baseURL }) => {
    test.slow();
    const context = await browser.newContext({ locale: lang === 'en' ? 'en-US' : 'zh-CN' });
    await context.addCookies([{ name: 'ba-lang', value: lang, url: baseURL! }]);
    const page = await context.newPage();
    const en = lang === 'en';
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => { release = resolve; });
    let calls = 0;
    await page.route(/\/api\/common\/altcha$/, async (route) => {
      calls++;
      if (calls === 1) {
        await held;
        await route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ code: 0, msg: en ? 'Refused for the test' : '测试中拒绝', data: null, time: 0 }) });
      } else {
        await route.continue();
      }
    });
    await page.goto('/user/login?type=register');
    await page.waitForFunction(() => !document.querySelector('astro-island[ssr]'));
    await tabTo(page, page.getByRole('textbox', { name: en ? 'E-mail' : '邮箱' }));
    await page.keyboard.type(`held${Date.now().toString(36)}@example.com`);
    await tabTo(page, page.getByRole('button', { name: en ? 'Send code' : '获取验证码' }));
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: en ? 'Security check' : '安全验证' });
    await expect(dialog.getByRole('button', { name: en ? 'Use a challenge without pictures' : '改用无图片的验证' })).toBeFocused();
    await page.keyboard.press('Enter');
    const panel = dialog.getByRole('group', { name: en ? 'Check without pictures' : '无图片验证' });
    await expect(panel).toBeFocused();
    await expect(dialog.getByRole('status')).toHaveText(en ? 'Working it out, please wait…' : '正在计算，请稍候…');
    await expect(dialog.getByRole('progressbar', { name: en ? 'Progress of the check' : '验证进度' })).toBeVisible();
    await expect(dialog.getByRole('button', { name: en ? 'Use the picture captcha instead' : '改用图片验证码' })).toBeVisible();
    expect(describeViolations(await axeViolations(page))).toEqual([]);

    release();
    await expect(dialog.getByRole('status')).toHaveText(en ? 'Refused for the test' : '测试中拒绝');
    const again = dialog.getByRole('button', { name: en ? 'Try again' : '重试' });
    await expect(again).toBeFocused();
    expect(describeViolations(await axeViolations(page))).toEqual([]);
    // Tab stays in the dialog; Enter on "Try again" asks for a new challenge, which is solved.
    for (let i = 0; i < 6; i++) {
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => !!document.activeElement?.closest('dialog[open]'))).toBe(true);
    }
    await tabTo(page, again);
    await page.keyboard.press('Enter');
    await expect(dialog).toHaveCount(0, { timeout: scaled(60_000) });
    expect(calls).toBe(2);
    await context.close();
  });
}
