// The editor is the first module (issue 26): the site's markdown editor is a package built from
// modules/editor (reproducibly, so its pinned sha256 is the same on every build), listed in every
// site's market with that package; a fresh site has no editor (the pages say "Please install
// editor", the API "Editor required"); installing it from the market makes the forms load its
// client code from the package's hashed URL, with React and the client SDK given by the page's
// import map; uninstalling takes it away and keeps what was saved. No editor code is in the
// site's own bundles. A site whose editor was installed before it had a package keeps it.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../src/lib/server/runtime';
import { createUser, type UserRow } from '../../src/lib/server/account/users';
import { ADMIN_GROUP } from '../../src/lib/server/site/seed';
import { askPost, developer, module, moduleInstall, moduleVersion } from '../../src/lib/server/db/schema';
import { seedMarket } from '../../src/lib/server/market/seed';
import { buildModule } from '../../scripts/build-modules.mjs';
import { startInProcess, type InProcessServer } from '../helpers/in-process';
import { loginAs } from '../helpers/members';
import { postJson, raw } from '../helpers/server';
import { ROOT, TMP } from '../helpers/paths';
import { scanSiteBundles } from '../helpers/dist-scan';
import { scaled } from '../helpers/time-scale.mjs';

type Env = { code: number; msg: string; data: Record<string, unknown> | null };
const EN = { 'think-lang': 'en' };
const EDITOR_DIR = join(ROOT, 'modules', 'editor');

let srv: InProcessServer;
let rt: Runtime;
let work: string;
const people: Record<string, { row: UserRow; token: string; cookie: string }> = {};

async function member(name: string, groupId = 1): Promise<void> {
  const row = await createUser(rt.db, { username: name, password: 'editor123', groupId });
  await rt.db.execute(sql`update "user" set join_time = join_time - 200000 where id = ${row.id}`);
  const session = await loginAs(srv.url, rt, name, 'editor123');
  people[name] = { row, token: session.token, cookie: session.cookie };
}

async function call(name: string, path: string, body: unknown, lang: Record<string, string> = EN): Promise<Env> {
  return (await postJson(srv.url, path, body, { 'ba-user-token': people[name]!.token, ...lang })).json<Env>();
}

const page = async (name: string, path: string, lang = 'en'): Promise<string> =>
  (await raw(srv.url, path, { headers: { cookie: `${people[name]!.cookie}; ba-lang=${lang}` } })).text;

/** The import map a page carries, or null. */
function importMapOf(html: string): Record<string, string> | null {
  const m = /<script type="importmap">([^<]*)<\/script>/.exec(html);
  return m ? (JSON.parse(m[1]!) as { imports: Record<string, string> }).imports : null;
}

let nonceSeq = 0;
const nonce = (): string => `editor-nonce-${++nonceSeq}-${Date.now()}`;

beforeAll(async () => {
  mkdirSync(TMP, { recursive: true });
  work = mkdtempSync(join(TMP, 'module-editor-'));
  srv = await startInProcess();
  rt = srv.runtime;
  await member('writer');
  await member('boss', ADMIN_GROUP);
  await member('dev');
  const t = Math.floor(Date.now() / 1000);
  await rt.db.insert(developer).values({ userId: people.dev!.row.id, realName: '李开发', idNumber: '110108199003071234', mobile: '13800138000', email: 'dev@example.com', province: '11', status: 'approved', createTime: t, updateTime: t });
}, scaled(120_000));

