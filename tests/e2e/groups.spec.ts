// Groups in the console (issue 28): in Chromium, an administrator creates a "Moderators" group
// holding only the reports rules with the rule picker (children bring their parents), moves a
// member into it, and that member can handle reports but meets the permission page everywhere
// else in the member center, its links gone. Then, in the Chinese console, the members group loses
// the balance page, and a member (in English) meets the permission page and a 401 at once.
import { expect, test } from '@playwright/test';
import admin from '../../src/lib/i18n/en/admin';
import user from '../../src/lib/i18n/en/user';
import zhUser from '../../src/lib/i18n/zh-cn/user';
import zhAdmin from '../../src/lib/i18n/zh-cn/admin';
import { createUser } from '../../src/lib/server/account/users';
import { ADMIN_GROUP } from '../../src/lib/server/site/seed';
import { scaled } from '../helpers/time-scale.mjs';
import { PASSWORD, usePrivateSite, withRuntime } from './private-site';

let miaId = 0;

const srv = usePrivateSite('groups', (dataDir) => withRuntime(dataDir, async (rt) => {
  await rt.site.set('user_login_captcha', '0');
  await createUser(rt.db, { username: 'boss', email: 'boss@example.com', password: PASSWORD, groupId: ADMIN_GROUP });
  miaId = (await createUser(rt.db, { username: 'mia', email: 'mia@example.com', password: PASSWORD })).id;
  await createUser(rt.db, { username: 'leo', email: 'leo@example.com', password: PASSWORD });
}));

test('an administrator creates a Moderators group and moves a member into it; the member handles reports and nothing else', async ({ browser }) => {
  test.setTimeout(scaled(120_000));
  const bossPage = await (await browser.newContext()).newPage();
  await srv.logIn(bossPage, 'boss', 'en');
  await bossPage.goto(`${srv.url}/admin/groups`);
  await expect(bossPage.getByRole('heading', { level: 1, name: admin['admin.section.groups'] })).toBeVisible();
  // The default groups carry their English names on an English page.
  await expect(bossPage.getByRole('heading', { level: 2, name: /^Members #1/ })).toBeVisible();
  await expect(bossPage.getByRole('heading', { level: 2, name: /^Administrators #2/ })).toBeVisible();

  await bossPage.getByText(admin['admin.groups.create'], { exact: true }).click();
  const form = bossPage.locator('form[data-api="/api/admin/groupCreate"]');
  await form.getByLabel(admin['admin.groups.name']).fill('版主');
  await form.getByLabel(admin['admin.groups.nameEn']).fill('Moderators');
  const box = (rule: keyof typeof user & `user.menu.${string}`) => form.getByRole('checkbox', { name: `${user[rule]} ${rule.slice('user.menu.'.length)} ·`, exact: false });
  await box('user.menu.admin/reports').check();
  await box('user.menu.ask/moderate').check();
  // A child checked brings its parents: the reports menu, its directory, the console root.
  await expect(box('user.menu.ask/reports')).toBeChecked();
  await expect(box('user.menu.ask')).toBeChecked();
  await expect(box('user.menu.admin')).toBeChecked();
  await expect(box('user.menu.account/balance')).not.toBeChecked();
  await form.getByRole('button', { name: admin['admin.groups.createSubmit'] }).click();
  await expect(bossPage.getByRole('heading', { level: 2, name: /^Moderators #\d+/ })).toBeVisible();
  await expect(bossPage.getByText(admin['admin.groups.created'])).toBeVisible();

  // The member moved into it from their page in the console.
  await bossPage.goto(`${srv.url}/admin/members/${miaId}`);
  const move = bossPage.locator('form[data-api="/api/admin/memberGroup"]');
  await move.getByLabel(admin['admin.member.changeGroup']).selectOption({ label: 'Moderators' });
  await move.getByRole('button', { name: admin['admin.save'] }).click();
  await expect(bossPage.getByRole('definition').filter({ hasText: /^Moderators$/ })).toBeVisible();

  // The member, in Chinese: reports open, the balance page refused with its link gone.
  const miaPage = await (await browser.newContext()).newPage();
  await srv.logIn(miaPage, 'mia', 'zh-cn');
  const reports = await miaPage.goto(`${srv.url}/user/ask/reports`);
  expect(reports?.status()).toBe(200);
  const menu = miaPage.locator('#member-menu');
  await expect(menu.getByRole('link', { name: zhUser['user.menu.ask/reports'] })).toBeVisible();
  await expect(menu.getByRole('link', { name: zhUser['user.menu.account/balance'] })).toHaveCount(0);
  const balance = await miaPage.goto(`${srv.url}/user/account/balance`);
  expect(balance?.status()).toBe(401);
  await expect(miaPage.getByRole('heading', { level: 1, name: zhUser['user.noPermission'] })).toBeVisible();
  await expect(miaPage.getByText(zhUser['user.noPermissionLead'])).toBeVisible();
  const reply = await miaPage.request.get(`${srv.url}/api/account/balance`);
  expect((await reply.json()).code).toBe(401);
  expect((await miaPage.goto(`${srv.url}/admin/reports`))?.status()).toBe(200);
  expect((await (await miaPage.request.get(`${srv.url}/api/admin/members`)).json()).code).toBe(401);
});

test('an administrator takes the balance page away from the members group in Chinese; a member loses it at once', async ({ browser }) => {
  test.setTimeout(scaled(120_000));
  const leoPage = await (await browser.newContext()).newPage();
  await srv.logIn(leoPage, 'leo', 'en');
  expect((await leoPage.goto(`${srv.url}/user/account/balance`))?.status()).toBe(200);

  const bossPage = await (await browser.newContext()).newPage();
  await srv.logIn(bossPage, 'boss', 'zh-cn');
  await bossPage.goto(`${srv.url}/admin/groups`);
  const members = bossPage.locator('section').filter({ has: bossPage.getByRole('heading', { level: 2, name: /^默认分组 #1/ }) });
  await members.locator('details').filter({ has: bossPage.locator('summary', { hasText: zhAdmin['admin.groups.editRules'] }) }).locator('summary').click();
  const form = members.locator('form[data-api="/api/admin/groups"]');
  const balance = form.getByRole('checkbox', { name: `${zhUser['user.menu.account/balance']} account/balance ·`, exact: false });
  await expect(balance).toBeChecked();
  await balance.uncheck();
  await form.getByRole('button', { name: zhAdmin['admin.groups.save'] }).click();
  await expect(bossPage.getByText(zhAdmin['admin.groups.saved'])).toBeVisible();

  // Without a restart: the page answers the permission page, the API 401, the menu link is gone.
  const refused = await leoPage.goto(`${srv.url}/user/account/balance`);
  expect(refused?.status()).toBe(401);
  await expect(leoPage.getByRole('heading', { level: 1, name: user['user.noPermission'] })).toBeVisible();
  expect((await (await leoPage.request.get(`${srv.url}/api/account/balance`)).json()).code).toBe(401);
  await leoPage.goto(`${srv.url}/user/account/overview`);
  await expect(leoPage.locator('#member-menu').getByRole('link', { name: user['user.menu.account/balance'] })).toHaveCount(0);
});
