// The math module's way into a site's market, in Chromium: a developer packs the built module folder
// (what `module:pack dist/modules/math` does), uploads it in the developer area, submits it; the
// reviewer's page shows its manifest and what it asks for, in words; approval pins its sha256; the
// administrator installs it from its market page and a post shows MathML.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { expect, test, type Page } from '@playwright/test';
import { eq } from 'drizzle-orm';
import { createUser } from '../../src/lib/server/account/users';
import { askCategory, developer } from '../../src/lib/server/db/schema';
import { createPost } from '../../src/lib/server/ask/posts';
import { installModule } from '../../src/lib/server/modules/installs';
import { packFolder } from '../../src/lib/server/modules/pack';
import { ADMIN_GROUP } from '../../src/lib/server/site/seed';
import { ROOT } from '../helpers/paths';
import { scaled } from '../helpers/time-scale.mjs';
import { PASSWORD, usePrivateSite, withRuntime } from './private-site';

let postId = 0;

const srv = usePrivateSite('math-publish', (dataDir) => withRuntime(dataDir, async (rt) => {
  await rt.site.set('user_login_captcha', '0');
  await createUser(rt.db, { username: 'boss', email: 'boss@example.com', password: PASSWORD, groupId: ADMIN_GROUP });
  const dev = await createUser(rt.db, { username: 'dev', email: 'dev@example.com', password: PASSWORD });
  const t = Math.floor(Date.now() / 1000);
  await rt.db.insert(developer).values({ userId: dev.id, realName: '张三', idNumber: '11010519491231002X', mobile: '13800138000', email: 'dev@example.com', province: '110000', status: 'approved', createTime: t, updateTime: t });
  await installModule(rt.db, 'editor');
  const [discussion] = await rt.db.select({ id: askCategory.id }).from(askCategory).where(eq(askCategory.slug, 'discussion'));
  postId = (await createPost(rt.db, dev.id, { title: 'Pythagoras', content: 'We know $a^2+b^2=c^2$.', category_id: discussion!.id, tags: [] } as never)).id;
}));

/** A JSON POST from the page, as its scripts send one. */
const call = <T = unknown>(page: Page, path: string, body: unknown): Promise<{ code: number; msg: string; data: T }> =>
  page.evaluate(async ({ path, body }) => (await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json', 'think-lang': 'en' }, body: JSON.stringify(body) })).json(), { path, body });

test('a developer publishes math, the reviewer approves what it asks for, the administrator installs it', async ({ browser }) => {
  test.setTimeout(scaled(180_000));
  const zip = await packFolder(join(ROOT, 'dist', 'modules', 'math'));
  // The packed folder gives the build's zip byte for byte.
  expect(zip.equals(readFileSync(join(ROOT, 'dist', 'modules', 'math-1.0.0.zip')))).toBe(true);
  const sha256 = createHash('sha256').update(zip).digest('hex');

  const dev = await (await browser.newContext()).newPage();
  await srv.logIn(dev, 'dev', 'en');
  await dev.goto(`${srv.url}/user/developer/modules`);
  const uploaded = await dev.evaluate(async (b64) => {
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const form = new FormData();
    form.append('file', new Blob([bytes], { type: 'application/zip' }), 'math-1.0.0.zip');
    return (await fetch('/api/developer/package', { method: 'POST', body: form, headers: { 'think-lang': 'en' } })).json();
  }, zip.toString('base64')) as { code: number; msg: string; data: { file: { id: number } } };
  expect(uploaded.code, uploaded.msg).toBe(1);
  const saved = await call<{ id: number }>(dev, '/api/developer/save', { uid: 'math', name: 'Math', summary: 'TeX as MathML', description: 'Write $E=mc^2$.', category: 'content', tags: [], price: '0', score_price: 0 });
  expect(saved.code, saved.msg).toBe(1);
  expect((await call(dev, '/api/developer/version', { module_id: saved.data.id, version: '1.0.0', changelog: 'First', package_id: uploaded.data.file.id })).code).toBe(1);
  expect((await call(dev, '/api/developer/submit', { id: saved.data.id })).code).toBe(1);

  // The reviewer sees the manifest, the capabilities in words and the sha256 before approving.
  const boss = await (await browser.newContext()).newPage();
  await srv.logIn(boss, 'boss', 'en');
  await boss.goto(`${srv.url}/admin/market`);
  await expect(boss.getByText('Changes how markdown is rendered in posts, replies, docs and chat').first()).toBeVisible();
  await expect(boss.getByText('Runs code in members\' browsers').first()).toBeVisible();
  await expect(boss.getByText(sha256).first()).toBeVisible();
  expect(await call(boss, '/api/market/review', { type: 'module', id: saved.data.id, approve: true })).toMatchObject({ code: 1 });

  await boss.goto(`${srv.url}/modules/math`);
  boss.once('dialog', (d) => void d.accept());
  await boss.getByRole('button', { name: 'Install on this site' }).click();
  await expect(boss.getByText('Installed version 1.0.0')).toBeVisible();
  await expect.poll(async () => {
    await boss.goto(`${srv.url}/ask/info/${postId}`);
    return boss.locator('#post .markdown-body span.md-ext[data-ext="math"] math').count();
  }, { timeout: scaled(10_000) }).toBe(1);
});
