// The math module as a site meets it, in Chromium: the administrator installs it from its market
// page, a post written before shows rendered MathML at once (no restart) while a math host process
// runs, the editor's preview renders the same through the module's browser half; an upgrade to a
// version that renders differently and a rollback change what readers see; uninstalled, the post
// shows its source again. No math code is in the site's own client files.
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { eq } from 'drizzle-orm';
import { createUser } from '../../src/lib/server/account/users';
import { askCategory } from '../../src/lib/server/db/schema';
import { createPost } from '../../src/lib/server/ask/posts';
import { seedMath } from '../../src/lib/server/market/demo';
import { installModule } from '../../src/lib/server/modules/installs';
import { ADMIN_GROUP } from '../../src/lib/server/site/seed';
import { TMP } from '../helpers/paths';
import { submitMathVersion } from '../helpers/module-build';
import { scaled } from '../helpers/time-scale.mjs';
import { PASSWORD, usePrivateSite, withRuntime } from './private-site';

let postId = 0;
let upgradeId = 0;

const srv = usePrivateSite('math', (dataDir) => withRuntime(dataDir, async (rt) => {
  await rt.site.set('user_login_captcha', '0');
  await createUser(rt.db, { username: 'boss', email: 'boss@example.com', password: PASSWORD, groupId: ADMIN_GROUP });
  const writer = await createUser(rt.db, { username: 'writer', email: 'writer@example.com', password: PASSWORD });
  await installModule(rt.db, 'editor');
  expect((await seedMath(rt)).join('\n')).toMatch(/math 1\.0\.0/);
  // Version 1.1.0 is submitted and waits for review; the test approves it later.
  upgradeId = await submitMathVersion(rt, mkdtempSync(join(TMP, 'math-1.1-')), '1.1.0');
  const [discussion] = await rt.db.select({ id: askCategory.id }).from(askCategory).where(eq(askCategory.slug, 'discussion'));
  postId = (await createPost(rt.db, writer.id, { title: 'Mass and energy', content: 'Einstein wrote $E=mc^2$ in 1905.\n\n$$\\int_0^1 x\\,dx = \\frac{1}{2}$$', category_id: discussion!.id, tags: [] } as never)).id;
}));

const mathHosts = (): number => execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' }).split('\n').filter((l) => l.includes('module-host-') && l.includes('/math/')).length;

/** A POST from the page, as its own scripts send one (same origin, the session cookie). */
const call = (page: Page, path: string, body: unknown): Promise<{ code: number; msg: string }> =>
  page.evaluate(async ({ path, body }) => (await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json', 'think-lang': 'en' }, body: JSON.stringify(body) })).json(), { path, body });

async function mathOf(page: Page): Promise<{ inline: number; block: number; cls: string | null; source: boolean }> {
  await page.goto(`${srv.url}/ask/info/${postId}`);
  return page.locator('#post .markdown-body').evaluate((body) => ({
    inline: body.querySelectorAll('span.md-ext[data-ext="math"] math').length,
    block: body.querySelectorAll('div.md-ext-block[data-ext="math"] math').length,
    cls: body.querySelector('span.md-ext[data-ext="math"] math')?.getAttribute('class') ?? null,
    source: body.textContent?.includes('$E=mc^2$') ?? false,
  }));
}

test('an administrator installs math from the market; posts and the preview show MathML; upgrade, rollback, uninstall', async ({ browser }) => {
  test.setTimeout(scaled(180_000));
  const boss = await (await browser.newContext()).newPage();
  await srv.logIn(boss, 'boss', 'en');
  expect(await mathOf(boss)).toMatchObject({ inline: 0, source: true });
  expect(mathHosts()).toBe(0);

  await boss.goto(`${srv.url}/modules/math`);
  await expect(boss.getByText('This module is not installed on this site.')).toBeVisible();
  // What it asks for is confirmed first, in words.
  const asked = new Promise<string>((resolve) => boss.once('dialog', (d) => { resolve(d.message()); void d.accept(); }));
  await boss.getByRole('button', { name: 'Install on this site' }).click();
  expect(await asked).toBe('Install Math on this site? It asks for: Changes how markdown is rendered in posts, replies, docs and chat; Runs code in members\' browsers.');
  await expect(boss.getByText('Installed version 1.0.0')).toBeVisible();
  await expect.poll(() => mathOf(boss), { timeout: scaled(10_000) }).toMatchObject({ inline: 1, block: 1, source: false });
  await expect(boss.locator('#post .markdown-body math').first()).toBeVisible();
  expect(mathHosts()).toBe(1);
  // Its stylesheet comes from the package, at a hashed URL.
  expect(await boss.locator('link[rel=stylesheet][href^="/_modules/math/1.0.0-"]').count()).toBe(1);

  // The editor's preview renders with the module's browser half.
  const writer = await (await browser.newContext({ viewport: { width: 1366, height: 900 } })).newPage();
  await srv.logIn(writer, 'writer', 'en');
  await writer.goto(`${srv.url}/ask/post`);
  const editor = writer.getByRole('textbox', { name: 'Content' });
  await editor.click();
  await editor.pressSequentially('Area $\\pi r^2$ of a circle');
  const previewTab = writer.getByRole('tab', { name: 'Preview' });
  if (await previewTab.isVisible()) await previewTab.click();
  // Every key reached the editor (none lost while it took over from the plain box).
  await expect(editor).toHaveValue('Area $\\pi r^2$ of a circle');
  await expect(writer.locator('.md-editor__preview span.md-ext[data-ext="math"] math')).toHaveCount(1);
  await expect(writer.locator('.md-editor__preview math mi').first()).toHaveText('π');

  // 1.1.0 is approved; the market page offers the update; it renders with its class; then back.
  expect(await call(boss, '/api/market/review', { type: 'version', id: upgradeId, approve: true })).toMatchObject({ code: 1 });
  await boss.goto(`${srv.url}/modules/math`);
  boss.once('dialog', (d) => void d.accept());
  await boss.getByRole('button', { name: 'Update to 1.1.0' }).click();
  await expect(boss.getByText('Installed version 1.1.0')).toBeVisible();
  await expect.poll(() => mathOf(boss), { timeout: scaled(10_000) }).toMatchObject({ inline: 1, cls: expect.stringContaining('math-v1-1') });
  expect(await call(boss, '/api/modules/lifecycle', { uid: 'math', action: 'rollback' })).toMatchObject({ code: 1, msg: 'math is back at 1.0.0' });
  await expect.poll(async () => (await mathOf(boss)).cls ?? '', { timeout: scaled(10_000) }).not.toContain('math-v1-1');

  // Uninstalled: the post shows what was written.
  await boss.goto(`${srv.url}/modules/math`);
  boss.once('dialog', (d) => void d.accept());
  await boss.getByRole('button', { name: 'Uninstall' }).click();
  await expect(boss.getByText('This module is not installed on this site.')).toBeVisible();
  await expect.poll(() => mathOf(boss), { timeout: scaled(10_000) }).toMatchObject({ inline: 0, source: true });
});