afterAll(async () => {
  await srv?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('the editor package', () => {
  it('builds reproducibly, leaving React and the client SDK to the page', async () => {
    const a = await buildModule(EDITOR_DIR, { outDir: join(work, 'a') });
    const b = await buildModule(EDITOR_DIR, { outDir: join(work, 'b') });
    expect(a).toMatchObject({ uid: 'editor', version: '1.0.0', files: ['README.md', 'atrium.json', 'client.mjs', 'editor.css'] });
    expect(b.sha256).toBe(a.sha256);
    expect(readFileSync(b.zip).equals(readFileSync(a.zip))).toBe(true);
    const client = readFileSync(join(a.folder, 'client.mjs'), 'utf8');
    // Bare specifiers the import map resolves, and none of React's own code bundled.
    expect(client).toMatch(/from"react"/);
    expect(client).toMatch(/from"react\/jsx-runtime"/);
    expect(client).toMatch(/from"@atrium\/client"/);
    expect(client).not.toContain('react.production');
    expect(client).not.toContain('__CLIENT_INTERNALS');
    const manifest = JSON.parse(readFileSync(join(a.folder, 'atrium.json'), 'utf8')) as { capabilities: string[]; entry: Record<string, string> };
    expect(manifest.capabilities).toEqual(['client:code']);
    expect(manifest.entry).toEqual({ client: 'client.mjs', css: 'editor.css' });
  }, scaled(60_000));

  it('is listed in a fresh site\'s market with its package, its sha256 pinned as reviewed, and not installed', async () => {
    const built = readFileSync(join(ROOT, 'dist', 'modules', 'editor-1.0.0.zip'));
    const { createHash } = await import('node:crypto');
    const sha256 = createHash('sha256').update(built).digest('hex');
    const [listed] = await rt.db.select({ v: moduleVersion, status: module.status }).from(module)
      .innerJoin(moduleVersion, eq(moduleVersion.moduleId, module.id)).where(eq(module.uid, 'editor'));
    expect(listed?.status).toBe('published');
    expect(listed?.v).toMatchObject({ version: '1.0.0', status: 'published', sha256, reviewedSha256: sha256 });
    expect(listed?.v.packagePath).toMatch(/^first-party\/[0-9a-f]{40}\.zip$/);
    expect(await rt.db.select().from(moduleInstall).where(eq(moduleInstall.uid, 'editor'))).toEqual([]);
  });
});

describe('a site without the editor, then with it', () => {
  let savedId = 0;

  it('refuses to write with "Editor required" and says "Please install editor" where one writes', async () => {
    const refused = await call('writer', '/api/ask/post', { title: 'Needs the editor', category_id: 1, content: 'body', nonce: nonce() });
    expect(refused).toMatchObject({ code: 0, msg: 'Editor required' });
    expect((await call('writer', '/api/ask/post', { title: '需要编辑器', category_id: 1, content: 'body', nonce: nonce() }, { 'think-lang': 'zh-cn' })).msg)
      .toBe('需要编辑器：请管理员从模块市场安装编辑器模块');
    const post = await page('writer', '/ask/post');
    expect(post).toContain('<h2>Please install editor</h2>');
    expect(post).toContain('href="/modules/editor"');
    expect(importMapOf(post)).toBeNull();
    expect(post).not.toContain('/_modules/editor/');
    expect(await page('writer', '/ask/post', 'zh-cn')).toContain('<h2>请先安装编辑器</h2>');
    // The developer studio's forms: the place of the editor says so (the studio page itself needs an approved developer: checked in e2e),
    // and saving a module or adding a version is refused the same way.
    expect(await call('dev', '/api/developer/save', { name: 'Needs the editor', uid: 'needs-editor', category: 'tools', description: 'body' })).toMatchObject({ code: 0, msg: 'Editor required' });
    expect(await call('dev', '/api/developer/version', { module_id: 1, version: '1.0.1', changelog: 'body' })).toMatchObject({ code: 0, msg: 'Editor required' });
    expect(await rt.db.select().from(module).where(eq(module.uid, 'needs-editor'))).toEqual([]);
  });

  it('installs from the market (the administrator), and the post form loads the editor from its package through the import map', async () => {
    const installed = await call('boss', '/api/modules/install', { uid: 'editor' });
    expect(installed.code, installed.msg).toBe(1);
    const [row] = await rt.db.select().from(moduleInstall).where(eq(moduleInstall.uid, 'editor'));
    const [v] = await rt.db.select().from(moduleVersion).innerJoin(module, eq(module.id, moduleVersion.moduleId)).where(and(eq(module.uid, 'editor'), eq(moduleVersion.version, '1.0.0')));
    expect(row).toMatchObject({ version: '1.0.0', enabled: 1, sha256: v!.module_version.reviewedSha256 });

    const html = await page('writer', '/ask/post');
    expect(html).not.toContain('<h2>Please install editor</h2>');
    expect(html).toContain('name="title"');
    const map = importMapOf(html);
    expect(Object.keys(map ?? {}).sort()).toEqual(['@atrium/client', 'react', 'react/jsx-runtime']);
    // Before any module script: the import map comes first in the head.
    expect(html.indexOf('type="importmap"')).toBeLessThan(html.indexOf('type="module"'));
    const client = /\/_modules\/editor\/1\.0\.0-[0-9a-f]{16}\/client\.mjs/.exec(html)?.[0];
    expect(client).toBeTruthy();
    expect(html).toMatch(/<link rel="stylesheet" href="\/_modules\/editor\/1\.0\.0-[0-9a-f]{16}\/editor\.css">/);

    const js = await raw(srv.url, client!);
    expect(js.status).toBe(200);
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(js.text).toContain('md-editor__toolbar');
    for (const [specifier, url] of Object.entries(map!)) {
      const shim = await raw(srv.url, url);
      expect(shim.status, specifier).toBe(200);
      expect(shim.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(shim.text).toContain(`globalThis.__atriumModuleDeps?.[${JSON.stringify(specifier)}]`);
    }
    // What the module imports from the SDK and React, the re-exports give.
    const sdk = await raw(srv.url, map!['@atrium/client']!);
    for (const name of ['enqueueUpload', 'renderWithPageModules', 'scheduleDraft', 'clearDraft', 'UploadQueue', 'interpolate']) expect(sdk.text).toContain(name);
    const react = await raw(srv.url, map!.react!);
    for (const name of ['useState', 'useEffect', 'useLayoutEffect', 'memo', 'useId']) expect(react.text).toMatch(new RegExp(`[{ ,]${name}[ ,}]`));
    // A page without an editor keeps its bytes: no import map.
    expect(importMapOf(await page('writer', '/ask'))).toBeNull();

    const ok = await call('writer', '/api/ask/post', { title: 'Written in the editor module', category_id: 1, content: 'Kept **after** the editor goes', nonce: nonce() });
    expect(ok.code, ok.msg).toBe(1);
    savedId = Number((ok.data as { id: number }).id);
  });

  it('uninstalled: refused again, the place says so again, and what was saved stays', async () => {
    expect((await call('boss', '/api/modules/uninstall', { uid: 'editor' })).code).toBe(1);
    expect((await call('writer', '/api/ask/post', { title: 'No editor now', category_id: 1, content: 'body', nonce: nonce() })).msg).toBe('Editor required');
    expect((await call('writer', '/api/ask/reply', { post_id: savedId, content: 'a reply', nonce: nonce() })).msg).toBe('Editor required');
    const post = await page('writer', `/ask/info/${savedId}`);
    expect(post).toContain('<strong>after</strong>');
    expect(post).toContain('<h2>Please install editor</h2>');
    const [kept] = await rt.db.select().from(askPost).where(eq(askPost.id, savedId));
    expect(kept?.body).toBe('Kept **after** the editor goes');
    // Its file is no longer served.
    const html = await page('writer', '/ask/post');
    expect(html).toContain('<h2>Please install editor</h2>');
  });
});

describe('a site upgraded from the editor compiled into it', () => {
  it('keeps its editor: the package-less install moves onto the package the seed lists', async () => {
    const [listed] = await rt.db.select({ id: module.id }).from(module).where(eq(module.uid, 'editor'));
    // What an older version left: the listing without a package, the editor installed by a row alone.
    await rt.db.update(moduleVersion).set({ packagePath: '', sha256: '', reviewedSha256: '', manifest: null, files: [] }).where(eq(moduleVersion.moduleId, listed!.id));
    await rt.db.insert(moduleInstall).values({ uid: 'editor', version: '1.0.0', installedBy: 0, createTime: 1 })
      .onConflictDoUpdate({ target: moduleInstall.uid, set: { sha256: '', enabled: 1 } });
    const line = await seedMarket(rt.db, rt.config);
    expect(line).toContain('editor 1.0.0 package repinned');
    expect(line).toContain('editor install moved onto its package');
    const [v] = await rt.db.select().from(moduleVersion).where(eq(moduleVersion.moduleId, listed!.id));
    const [row] = await rt.db.select().from(moduleInstall).where(eq(moduleInstall.uid, 'editor'));
    expect(v!.reviewedSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(row).toMatchObject({ enabled: 1, version: '1.0.0', sha256: v!.reviewedSha256 });
    // Every instance runs it: the next page that edits reconciles and loads it.
    expect(await page('writer', '/ask/post')).toMatch(/\/_modules\/editor\/1\.0\.0-[0-9a-f]{16}\/client\.mjs/);
    // A second start changes nothing.
    expect(await seedMarket(rt.db, rt.config)).toBeNull();
  }, scaled(30_000));
});

describe('the site\'s own bundles', () => {
  /** Class names only the editor's component writes, searched in the site's bundles and styles. */
  const MARKERS = ['md-editor__toolbar', 'md-editor__glyph', 'md-editor__btn'];
  const dist = join(ROOT, 'dist');
  const built = existsSync(join(dist, 'client')) && existsSync(join(dist, 'server'));

  it.skipIf(!built)('hold no editor code: it reaches a site only as the editor package', () => {
    const { scanned, hits } = scanSiteBundles(dist, MARKERS, /\.(?:m?js|html|css)$/);
    expect(scanned).toBeGreaterThan(10);
    expect(hits).toEqual([]);
    const pkg = readFileSync(join(dist, 'modules', 'editor', 'client.mjs'), 'utf8');
    for (const m of MARKERS) expect(pkg).toContain(m);
  });
  if (!built) it.skip('dist/ is not built: the bundle check is skipped', () => undefined);
});
