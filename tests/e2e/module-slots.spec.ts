// Slots in Chromium (issue 26): an administrator installs a module whose client components fill the
// post footer, the home page, the docs aside, the console, the member center (its own page and menu
// entry, a note under the menu) and the editor's toolbar; a visitor on a phone sees them render
// with the page's own React (a hook keeps state), a component that throws leaves its place empty and
// the page whole, nothing scrolls sideways, axe finds nothing; uninstalled, they are gone.
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { axeViolations, describeViolations } from './axe';
import { eq } from 'drizzle-orm';
import { createUser } from '../../src/lib/server/account/users';
import { askCategory } from '../../src/lib/server/db/schema';
import { createPost } from '../../src/lib/server/ask/posts';
import { installModule } from '../../src/lib/server/modules/installs';
import { ADMIN_GROUP } from '../../src/lib/server/site/seed';
import { fixturePackage, publishPackage } from '../helpers/module-package';
import { scaled } from '../helpers/time-scale.mjs';
import { htmlErrors } from './html-validate';
import { PASSWORD, usePrivateSite, withRuntime } from './private-site';

const FIXTURE = join(import.meta.dirname, '../fixtures/modules/cheer');
let postId = 0;

const srv = usePrivateSite('slots', (dataDir) => withRuntime(dataDir, async (rt) => {
  await rt.site.set('user_login_captcha', '0');
  const boss = await createUser(rt.db, { username: 'boss', email: 'boss@example.com', password: PASSWORD, groupId: ADMIN_GROUP });
  const dev = await createUser(rt.db, { username: 'dev', email: 'dev@example.com', password: PASSWORD });
  await publishPackage(rt, dev.id, fixturePackage(FIXTURE), 'Cheer');
  // The editor runs, for the toolbar component above it.
  await installModule(rt.db, 'editor', boss.id);
  const [discussion] = await rt.db.select({ id: askCategory.id }).from(askCategory).where(eq(askCategory.slug, 'discussion'));
  postId = (await createPost(rt.db, boss.id, { title: 'A post with a footer', content: 'Read me, then cheer.', category_id: discussion!.id, tags: [] } as never)).id;
}));

