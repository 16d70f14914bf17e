// A form with several errors lists them at its top (issue 27 item 5, as GOV.UK forms do): the list
// takes focus and is announced, each entry names its field and leads to it; one error alone stays
// beside its field only.
import { expect, test } from '@playwright/test';
import { logIn, newMember, readEnv } from './helpers';

const T = {
  'zh-cn': { old: '旧密码', submit: '修改密码', summary: '请先修改以下内容再提交' },
  en: { old: 'Old password', submit: 'Change password', summary: 'There is a problem: fix the fields listed here to continue' },
} as const;

for (const lang of ['zh-cn', 'en'] as const) {
  test(`several errors are listed at the form's top, focused, each leading to its field (${lang})`, async ({ browser }) => {
    const env = readEnv();
    test.skip(!env.databaseUrl, 'set TEST_DATABASE_URL (.ci/run does)');
    const name = `es${lang === 'en' ? 'e' : 'z'}${Date.now().toString(36).slice(-6)}`;
    await newMember(env, name);
    const page = await logIn(env, browser, name);
    await page.context().addCookies([{ name: 'ba-lang', value: lang, url: test.info().project.use.baseURL! }]);
    await page.goto('/user/account/changePassword');
    await page.waitForFunction(() => !document.querySelector('astro-island[ssr]'));
    const t = T[lang];
    await page.getByRole('button', { name: t.submit }).click();
    const summary = page.getByRole('alert').filter({ has: page.getByRole('heading', { name: t.summary }) });
    await expect(summary).toBeVisible();
    await expect(summary).toBeFocused();
    const links = summary.getByRole('link');
    await expect(links).toHaveCount(2);
    await expect(links.first()).toContainText(t.old);
    // Tab reaches the first entry; Enter puts the caret in its field.
    await page.keyboard.press('Tab');
    await expect(links.first()).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(page.locator('input[name=oldPassword]')).toBeFocused();
    // Fixed down to one error: the list goes, the error stays beside its field.
    await page.keyboard.type('forumpass1');
    await page.getByRole('button', { name: t.submit }).click();
    await expect(page.locator('.error-summary')).toHaveCount(0);
    await expect(page.locator('.field-error')).toHaveCount(1);
    await page.context().close();
  });
}
