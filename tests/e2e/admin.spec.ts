// The operator's first hour (issue 18), in Chromium at desktop and phone widths: first start →
// setup link → administrator → site renamed in the console → a member adjusted, a notice
// published, a report closed, a withdrawal paid; on the way the SMS test button and a member's
// login history. Each width gets its own new site and server.
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { expect, request, test, type Page } from '@playwright/test';
import en from '../../src/lib/i18n/en/user';
import zhUser from '../../src/lib/i18n/zh-cn/user';
import zh from '../../src/lib/i18n/zh-cn/admin';
import { startServer, type TestServer } from '../helpers/server';
import { prepareAdminSite, setupPath, type AdminSite } from '../helpers/admin-site';
import { TEMPLATE_DIR, TMP } from '../helpers/paths';
import { scaled } from '../helpers/time-scale.mjs';

async function noSidewaysScroll(page: Page): Promise<void> {
  const [scroll, client] = await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
  expect(scroll, page.url()).toBeLessThanOrEqual(client);
}

async function openSection(page: Page, name: string, phone: boolean): Promise<void> {
  if (phone) await page.locator('.admin-nav summary').click();
  await page.getByRole('navigation', { name: zh['admin.menu'] }).getByRole('link', { name }).click();
  await expect(page.getByRole('heading', { level: 1, name })).toBeVisible();
}

