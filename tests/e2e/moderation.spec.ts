// Issue 28 in Chromium: the console asks before granting the administrators' group (its own dialog,
// in the page's language, driven by the keyboard), and content removed from Reports shows up as
// handled in the reporter's own list in the member center. Its own site and server.
import { expect, test } from '@playwright/test';
import zh from '../../src/lib/i18n/zh-cn/admin';
import en from '../../src/lib/i18n/en/admin';
import zhAsk from '../../src/lib/i18n/zh-cn/ask';
import enAsk from '../../src/lib/i18n/en/ask';
import zhUser from '../../src/lib/i18n/zh-cn/user';
import { prepareAdminSite, type AdminSite } from '../helpers/admin-site';
import { createUser } from '../../src/lib/server/account/users';
import { recordAction } from '../../src/lib/server/admin/audit';
import { PASSWORD, usePrivateSite, withRuntime } from './private-site';

let site: AdminSite;
const ids: Record<string, number> = {};

test.describe('moderation and confirmations', () => {
  test.use({ viewport: { width: 1366, height: 900 } });

  const srv = usePrivateSite('moderation', async (dataDir) => {
    site = await prepareAdminSite({ DATA_DIR: dataDir });
    await withRuntime(dataDir, async (rt) => {
      ids.boss = (await createUser(rt.db, { username: 'boss', email: 'boss@example.com', password: PASSWORD, groupId: 2 })).id;
      ids.carol = (await createUser(rt.db, { username: 'carol', email: 'carol@example.com', password: PASSWORD })).id;
      ids.dave = (await createUser(rt.db, { username: 'dave', email: 'dave@example.com', password: PASSWORD })).id;
      // An audit row with a long target and a long value: the table has to share its width.
      await recordAction(rt.db, { id: ids.boss, username: 'administrator', ip: '127.0.0.1' }, 'config:set', `upload_allowed_mime_types_${'x'.repeat(80)}`, '',
        Array.from({ length: 30 }, (_, i) => `image/type-${i}`).join(', '));
    });
  });

  test('granting the administrators group asks first; Esc keeps things as they were, Enter on Confirm applies', async ({ browser }) => {
    const context = await browser.newContext({ locale: 'zh-CN' });
    const page = await srv.logIn(context, 'boss', 'zh-cn');
    await page.goto(`${srv.url}/admin/members/${ids.carol}`);
    const group = page.locator('.admin-kv dd').nth(3);
    await expect(group).toHaveText(zh['admin.group.default.members']);
    const select = page.getByLabel(zh['admin.member.changeGroup']);
    const save = page.locator('form[data-api="/api/admin/memberGroup"]').getByRole('button', { name: zh['admin.save'] });

    await select.selectOption({ label: zh['admin.group.default.admins'] });
    await save.click();
    const dialog = page.getByRole('dialog', { name: zh['admin.confirm.title'] });
    await expect(dialog).toBeVisible();
    await expect(dialog).toContainText('把 carol 加入管理员组后');
    // Focus starts on the safe answer; Esc closes without applying.
    await expect(dialog.getByRole('button', { name: zh['admin.confirm.cancel'] })).toBeFocused();
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();
    await page.reload();
    await expect(group).toHaveText(zh['admin.group.default.members']);

    await select.selectOption({ label: zh['admin.group.default.admins'] });
    await save.click();
    await expect(dialog).toBeVisible();
    await page.keyboard.press('Tab');
    await expect(dialog.getByRole('button', { name: zh['admin.confirm.ok'] })).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(group).toHaveText(zh['admin.group.default.admins']);

    // Another group needs no confirmation: moving her back applies at once.
    await select.selectOption({ label: zh['admin.group.default.members'] });
    await save.click();
    await expect(group).toHaveText(zh['admin.group.default.members']);
    await expect(dialog).toBeHidden();

    // On an English page: the group names and the dialog in English; Cancel by mouse.
    await context.addCookies([{ name: 'ba-lang', value: 'en', url: srv.url }]);
    await page.goto(`${srv.url}/admin/members/${ids.dave}`);
    await expect(group).toHaveText(en['admin.group.default.members']);
    await page.getByLabel(en['admin.member.changeGroup']).selectOption({ label: en['admin.group.default.admins'] });
    await page.locator('form[data-api="/api/admin/memberGroup"]').getByRole('button', { name: en['admin.save'] }).click();
    const english = page.getByRole('dialog', { name: en['admin.confirm.title'] });
    await expect(english).toContainText('Moving dave into the administrators group');
    await english.getByRole('button', { name: en['admin.confirm.cancel'] }).click();
    await expect(english).toBeHidden();
    await page.reload();
    await expect(group).toHaveText(en['admin.group.default.members']);

    // Console tables at 1366 px wrap at spaces only: names, groups and addresses stay whole.
    const lineCounts = (cells: string) => page.locator(cells).evaluateAll((els) => els.map((el) => {
      const range = document.createRange();
      range.selectNodeContents(el);
      return `${el.textContent?.trim()}: ${new Set(Array.from(range.getClientRects()).map((r) => Math.round(r.top))).size}`;
    }));
    await page.goto(`${srv.url}/admin/audit`);
    const audit = await lineCounts('tr[data-audit] td:nth-child(2), tr[data-audit] td:nth-child(7)');
    expect(audit.length).toBeGreaterThan(0);
    expect(audit.filter((c) => !c.endsWith(': 1'))).toEqual([]);
    await page.goto(`${srv.url}/admin/members`);
    const members = await lineCounts('tbody tr td:nth-child(4)');
    expect(members).toContain(`${en['admin.group.default.admins']}: 1`);
    expect(members.filter((c) => !c.endsWith(': 1'))).toEqual([]);
    await context.close();
  });

  test("content removed from Reports shows as handled in the reporter's member center, in her language", async ({ browser }) => {
    const context = await browser.newContext({ locale: 'zh-CN' });
    const page = await srv.logIn(context, 'boss', 'zh-cn');
    await page.goto(`${srv.url}/admin/reports`);
    const report = page.locator(`[data-report="${site.reportId}"]`);
    await expect(report).toContainText('spam link');
    await report.getByLabel(zh['admin.reports.reasonToAuthor']).fill('广告内容');
    await report.getByRole('button', { name: zh['admin.reports.remove'] }).click();
    const dialog = page.getByRole('dialog', { name: zh['admin.confirm.title'] });
    await expect(dialog).toContainText(zh['admin.confirm.removeContent']);
    await dialog.getByRole('button', { name: zh['admin.confirm.ok'] }).click();
    await expect(report).toHaveCount(0);
    await context.close();

    // Alice reported it: her list says what became of it, in Chinese and in English.
    const own = await browser.newContext({ locale: 'zh-CN' });
    const alice = await srv.logIn(own, 'alice', 'zh-cn');
    await alice.goto(`${srv.url}/user/ask/myReports`);
    await expect(alice.getByRole('heading', { level: 1, name: zhUser['user.menu.ask/myReports'] })).toBeVisible();
    const item = alice.locator('[data-my-report]').first();
    await expect(item).toHaveAttribute('data-status', 'resolved');
    await expect(item).toContainText(zhAsk['ask.myReports.status.resolved']);
    await expect(item).toContainText('spam link');
    // The page is in her member-center menu.
    await expect(alice.getByRole('link', { name: zhUser['user.menu.ask/myReports'] })).toHaveAttribute('aria-current', 'page');
    await own.addCookies([{ name: 'ba-lang', value: 'en', url: srv.url }]);
    await alice.reload();
    await expect(item).toContainText(enAsk['ask.myReports.status.resolved']);
    // And the message center told her.
    await alice.goto(`${srv.url}/user/messageCenter`);
    await expect(alice.getByText(enAsk['ask.notice.reportResolved'])).toBeVisible();
    await own.close();
  });
});
