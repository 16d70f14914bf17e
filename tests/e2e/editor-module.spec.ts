// The editor as a module, in Chromium, on a fresh site of its own (issue 26): without the editor
// module the post page, the reply box, the docs editor and the developer studio's module form say
// "Please install editor" in both languages and load no module code; the administrator installs it
// from /modules/editor after reading that it runs code in members' browsers; the forms then load
// the editor from the package's hashed URL (React and the client SDK through the page's import map)
// and it works; an editor file that fails to load leaves a plain box that keeps what is typed.
import { expect, test, type Page } from '@playwright/test';
import { eq } from 'drizzle-orm';
import { createUser } from '../../src/lib/server/account/users';
import { askCategory, developer } from '../../src/lib/server/db/schema';
import { createPost } from '../../src/lib/server/ask/posts';
import { ADMIN_GROUP } from '../../src/lib/server/site/seed';
import { scaled } from '../helpers/time-scale.mjs';
import { PASSWORD, usePrivateSite, withRuntime } from './private-site';

let postId = 0;

const srv = usePrivateSite('editor-module', (dataDir) => withRuntime(dataDir, async (rt) => {
  await rt.site.set('user_login_captcha', '0');
  await createUser(rt.db, { username: 'boss', email: 'boss@example.com', password: PASSWORD, groupId: ADMIN_GROUP });
  const dev = await createUser(rt.db, { username: 'dev', email: 'dev@example.com', password: PASSWORD });
  const t = Math.floor(Date.now() / 1000);
  await rt.db.insert(developer).values({ userId: dev.id, realName: '张三', idNumber: '11010519491231002X', mobile: '13800138000', email: 'dev@example.com', province: '110000', status: 'approved', createTime: t, updateTime: t });
  const [discussion] = await rt.db.select({ id: askCategory.id }).from(askCategory).where(eq(askCategory.slug, 'discussion'));
  postId = (await createPost(rt.db, dev.id, { title: 'Written before', content: 'Saved **before** any editor.', category_id: discussion!.id, tags: [] } as never)).id;
}));

/** The module files a page asked for while `fn` ran. */
async function moduleRequests(page: Page, fn: () => Promise<void>): Promise<string[]> {
  const seen: string[] = [];
  const listen = (r: { url(): string }): void => { if (r.url().includes('/_modules/')) seen.push(new URL(r.url()).pathname); };
  page.on('request', listen);
  try {
    await fn();
  } finally {
    page.off('request', listen);
  }
  return seen;
}

const TEXT = {
  'zh-cn': { missing: '请先安装编辑器' },
  en: { missing: 'Please install editor' },
} as const;