test('a module fills the post footer, the home page, the docs aside, the console, the member center and the editor toolbar; a failing component leaves the page whole', async ({ browser }) => {
  test.setTimeout(scaled(180_000));
  const boss = await (await browser.newContext({ viewport: { width: 1366, height: 900 } })).newPage();
  await srv.logIn(boss, 'boss', 'en');
  await boss.goto(`${srv.url}/modules/cheer`);
  // The administrator is told the module runs code in members' browsers before it is installed.
  const asked = new Promise<string>((resolve) => boss.once('dialog', (d) => { resolve(d.message()); void d.accept(); }));
  await boss.getByRole('button', { name: 'Install on this site' }).click();
  expect(await asked).toContain('Runs code in members\' browsers');
  await expect(boss.getByText('Installed version 1.0.0')).toBeVisible();

  // A visitor on a phone, in Chinese.
  const visitor = await (await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'zh-CN' })).newPage();
  const errors: string[] = [];
  visitor.on('pageerror', (e) => errors.push(e.message));
  await visitor.goto(`${srv.url}/ask/info/${postId}`);
  const cheer = visitor.locator('[data-slot="post.footer"] .cheer-button');
  await expect(cheer).toHaveText('喝彩 0');
  await cheer.click();
  await expect(cheer).toHaveText('喝彩 1'); // useState on the page's React
  await expect(cheer).toHaveCSS('font-weight', '700'); // the module's stylesheet, linked in the head
  await expect(visitor.locator('[data-slot="post.footer"] [data-module="cheer"]')).toHaveAttribute('aria-label', '喝彩');
  expect(await visitor.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
  expect(describeViolations(await axeViolations(visitor))).toEqual([]);

  const home = await visitor.goto(`${srv.url}/`);
  // Two components of one module: two regions with distinct names (html-validate's unique-landmark).
  expect(await htmlErrors(await home!.text(), 'home')).toEqual([]);
  // Loaded on demand: the section, after the feed, hydrates when it scrolls into view.
  await visitor.locator('[data-slot="home.section"]').scrollIntoViewIfNeeded();
  await expect(visitor.locator('.cheer-home')).toHaveText('来自模块的问候');
  await expect(visitor.getByRole('region', { name: '喝彩 2' })).toHaveCount(1);
  // The component that throws is caught by its boundary: its place is empty and hidden, the page whole.
  await expect(visitor.locator('[data-slot="home.section"] [data-module-state="failed"]')).toHaveCount(1);
  await expect(visitor.locator('[data-slot="home.section"] [data-module-state="failed"]')).toBeHidden();
  await expect(visitor.locator('#home-latest')).toBeVisible();
  expect(errors).toEqual([]);

  // Beside a docs page (the aside column shows from desktop widths), in English.
  await boss.goto(`${srv.url}/md/guide-en/install`);
  await expect(boss.locator('.doc-toc .cheer-docs')).toHaveText('guide-en/install');
  await boss.goto(`${srv.url}/admin/modules`);
  await boss.locator('[data-slot="admin.section"]').scrollIntoViewIfNeeded();
  await expect(boss.locator('[data-slot="admin.section"] .cheer-admin')).toHaveText('Cheer settings');

  // The member center: the module's page in the menu under its name, a note under the menu; its page
  // mounts the component (a hook keeps state) and contains the one that throws.
  const bossErrors: string[] = [];
  boss.on('pageerror', (e) => bossErrors.push(e.message));
  const profile = await boss.goto(`${srv.url}/user/account/profile`);
  expect(await htmlErrors(await profile!.text(), 'profile')).toEqual([]);
  // Under the menu's last folder, loaded when it scrolls into view.
  await boss.locator('#member-menu [data-slot="user.menu"]').scrollIntoViewIfNeeded();
  await expect(boss.locator('#member-menu [data-slot="user.menu"] .cheer-menu')).toHaveText('Cheers today');
  await boss.locator('#member-menu').getByRole('link', { name: 'Cheer', exact: true }).click();
  await expect(boss).toHaveURL(`${srv.url}/user/m/cheer`);
  expect(await htmlErrors(await (await boss.request.get(`${srv.url}/user/m/cheer`)).text(), 'module page')).toEqual([]);
  await expect(boss.getByRole('heading', { level: 1, name: 'Cheer' })).toBeVisible();
  const mine = boss.locator('[data-slot="user.page"] .cheer-page .cheer-button');
  await expect(mine).toHaveText('Cheer 0');
  await mine.click();
  await expect(mine).toHaveText('Cheer 1');
  await expect(boss.locator('[data-slot="user.page"] [data-module-state="failed"]')).toHaveCount(1);
  await expect(boss.locator('[data-slot="user.page"] [data-module-state="failed"]')).toBeHidden();
  expect(describeViolations(await axeViolations(boss))).toEqual([]);

  // The editor's toolbar: the module's button puts its text at the caret; the one that throws leaves the editor working.
  const form = await boss.goto(`${srv.url}/ask/post`);
  expect(await htmlErrors(await form!.text(), 'post form')).toEqual([]);
  await expect(boss.locator('[data-editor="module"]')).toBeVisible();
  const text = boss.locator('[data-editor="module"] textarea');
  await text.fill('Hello  world');
  await text.evaluate((el: HTMLTextAreaElement) => el.setSelectionRange(6, 6));
  await boss.locator('[data-slot="editor.toolbar"]').getByRole('button', { name: 'Insert a cheer' }).click();
  await expect(text).toHaveValue('Hello **cheer** world');
  await expect(text).toBeFocused();
  await boss.keyboard.type('!');
  await expect(text).toHaveValue('Hello **cheer**! world');
  await expect(boss.locator('[data-slot="editor.toolbar"] [data-module-state="failed"]')).toHaveCount(1);
  await expect(boss.locator('[data-slot="editor.toolbar"] [data-module-state="failed"]')).toBeHidden();
  expect(bossErrors).toEqual([]);

  // Uninstalled: the places are gone, without a restart.
  await boss.goto(`${srv.url}/modules/cheer`);
  boss.once('dialog', (d) => void d.accept());
  await boss.getByRole('button', { name: 'Uninstall' }).click();
  await expect(boss.getByText('This module is not installed on this site.')).toBeVisible();
  await visitor.goto(`${srv.url}/ask/info/${postId}`);
  await expect(visitor.locator('#post')).toBeVisible();
  await expect(visitor.locator('[data-slot]')).toHaveCount(0);
  expect(await visitor.locator('script[type=importmap]').count()).toBe(0);
  await boss.goto(`${srv.url}/user/account/profile`);
  await expect(boss.locator('#member-menu a[href="/user/m/cheer"]')).toHaveCount(0);
  await expect(boss.locator('[data-slot]')).toHaveCount(0);
});
