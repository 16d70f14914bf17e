// The forum as members use it: the editor installed by CLI, a post with an image and a code block,
// a reply from a second account, accepting and collecting it, finding it by a Chinese keyword.
// Needs the e2e server on PostgreSQL (TEST_DATABASE_URL): the CLI and the test share its database.
import { expect, test } from '@playwright/test';
import { atrium as runCli, logIn as logInAs, newMember as addMember, readEnv, withLock, type E2eEnv } from './helpers';
import { scaled } from '../helpers/time-scale.mjs';

let env: E2eEnv = { dataDir: '', databaseUrl: null };
test.beforeAll(() => { env = readEnv(); });
const atrium = (...args: string[]): string => runCli(env, ...args);
const newMember = (name: string): Promise<void> => addMember(env, name);
const logIn = (browser: Parameters<typeof logInAs>[1], name: string) => logInAs(env, browser, name);

// A 1×1 PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

test('write, reply, accept, collect and find a post', async ({ browser }) => {
  test.skip(!env.databaseUrl, 'set TEST_DATABASE_URL to run the forum flow (.ci/run does)');
  test.setTimeout(scaled(120_000));
  const suffix = Date.now().toString(36).slice(-6);
  const asker = `ask${suffix}`;
  const helper = `hlp${suffix}`;
  await newMember(asker);
  await newMember(helper);

  const page = await logIn(browser, asker);
  // Other specs use the editor too: they wait while it is uninstalled here. The post and the reply are
  // written under the same lock, as the API refuses them while the editor is uninstalled.
  const title = `数据库连接池配置 ${suffix}`;
  const other = await withLock('editor-module', async () => {
    atrium('module:uninstall', 'editor');
    await page.goto('/ask/post');
    await expect(page.getByRole('heading', { name: '请先安装编辑器' })).toBeVisible();
    await expect(page.getByRole('textbox', { name: '标题' })).toHaveCount(0);
    expect(atrium('module:install', 'editor')).toContain('Installed editor');
    // Reloaded before another spec may uninstall it again (the market spec, under this lock).
    await page.reload();
    await expect(page.getByRole('textbox', { name: '标题' })).toBeVisible();
    await page.getByRole('textbox', { name: '标题' }).fill(title);
    await page.getByLabel('分类').selectOption({ label: '问答' });
    await page.getByLabel('标签').fill('postgresql 数据库');
    const editor = page.getByRole('textbox', { name: '内容' });
    await editor.fill('生产环境的连接池应该多大？\n\n```ts\nconst pool = new Pool({ max: 20 });\n```\n\n');
    await page.locator('.md-editor input[type=file]').setInputFiles({ name: 'diagram.png', mimeType: 'image/png', buffer: PNG });
    await expect(editor).toHaveValue(/!\[diagram\.png\]\(\/storage\/[^)]+\.png\)/, { timeout: scaled(15_000) });
    // Side by side on a wide screen; Write/Preview tabs on a narrow one.
    const previewTab = page.getByRole('tab', { name: '预览' });
    if (await previewTab.isVisible()) await previewTab.click();
    await expect(page.locator('.md-editor__preview pre')).toContainText('new Pool');
    await page.getByRole('button', { name: '发布' }).click();
    await expect(page).toHaveURL(/\/ask\/info\/\d+$/);
    const postUrl = page.url();
    await expect(page.getByRole('heading', { level: 1, name: title })).toBeVisible();
    await expect(page.locator('#post .markdown-body pre.shiki')).toContainText('new Pool');
    await expect(page.locator('#post .markdown-body img')).toHaveAttribute('src', /\/storage\/.+\.png$/);

    // A second account replies; the reply form hydrates when they start typing.
    const second = await logIn(browser, helper);
    await second.goto(postUrl);
    const reply = second.getByRole('textbox', { name: '写回复' });
    await reply.click();
    await reply.fill('建议从 CPU 核数 × 2 开始，再按监控调整。');
    await second.getByRole('button', { name: '发表回复' }).click();
    await expect(second.locator('.reply .markdown-body').filter({ hasText: 'CPU 核数' })).toBeVisible();
    return second;
  });

  // The asker accepts it and collects the post.
  await page.reload();
  const answer = page.locator('.reply').filter({ hasText: 'CPU 核数' });
  await answer.getByRole('button', { name: '采纳' }).click();
  await expect(page.locator('.reply.accepted').filter({ hasText: 'CPU 核数' })).toBeVisible();
  await expect(page.locator('.reply.accepted .badge-solved')).toHaveText('已采纳');
  // Badges in the success colour (light theme: #116329, AA on its tint), never the error colour, with a gap after.
  const successColour = 'rgb(17, 99, 41)';
  expect(await page.locator('.reply.accepted .badge-solved').evaluate((el) => getComputedStyle(el).backgroundColor)).toBe(successColour);
  await page.reload();
  const solved = page.locator('#post .post-heading .badge-solved');
  await expect(solved).toHaveText('已解决');
  expect(await solved.evaluate((el) => [getComputedStyle(el).backgroundColor, parseFloat(getComputedStyle(el).marginRight) > 0])).toEqual([successColour, true]);
  // The reply box's heading names the editor; its label is there for screen readers only (the editor
  // module's, or the plain box's that stands in until the box is first used and the module loaded).
  expect((await page.locator('.reply-box :is(.md-editor__label, .editor-slot__plain > label)').boundingBox())!.width).toBeLessThanOrEqual(1);
  await page.getByRole('button', { name: '收藏' }).click();
  await expect(page.locator('#post [data-ask="collect"]')).toHaveAttribute('aria-pressed', 'true');
  await page.goto('/user/ask/collect');
  await expect(page.getByRole('link', { name: title })).toBeVisible();

  // Found by a Chinese keyword from the sidebar's search box.
  await page.goto('/ask');
  await page.getByRole('searchbox').fill('连接池');
  await page.getByRole('searchbox').press('Enter');
  await expect(page).toHaveURL(/\/ask\/search\//);
  await expect(page.locator('.post-title mark').first()).toHaveText('连接池');
  await expect(page.getByRole('link', { name: title })).toBeVisible();
  await other.context().close();
  await page.context().close();
});
