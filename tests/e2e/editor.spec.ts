// The editor module as a writer meets it: task lists continue on Enter with one marker (a marker
// typed again is absorbed), the live preview shows their checkboxes where the bullets would be, an
// empty item is never published as "[ ]", `@username` becomes a link to the member's card, and
// authors are shown with their avatar.
// Needs the e2e server on PostgreSQL (TEST_DATABASE_URL): the CLI and the test share its database.
import { expect, test } from '@playwright/test';
import { atrium as runCli, logIn as logInAs, newMember as addMember, readEnv, withLock, type E2eEnv } from './helpers';
import { scaled } from '../helpers/time-scale.mjs';

let env: E2eEnv = { dataDir: '', databaseUrl: null };
test.beforeAll(() => { env = readEnv(); });

test('task lists, mentions and avatars from the editor to the published post', async ({ browser }) => {
  test.skip(!env.databaseUrl, 'set TEST_DATABASE_URL to run the editor flow (.ci/run does)');
  test.setTimeout(scaled(90_000));
  const suffix = Date.now().toString(36).slice(-6);
  const name = `ed${suffix}`;
  const friend = `fr${suffix}`;
  await addMember(env, name);
  await addMember(env, friend);
  const page = await logInAs(env, browser, name);
  // The market and forum specs uninstall the editor for a while (under this lock), and the API refuses
  // a post meanwhile: the form is loaded and sent while it is surely installed.
  await withLock('editor-module', async () => {
    runCli(env, 'module:install', 'editor');
    await page.goto('/ask/post');
    await expect(page.getByRole('textbox', { name: '标题' })).toBeVisible();
    await page.getByRole('textbox', { name: '标题' }).fill(`任务清单 ${suffix}`);
    const editor = page.getByRole('textbox', { name: '内容' });
    await editor.click();
    await page.getByRole('button', { name: /任务列表/ }).click();
    await editor.pressSequentially('first');
    await editor.press('Enter');
    await editor.pressSequentially('second');
    await editor.press('Enter');
    await expect(editor).toHaveValue('- [ ] first\n- [ ] second\n- [ ] ');
    // A writer who types the marker again keeps one.
    await editor.pressSequentially('- [ ] third');
    await expect(editor).toHaveValue('- [ ] first\n- [ ] second\n- [ ] third');
    await editor.press('Enter');
    await expect(editor).toHaveValue('- [ ] first\n- [ ] second\n- [ ] third\n- [ ] ');

    const previewTab = page.getByRole('tab', { name: '预览' });
    if (await previewTab.isVisible()) await previewTab.click();
    const items = page.locator('.md-editor__preview li');
    await expect(items).toHaveCount(4);
    await expect(items.first()).toHaveText('first');
    expect(await items.first().evaluate((li) => getComputedStyle(li).listStyleType)).toBe('none');
    // The checkbox sits on the line of its text, just left of it, inside the preview.
    const [box, label, pane] = await Promise.all([
      items.first().locator('input').boundingBox(),
      items.first().boundingBox(),
      page.locator('.md-editor__preview').boundingBox(),
    ]);
    expect(box!.x).toBeGreaterThanOrEqual(pane!.x);
    expect(box!.x + box!.width).toBeLessThanOrEqual(label!.x + 4);
    expect(Math.abs(box!.y + box!.height / 2 - (label!.y + label!.height / 2))).toBeLessThan(8);
    await page.screenshot({ path: '/tmp/fitb/editor-preview.png' });

    // The empty last item and a mention, published.
    const writeTab = page.getByRole('tab', { name: '编写' });
    if (await writeTab.isVisible()) await writeTab.click();
    await editor.fill(`${await editor.inputValue()}\n\n谢谢 @${friend} 的建议。`);
    await page.getByRole('button', { name: '发布' }).click();
    await expect(page).toHaveURL(/\/ask\/info\/\d+$/);
  });
  const body = page.locator('#post .markdown-body');
  await expect(body.locator('li.task-item')).toHaveCount(4);
  await expect(body).not.toContainText('[ ]');
  const mention = body.getByRole('link', { name: `@${friend}` });
  await expect(mention).toHaveAttribute('href', /\/user\/card\/\d+$/);
  // A click opens the small member card; its "view profile" link leads to the full card.
  await mention.click();
  await page.locator('.ucard').getByRole('link', { name: '查看主页' }).click();
  await expect(page).toHaveURL(/\/user\/card\/\d+$/);
  await expect(page.getByText(friend).first()).toBeVisible();
  await page.goBack();
  // The author is shown with a (generated) avatar, here and in the list.
  await expect(page.locator('.post-meta .avatar').first()).toHaveText(name[0]!.toUpperCase());
  await page.goto(`/ask/lists/user/${/\d+$/.exec(await page.locator('.post-meta a.by-line').first().getAttribute('href') ?? '')?.[0]}`);
  await expect(page.locator('.post-meta .avatar').first()).toBeVisible();
});