test('without the editor every place that writes markdown says so; installed from the market, the forms load it from its package', async ({ browser }) => {
  test.setTimeout(scaled(180_000));
  for (const lang of ['zh-cn', 'en'] as const) {
    const words = TEXT[lang];
    const boss = await srv.logIn(await browser.newContext(), 'boss', lang);
    const dev = await srv.logIn(await browser.newContext(), 'dev', lang);
    const asked = await moduleRequests(boss, async () => {
      await boss.goto(`${srv.url}/ask/post`);
      await expect(boss.getByRole('heading', { name: words.missing })).toBeVisible();
      await boss.goto(`${srv.url}/ask/info/${postId}`);
      await expect(boss.locator('#post .markdown-body strong')).toHaveText('before');
      await expect(boss.locator('.reply-box').getByRole('heading', { name: words.missing })).toBeVisible();
      await boss.goto(`${srv.url}/md/edit/guide`);
      await expect(boss.getByRole('heading', { name: words.missing })).toBeVisible();
    });
    const devAsked = await moduleRequests(dev, async () => {
      await dev.goto(`${srv.url}/user/developer/modules?new=1`);
      await expect(dev.locator('[data-editor="missing"]').first()).toContainText(words.missing);
      await expect(dev.locator('[data-editor="missing"]')).toHaveCount(2);
    });
    expect([...asked, ...devAsked]).toEqual([]);
    expect(await boss.locator('script[type="importmap"]').count()).toBe(0);
    await boss.context().close();
    await dev.context().close();
  }

  // The administrator installs it from its market page, after reading what it asks for.
  const boss = await srv.logIn(await browser.newContext(), 'boss', 'en');
  await boss.goto(`${srv.url}/modules/editor`);
  await expect(boss.locator('.install-capabilities [data-capability="client:code"]')).toHaveText('Runs code in members\' browsers');
  const question = new Promise<string>((resolve) => boss.once('dialog', (d) => { resolve(d.message()); void d.accept(); }));
  await boss.getByRole('button', { name: 'Install on this site' }).click();
  expect(await question).toBe('Install Atrium Editor on this site? It asks for: Runs code in members\' browsers.');
  await expect(boss.getByText('Installed version 1.0.0')).toBeVisible();

  // The post form loads the editor from the package, React and the SDK from the import map, also
  // when the page is reached by the in-app router (the import map arrives with the new head).
  const loaded = await moduleRequests(boss, async () => {
    await boss.goto(`${srv.url}/ask`);
    await boss.getByRole('link', { name: 'New post' }).first().click();
    await expect(boss).toHaveURL(/\/ask\/post$/);
    await expect(boss.getByRole('toolbar', { name: 'Formatting' })).toBeVisible();
  });
  expect(loaded).toEqual(expect.arrayContaining([
    expect.stringMatching(/^\/_modules\/editor\/1\.0\.0-[0-9a-f]{16}\/client\.mjs$/),
    expect.stringMatching(/^\/_modules\/editor\/1\.0\.0-[0-9a-f]{16}\/editor\.css$/),
    expect.stringMatching(/^\/_modules\/_site\/[0-9a-f]{16}\/react\.mjs$/),
    expect.stringMatching(/^\/_modules\/_site\/[0-9a-f]{16}\/atrium-client\.mjs$/),
  ]));
  const editor = boss.getByRole('textbox', { name: 'Content' });
  await editor.click();
  await boss.getByRole('button', { name: /^Bold/ }).click();
  await editor.pressSequentially('strong');
  await expect(editor).toHaveValue('**strong**');
  const previewTab = boss.getByRole('tab', { name: 'Preview' });
  if (await previewTab.isVisible()) await previewTab.click();
  await expect(boss.locator('.md-editor__preview strong')).toHaveText('strong');

  // The reply box, the docs editor and the studio's forms have it too.
  await boss.goto(`${srv.url}/ask/info/${postId}`);
  await boss.locator('.reply-box').click();
  await expect(boss.locator('.reply-box').getByRole('toolbar', { name: 'Formatting' })).toBeVisible();
  await boss.goto(`${srv.url}/md/edit/guide`);
  await expect(boss.getByRole('toolbar', { name: 'Formatting' })).toBeVisible();
  const dev = await srv.logIn(await browser.newContext(), 'dev', 'zh-cn');
  await dev.goto(`${srv.url}/user/developer/modules?new=1`);
  await expect(dev.getByRole('toolbar', { name: '格式' })).toHaveCount(2);

  // A module file that does not load breaks nothing: a plain box, and what is typed is kept and sent.
  const broken = await srv.logIn(await browser.newContext(), 'boss', 'en');
  await broken.route('**/_modules/editor/**', (route) => route.abort());
  await broken.goto(`${srv.url}/ask/post`);
  await expect(broken.getByText('The editor could not be loaded.', { exact: false })).toBeVisible();
  await broken.getByRole('textbox', { name: 'Content' }).fill('Plain text still works');
  await broken.getByRole('textbox', { name: 'Title' }).fill('Sent without the editor script');
  await broken.getByRole('button', { name: 'Publish' }).click();
  await expect(broken).toHaveURL(/\/ask\/info\/\d+$/);
  await expect(broken.locator('#post .markdown-body')).toContainText('Plain text still works');
});
