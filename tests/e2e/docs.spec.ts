// Documents as readers and editors use them: the table of contents and prev/next, search that
// jumps to a heading, editing with live preview, two editors meeting in the merge view, restoring
// a revision. Needs the e2e server on PostgreSQL (TEST_DATABASE_URL), like the other member flows.
import { expect, test, type Page } from '@playwright/test';
import { ADMIN_GROUP } from '../../src/lib/server/site/seed';
import { atrium, logIn, newMember, readEnv, withLock, type E2eEnv } from './helpers';
import { scaled } from '../helpers/time-scale.mjs';

let env: E2eEnv = { dataDir: '', databaseUrl: null };
test.beforeAll(() => { env = readEnv(); });

test('read a book: table of contents, previous and next, search to a heading', async ({ page }) => {
  await page.goto('/md');
  await page.getByRole('link', { name: /Atrium 使用指南/ }).first().click();
  await expect(page).toHaveURL(/\/md\/guide\/index$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('概览');
  const toc = page.getByRole('navigation', { name: '本页目录' });
  await toc.getByRole('link', { name: '从哪里开始' }).click();
  await expect(page).toHaveURL(/#%E4%BB%8E|#从哪里开始/);
  await expect(page.getByRole('heading', { name: '从哪里开始' })).toBeInViewport();
  await page.getByRole('link', { name: /下一页/ }).click();
  await expect(page).toHaveURL(/\/md\/guide\/install$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('安装');
  await page.getByRole('link', { name: /上一页/ }).click();
  await expect(page).toHaveURL(/\/md\/guide\/index$/);

  const search = page.getByRole('searchbox').first();
  await search.fill('站点设置');
  await search.press('Enter');
  await expect(page).toHaveURL(/\/md\/search\?q=/);
  const hit = page.locator('main a[href*="/md/guide/configuration#"]').first();
  await expect(hit).toBeVisible();
  await hit.click();
  await expect(page).toHaveURL(/\/md\/guide\/configuration#/);
  await expect(page.getByRole('heading', { name: '站点设置' })).toBeInViewport();
});

async function openEditor(page: Page, path: string): Promise<void> {
  await page.goto(path);
  await expect(page.locator('[data-testid=doc-editor][data-ready=true]')).toBeVisible({ timeout: scaled(15_000) });
}

test('edit with live preview, meet in the merge view, restore a revision', async ({ browser }) => {
  test.skip(!env.databaseUrl, 'set TEST_DATABASE_URL to run the editor flows (.ci/run does)');
  test.setTimeout(scaled(120_000));
  const suffix = Date.now().toString(36).slice(-6);
  await newMember(env, `eda${suffix}`, ADMIN_GROUP);
  await newMember(env, `edb${suffix}`, ADMIN_GROUP);
  const first = await logIn(env, browser, `eda${suffix}`);
  const second = await logIn(env, browser, `edb${suffix}`);
  // The forum spec uninstalls the editor for a moment: take turns.
  await withLock('editor-module', async () => {
    atrium(env, 'module:install', 'editor');
    await openEditor(first, '/md/edit/guide/cli');
    await openEditor(second, '/md/edit/guide/cli');
    const original = await first.getByRole('textbox', { name: '内容' }).inputValue();

    // Live preview, then save with a message.
    const content = first.getByRole('textbox', { name: '内容' });
    await content.press('Control+End');
    await content.pressSequentially('\n\n## 端到端小节\n\n预览里立刻出现的句子。');
    await expect(first.locator('.md-editor__preview').getByRole('heading', { name: '端到端小节' })).toBeVisible();
    await first.getByLabel('修改说明（可选）').fill('e2e 修改');
    await first.getByTestId('save').click();
    await expect(first.getByTestId('save-state')).toHaveText('所有修改已保存');
    const reader = await browser.newPage();
    await reader.goto('/md/guide/cli');
    await expect(reader.getByRole('heading', { name: '端到端小节' })).toBeVisible();
    await reader.close();

    // The second editor started from the old revision: saving shows both versions instead of overwriting.
    const other = second.getByRole('textbox', { name: '内容' });
    await other.press('Control+Home');
    await other.pressSequentially('第二位编辑的开头。\n\n');
    await second.getByTestId('save').click();
    const merge = second.getByTestId('merge-view');
    await expect(merge).toBeVisible();
    await expect(merge.getByRole('heading', { name: '在你编辑期间，有人保存了这个页面' })).toBeVisible();
    await expect(second.getByTestId('merge-theirs')).toContainText('预览里立刻出现的句子。');
    await expect(second.getByTestId('merge-mine')).toHaveValue(/^第二位编辑的开头。/);
    await second.getByTestId('merge-keep-mine').click();
    await expect(merge).toHaveCount(0);
    await expect(second.getByTestId('save-state')).toHaveText('所有修改已保存');

    // History: restore the first revision; the editor shows the original text again.
    await first.reload();
    await expect(first.locator('[data-testid=doc-editor][data-ready=true]')).toBeVisible({ timeout: scaled(15_000) });
    await first.getByTestId('history-toggle').click();
    const rows = first.getByTestId('history-row');
    await expect(rows).toHaveCount(3);
    first.once('dialog', (d) => { void d.accept(); });
    await rows.last().getByRole('button', { name: /恢复/ }).click();
    await expect(first.getByRole('textbox', { name: '内容' })).toHaveValue(original, { timeout: scaled(10_000) });
  });
  await first.context().close();
  await second.context().close();
});