for (const width of [1366, 390]) {
  test.describe(`admin console at ${width}px`, () => {
    const phone = width < 600;
    let srv: TestServer;
    let site: AdminSite;
    let dataDir: string;
    test.use({ viewport: { width, height: phone ? 844 : 900 } });

    test.beforeAll(async () => {
      test.setTimeout(scaled(180_000));
      mkdirSync(TMP, { recursive: true });
      dataDir = mkdtempSync(join(TMP, `e2e-admin-${width}-`));
      // The migrated template of the integration run, when there is one, saves the first migration.
      if (existsSync(join(TEMPLATE_DIR, 'db'))) cpSync(TEMPLATE_DIR, dataDir, { recursive: true });
      site = await prepareAdminSite({ DATA_DIR: dataDir });
      srv = await startServer({ dataDir, env: { DEPLOY_POLL_SECONDS: '0' } });
    });

    test.afterAll(async () => {
      await srv?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    test('first start to the first decisions', async ({ page }) => {
      test.setTimeout(scaled(120_000));
      const shot = (name: string) => page.screenshot({ path: join(TMP, `admin-${width}-${name}.png`), fullPage: true });
      // First start: the link the server printed.
      const link = setupPath(srv.logs());
      expect(link).not.toBeNull();
      await page.goto(srv.url + link!);
      await expect(page.getByRole('heading', { name: zh['admin.install.title'] })).toBeVisible();
      await noSidewaysScroll(page);
      await page.getByLabel(zh['admin.install.siteName']).fill('');
      await page.getByLabel(zh['admin.install.username']).fill('boss');
      await page.getByLabel(zh['admin.install.email']).fill('boss@example.com');
      await page.getByLabel(zh['admin.install.password']).fill('secret123');
      await page.getByRole('button', { name: zh['admin.install.submit'] }).click();
      // Bad input is explained beside its field, and what was typed stays.
      await expect(page.locator('[data-error-for="site_name"]')).toHaveText('必填');
      await expect(page.getByLabel(zh['admin.install.username'])).toHaveValue('boss');
      await page.getByLabel(zh['admin.install.siteName']).fill('星火社区');
      await page.getByRole('button', { name: zh['admin.install.submit'] }).click();
      await page.waitForURL('**/admin/dashboard');
      await expect(page.getByRole('heading', { level: 1, name: zh['admin.section.dashboard'] })).toBeVisible();
      await expect(page.locator('[data-attention="withdrawals"]')).toHaveText('1');
      await expect(page.locator('.admin-charts figure')).toHaveCount(7);
      // Every visible day label of the charts lies inside its chart (the first was cut at the left edge).
      const cut = await page.locator('.admin-charts svg').evaluateAll((svgs) => svgs.flatMap((svg) => {
        const box = svg.getBoundingClientRect();
        return [...svg.querySelectorAll('text.tick')].map((t) => t.getBoundingClientRect())
          .filter((r) => r.width > 0 && (r.left < box.left - 0.5 || r.right > box.right + 0.5)).map((r) => `${r.left}-${r.right} outside ${box.left}-${box.right}`);
      }));
      expect(cut).toEqual([]);
      await noSidewaysScroll(page);
      await shot('dashboard');

      // The site renamed in the console.
      await openSection(page, zh['admin.section.settings'], phone);
      const name = page.getByRole('textbox', { name: /站点名称/ }).first();
      await expect(name).toHaveValue('星火社区');
      await name.fill('Atrium 运营站');
      await page.getByRole('button', { name: zh['admin.save'] }).click();
      await expect(page.locator('[data-admin-flash]')).toHaveText(zh['admin.settings.saved']);
      await expect(page.locator('.admin-brand')).toContainText('Atrium 运营站');
      await noSidewaysScroll(page);
      await shot('settings');

      // The SMS test on the mail tab: a bad number is explained beside its field; without a provider
      // the message goes to the outbox, and the page says so.
      await page.locator('.admin-tabs').getByRole('link', { name: zh['admin.settings.group.mail'] }).click();
      await page.waitForURL('**/admin/settings/mail');
      // A link swapped in by the client router leaves the phone menu folded, as a full load does.
      if (phone) await expect(page.locator('[data-admin-nav]')).not.toHaveAttribute('open');
      const sms = page.locator('section[aria-labelledby="sms-test"]');
      await sms.getByLabel(zh['admin.settings.testSmsTo']).fill('12345');
      await sms.getByRole('button', { name: zh['admin.settings.sendTestSms'] }).click();
      await expect(sms.locator('[data-error-for="to"]')).toHaveText('请输入正确的手机号');
      await sms.getByLabel(zh['admin.settings.testSmsTo']).fill('13800138000');
      await sms.getByRole('button', { name: zh['admin.settings.sendTestSms'] }).click();
      await expect(sms.getByRole('status')).toHaveText(zh['admin.settings.smsTestOutbox']);
      await noSidewaysScroll(page);

      // Alice logs in elsewhere: once with a wrong password, once from her phone.
      const elsewhere = await request.newContext({ extraHTTPHeaders: { origin: srv.url } });
      for (const password of ['wrong-one', 'secret123']) {
        await elsewhere.post(`${srv.url}/api/user/checkIn`, {
          data: { tab: 'login', username: 'alice', password },
          headers: { 'user-agent': 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1' },
        });
      }
      await elsewhere.dispose();

      // A member adjusted.
      await openSection(page, zh['admin.section.members'], phone);
      await page.getByRole('searchbox').or(page.getByPlaceholder(zh['admin.member.search'])).first().fill('alice');
      await page.getByRole('button', { name: zh['admin.search'] }).click();
      await page.getByRole('link', { name: 'alice', exact: true }).click();
      await expect(page.getByRole('heading', { name: 'alice' })).toBeVisible();
      await page.getByLabel(zh['admin.member.amount']).fill('12.50');
      await page.getByLabel(zh['admin.member.memo']).fill('活动奖励');
      await page.getByRole('button', { name: zh['admin.member.apply'] }).click();
      await expect(page.locator('[data-money]')).toHaveText('¥12.50');
      await expect(page.getByRole('cell', { name: '活动奖励' })).toBeVisible();
      // Her login history: newest first, the failure marked.
      const logins = page.locator('section.login-history');
      await expect(logins.getByRole('heading', { name: zhUser['user.logins.title'] })).toBeVisible();
      await expect(logins.locator('tr[data-login]')).toHaveCount(2);
      await expect(logins.locator('tr[data-login]').first()).toContainText(zhUser['user.logins.result.ok']);
      await expect(logins.locator('tr[data-login="wrong_password"]')).toContainText('Safari 17 · iOS');
      const memberUrl = page.url();
      await noSidewaysScroll(page);
      await shot('member');
      await logins.scrollIntoViewIfNeeded();
      await logins.screenshot({ path: join(TMP, `admin-${width}-logins-zh.png`) });

      // A notice published.
      await openSection(page, zh['admin.section.notices'], phone);
      const form = page.locator('section[aria-labelledby="notice-new"]');
      await form.getByLabel(zh['admin.notices.title']).fill('今晚维护');
      await form.getByLabel(zh['admin.notices.content']).fill('23:00 到 23:30 暂停服务。');
      await form.getByRole('button', { name: zh['admin.notices.publish'] }).click();
      await expect(page.getByRole('heading', { name: /今晚维护/ })).toContainText(zh['admin.notices.published']);
      await noSidewaysScroll(page);

      // A report closed.
      await openSection(page, zh['admin.section.reports'], phone);
      const report = page.locator(`[data-report="${site.reportId}"]`);
      await expect(report).toContainText('spam link');
      await report.getByRole('button', { name: zh['admin.reports.dismiss'] }).click();
      await expect(report).toHaveCount(0);
      await noSidewaysScroll(page);

      // A withdrawal paid.
      await openSection(page, zh['admin.section.finance'], phone);
      const withdrawal = page.locator(`[data-withdrawal="${site.withdrawalId}"]`);
      await expect(withdrawal).toContainText('¥200.00');
      await withdrawal.getByRole('button', { name: zh['admin.reject'] }).click();
      await expect(withdrawal.locator('[data-error-for="remark"]')).toHaveText(zh['admin.reasonRequired']);
      await withdrawal.getByLabel(zh['admin.reason']).fill('已转账 流水 42');
      await withdrawal.getByRole('button', { name: zh['admin.finance.pay'] }).click();
      // Paying cannot be undone: the console asks first (issue 28).
      const confirmation = page.getByRole('dialog', { name: zh['admin.confirm.title'] });
      await expect(confirmation).toContainText(zh['admin.confirm.withdrawal']);
      await confirmation.getByRole('button', { name: zh['admin.confirm.ok'] }).click();
      await expect(withdrawal).toHaveCount(0);
      await noSidewaysScroll(page);
      await shot('finance');

      // Everything above is in the audit log.
      await openSection(page, zh['admin.section.audit'], phone);
      for (const action of ['install', 'config:set', 'member:money', 'notice:add', 'report:dismiss', 'withdraw:pay']) {
        await expect(page.locator(`tr[data-audit="${action}"]`).first()).toBeVisible();
      }
      await noSidewaysScroll(page);
      await shot('audit');

      // The member view in English: the same history, in the other language.
      await page.context().addCookies([{ name: 'ba-lang', value: 'en', url: srv.url }]);
      await page.goto(memberUrl);
      const english = page.locator('section.login-history');
      await expect(english.getByRole('heading', { name: en['user.logins.title'] })).toBeVisible();
      await expect(english.locator('tr[data-login="wrong_password"]')).toContainText(en['user.logins.result.wrong_password']);
      await noSidewaysScroll(page);
      await shot('member-en');
      await english.screenshot({ path: join(TMP, `admin-${width}-logins-en.png`) });

      // Alice sees the same attempts on her own security page (change password), and only hers.
      const own = await page.context().browser()!.newContext({ viewport: { width, height: phone ? 844 : 900 }, locale: 'zh-CN' });
      const login = await own.request.post(`${srv.url}/api/user/checkIn`, { data: { tab: 'login', username: 'alice', password: 'secret123' }, headers: { origin: srv.url } });
      expect((await login.json()).code).toBe(1);
      const alice = await own.newPage();
      await alice.goto(`${srv.url}/user/account/changePassword`);
      const mine = alice.locator('section.login-history');
      await expect(mine.getByRole('heading', { name: zhUser['user.logins.title'] })).toBeVisible();
      await expect(mine.locator('tr[data-login]')).toHaveCount(3);
      await expect(mine.locator('tr[data-login="wrong_password"]')).toContainText(zhUser['user.logins.result.wrong_password']);
      await noSidewaysScroll(alice);
      await alice.screenshot({ path: join(TMP, `admin-${width}-own-logins.png`), fullPage: true });
      await own.close();
    });
  });
}
