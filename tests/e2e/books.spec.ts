// Books run in the browser (issue 28 item 6), without the CLI: an administrator creates a book from
// /md with the keyboard, gives it an editor, the editor writes its first page, the console archives
// it (read-only, gone from the index and search) and /md/edit restores it. Both pages pass axe.
import { expect, test, type Browser, type Page } from '@playwright/test';
import { axeViolations, describeViolations } from './axe';
import { ADMIN_GROUP } from '../../src/lib/server/site/seed';
import { atrium, logIn, newMember, readEnv, withLock, type E2eEnv } from './helpers';
import { scaled } from '../helpers/time-scale.mjs';

let env: E2eEnv = { dataDir: '', databaseUrl: null };
test.beforeAll(() => { env = readEnv(); });

async function axeClean(page: Page): Promise<void> {
  expect(describeViolations(await axeViolations(page))).toEqual([]);
}

/** A visitor reading in `lang`: the docs index and search as everyone sees them. */
async function visitor(browser: Browser, lang: 'zh-cn' | 'en'): Promise<Page> {
  const context = await browser.newContext();
  await context.addCookies([{ name: 'ba-lang', value: lang, url: test.info().project.use.baseURL! }]);
  return context.newPage();
}

test('a book is created, given an editor, written, archived and restored without the CLI', async ({ browser }) => {
  test.skip(!env.databaseUrl, 'set TEST_DATABASE_URL to run the member flows (.ci/run does)');
  test.setTimeout(scaled(180_000));
  const s = Date.now().toString(36).slice(-6);
  const boss = `bkb${s}`;
  const writer = `bkw${s}`;
  const name = `field-${s}`;
  const word = `zanderlake${s}`;
  await newMember(env, boss, ADMIN_GROUP);
  await newMember(env, writer);
  const admin = await logIn(env, browser, boss);

  // Create it from /md, with the keyboard.
  await admin.goto('/md');
  await admin.getByRole('link', { name: '管理书籍' }).click();
  await expect(admin).toHaveURL(/\/md\/edit$/);
  await expect(admin.getByRole('heading', { level: 1, name: '管理书籍' })).toBeVisible();
  await axeClean(admin);
  const form = admin.getByRole('region', { name: '新建书籍' });
  await form.getByLabel('书籍标识').focus();
  await admin.keyboard.type(name);
  await admin.keyboard.press('Tab');
  await expect(form.getByLabel('中文标题')).toBeFocused();
  await admin.keyboard.type('野外笔记');
  await admin.keyboard.press('Tab');
  await admin.keyboard.type('Field notes');
  await admin.keyboard.press('Enter');
  const card = admin.locator(`[data-book="${name}"]`);
  await expect(card).toBeVisible();
  await expect(admin.getByRole('status').filter({ hasText: '书籍已创建' })).toBeVisible();
  await expect(card.getByText(boss)).toBeVisible();

  // In the index at once, in each reader's language.
  const zh = await visitor(browser, 'zh-cn');
  await zh.goto('/md');
  await expect(zh.getByRole('link', { name: '野外笔记' })).toBeVisible();
  const en = await visitor(browser, 'en');
  await en.goto('/md');
  await expect(en.getByRole('link', { name: 'Field notes' })).toBeVisible();

  // Give it an editor: the settings open from the keyboard.
  const settings = card.locator('summary', { hasText: '设置' });
  await settings.focus();
  await admin.keyboard.press('Enter');
  await card.getByLabel('添加编辑者（账号）').fill(writer);
  await card.getByLabel('添加编辑者（账号）').press('Enter');
  await expect(admin.locator(`[data-book="${name}"]`).getByRole('button', { name: `移除编辑者 ${writer}` })).toBeVisible();
  await axeClean(admin);

  // The editor writes the first page.
  const editor = await logIn(env, browser, writer);
  await withLock('editor-module', async () => {
    atrium(env, 'module:install', 'editor');
    await editor.goto(`/md/edit/${name}`);
    await expect(editor.locator('[data-testid=doc-editor][data-ready=true]')).toBeVisible({ timeout: scaled(15_000) });
    const first = editor.getByTestId('new-page-form');
    await first.getByLabel('页面名称（用于地址）').fill('day-1');
    await first.getByLabel('标题').fill('第一天');
    await first.getByRole('button', { name: '创建' }).click();
    const content = editor.getByRole('textbox', { name: '内容' });
    await expect(content).toBeVisible();
    await content.fill(`## 营地\n\n湖边有一只苍鹭 ${word}。`);
    await editor.getByTestId('save').click();
    await expect(editor.getByTestId('save-state')).toHaveText('所有修改已保存');
  });
  await zh.goto(`/md/${name}/day-1`);
  await expect(zh.getByText(`湖边有一只苍鹭 ${word}。`)).toBeVisible();
  await zh.goto(`/md/search?q=${word}`);
  await expect(zh.locator(`main a[href*="/md/${name}/day-1"]`).first()).toBeVisible();

  // Archive it from the console: read-only, gone from the index and search.
  await admin.goto('/admin/books');
  await axeClean(admin);
  const consoleCard = admin.locator(`[data-book="${name}"]`);
  await consoleCard.getByRole('button', { name: '归档', exact: true }).click();
  await expect(admin.locator(`[data-book="${name}"]`).getByText('已归档')).toBeVisible();
  await zh.goto('/md');
  await expect(zh.getByRole('heading', { level: 1, name: '文档' })).toBeVisible();
  await expect(zh.getByRole('link', { name: '野外笔记' })).toHaveCount(0);
  await zh.goto(`/md/search?q=${word}`);
  await expect(zh.locator(`main a[href*="/md/${name}/"]`)).toHaveCount(0);
  await zh.goto(`/md/${name}/day-1`);
  await expect(zh.getByRole('note')).toHaveText('这本书已归档：只能阅读，不能编辑。');
  await editor.goto(`/md/edit/${name}/day-1`);
  await expect(editor.getByText('这本书已归档：恢复之前只能阅读，不能编辑')).toBeVisible();
  await expect(editor.getByTestId('doc-editor')).toHaveCount(0);

  // Restore it from /md/edit: back in the index and search, editable again.
  await admin.goto('/md/edit');
  await admin.locator(`[data-book="${name}"]`).getByRole('button', { name: '恢复', exact: true }).click();
  await expect(admin.getByRole('status').filter({ hasText: '书籍已恢复' })).toBeVisible();
  await zh.goto('/md');
  await expect(zh.getByRole('link', { name: '野外笔记' })).toBeVisible();
  await zh.goto(`/md/search?q=${word}`);
  await expect(zh.locator(`main a[href*="/md/${name}/day-1"]`).first()).toBeVisible();
  await zh.goto(`/md/${name}/day-1`);
  await expect(zh.getByRole('note')).toHaveCount(0);
});
