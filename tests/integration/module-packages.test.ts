// Module packages through the HTTP API (in process, so the test reads and changes the files the
// server stored): an upload is refused with every problem of its manifest in the developer's
// language; a version's package must be its module's at its version; the reviewer sees the manifest,
// the capabilities in words and the files, downloads without counting; approval pins the sha256,
// and install refuses a package changed since (API, console and CLI).
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/lib/server/account/users';
import { attachment, developer, module, moduleInstall, moduleVersion } from '../../src/lib/server/db/schema';
import { packageFile } from '../../src/lib/server/market/packages';
import { inspectPackage } from '../../src/lib/server/modules/inspect';
import { packFolder } from '../../src/lib/server/modules/pack';
import { ADMIN_GROUP } from '../../src/lib/server/site/seed';
import type { Runtime } from '../../src/lib/server/runtime';
import { runCommand } from '../../src/server/cli';
import { installModule } from '../../src/lib/server/modules/installs';
import { startInProcess, type InProcessServer } from '../helpers/in-process';
import { loginAs } from '../helpers/members';
import { modulePackage } from '../helpers/module-package';
import { postJson, raw } from '../helpers/server';
import { scaled } from '../helpers/time-scale.mjs';

type Env<T = Record<string, unknown>> = { code: number; msg: string; data: T };
type Lang = 'en' | 'zh-cn';

const FIXTURES = join(import.meta.dirname, '../fixtures/modules');
let srv: InProcessServer;
let rt: Runtime;
const people: Record<string, { id: number; token: string; cookie: string }> = {};

async function member(name: string, opts: { developer?: boolean; groupId?: number } = {}): Promise<void> {
  const row = await createUser(rt.db, { username: name, password: 'package123', groupId: opts.groupId ?? 1 });
  if (opts.developer) {
    const t = Math.floor(Date.now() / 1000);
    await rt.db.insert(developer).values({
      userId: row.id, realName: '张三', idNumber: '11010519491231002X', mobile: '13800138000', email: `${name}@example.com`, province: '110000', status: 'approved', createTime: t, updateTime: t,
    });
  }
  const session = await loginAs(srv.url, rt, name, 'package123');
  people[name] = { id: row.id, token: session.token, cookie: session.cookie };
}

const headers = (name: string, lang: Lang = 'en'): Record<string, string> => ({ 'think-lang': lang, 'ba-user-token': people[name]!.token });
const post = async <T = Record<string, unknown>>(name: string, path: string, body: unknown, lang: Lang = 'en'): Promise<Env<T>> =>
  (await postJson(srv.url, path, body, headers(name, lang))).json<Env<T>>();
const page = (name: string, path: string, lang: Lang = 'en') => raw(srv.url, path, { headers: { cookie: `${people[name]!.cookie}; ba-lang=${lang}` } });

async function uploadPackage(name: string, data: Buffer, lang: Lang = 'en'): Promise<Env<{ file: { id: number }; problems?: string[] }>> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(data)], { type: 'application/zip' }), 'package.zip');
  const res = await fetch(`${srv.url}/api/developer/package`, { method: 'POST', body: form, headers: headers(name, lang) });
  return (await res.json()) as Env<{ file: { id: number }; problems?: string[] }>;
}

const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

beforeAll(async () => {
  srv = await startInProcess();
  rt = srv.runtime;
  await member('dev', { developer: true });
  await member('reviewer', { groupId: ADMIN_GROUP });
  // The studio's description and changelog are written in the editor module (refused without it).
  await installModule(rt.db, 'editor');
}, scaled(120_000));

afterAll(async () => { await srv?.stop(); });

describe('uploading a package', () => {
  it('refuses a broken manifest with every problem listed, in English and in Chinese, and keeps nothing', async () => {
    const broken = await packFolder(join(FIXTURES, 'broken'));
    const en = await uploadPackage('dev', broken);
    expect(en).toMatchObject({ code: 0, msg: 'The package has 5 problems; fix them all and upload it again' });
    expect(en.data.problems).toEqual([
      'atrium.json: uid is not in the expected format',
      'atrium.json: version is not in the expected format',
      'atrium.json: name.en is missing',
      'atrium.json: capabilities[1] must be one of: posts:read, posts:write, members:read, markdown, routes, storage, http:outbound, client:code, events, jobs',
      'atrium.json: colour is not a known field',
    ]);
    const zh = await uploadPackage('dev', broken, 'zh-cn');
    expect(zh.msg).toBe('安装包有 5 个问题，请全部修正后重新上传');
    expect(zh.data.problems).toEqual(expect.arrayContaining(['atrium.json：缺少 name.en', 'atrium.json：colour 不是可识别的字段']));
    expect(zh.data.problems).toHaveLength(5);

    const unwired = await uploadPackage('dev', await packFolder(join(FIXTURES, 'unwired')));
    expect(unwired.data.problems).toHaveLength(6);
    expect(unwired.data.problems).toContain('atrium.json: the file dist/server.js given in entry.server is not in the package');
    const none = await uploadPackage('dev', await packFolder(join(FIXTURES, 'full', 'dist')));
    expect(none).toMatchObject({ code: 0, msg: 'The package has no manifest at its root: atrium.json is missing' });
    expect(await rt.db.select().from(attachment).where(eq(attachment.topic, 'package'))).toHaveLength(0);
  });
});

let moduleId = 0;
let version: typeof moduleVersion.$inferSelect;
const full = (): Promise<Buffer> => packFolder(join(FIXTURES, 'full'));

describe('submitting a version', () => {
  it('refuses a package made for another module or another version, naming both', async () => {
    const saved = await post<{ id: number }>('dev', '/api/developer/save', {
      uid: 'hello-world', name: 'Hello World', summary: 'Says hello', description: 'Hello.', category: 'tools', tags: [], price: '0', score_price: 0,
    });
    expect(saved.code, saved.msg).toBe(1);
    moduleId = saved.data.id;
    const other = await uploadPackage('dev', modulePackage('someone-else', '2.0.0'));
    expect(other.code, other.msg).toBe(1);
    const body = { module_id: moduleId, version: '1.2.0', changelog: 'First', package_id: other.data.file.id };
    const en = await post<{ problems: string[] }>('dev', '/api/developer/version', body);
    expect(en).toMatchObject({ code: 0, msg: 'The package has 2 problems; fix them all and upload it again' });
    expect(en.data.problems).toEqual(['atrium.json is for the module "someone-else", not "hello-world"', 'atrium.json says version 2.0.0, but this version is 1.2.0']);
    const zh = await post<{ problems: string[] }>('dev', '/api/developer/version', body, 'zh-cn');
    expect(zh.data.problems).toEqual(['atrium.json 属于模块“someone-else”，不是“hello-world”', 'atrium.json 写的版本是 2.0.0，但这个版本是 1.2.0']);
    expect(await rt.db.select().from(moduleVersion).where(eq(moduleVersion.moduleId, moduleId))).toHaveLength(0);
  });

  it('records the manifest, the files and the sha256 of a good package', async () => {
    const bytes = await full();
    const uploaded = await uploadPackage('dev', bytes);
    expect(uploaded.code, uploaded.msg).toBe(1);
    const added = await post('dev', '/api/developer/version', { module_id: moduleId, version: '1.2.0', changelog: 'First', package_id: uploaded.data.file.id });
    expect(added.code, added.msg).toBe(1);
    version = (await rt.db.select().from(moduleVersion).where(eq(moduleVersion.moduleId, moduleId)))[0]!;
    expect(version).toMatchObject({ status: 'review', sha256: sha256(bytes), reviewedSha256: '', manifest: expect.objectContaining({ uid: 'hello-world', version: '1.2.0' }) });
    expect(version.files).toHaveLength(5);
    expect((await post('dev', '/api/developer/submit', { id: moduleId })).code).toBe(1);
  });
});

describe('review', () => {
  it('shows the reviewer the manifest, the capabilities in words (both languages), the files and a download link', async () => {
    const en = (await page('reviewer', '/admin/market')).text;
    expect(en).toContain('Capabilities it asks for');
    expect(en).toContain('Sends HTTP requests to other servers');
    expect(en).toContain('Runs code in members&#39; browsers');
    expect(en).toContain('Changes how markdown is rendered in posts, replies, docs and chat');
    expect(en).toContain('&gt;=0.1.0 &lt;1.0.0');
    expect(en).toContain(version.sha256);
    expect(en).toContain('dist/markdown.browser.js');
    expect(en).toContain('Manifest (atrium.json)');
    expect(en).toContain('/api/modules/download?uid=hello-world&amp;version=1.2.0');
    const zh = (await page('reviewer', '/admin/market', 'zh-cn')).text;
    expect(zh).toContain('在会员的浏览器中运行代码');
    expect(zh).toContain('向其他服务器发送 HTTP 请求');
  });

  it('lets the reviewer download the package without counting a public download', async () => {
    const res = await raw(srv.url, '/api/modules/download?uid=hello-world&version=1.2.0', { headers: headers('reviewer') });
    expect(res.status).toBe(200);
    expect(sha256(res.body)).toBe(version.sha256);
    const [m] = await rt.db.select({ downloads: module.downloads }).from(module).where(eq(module.id, moduleId));
    expect(m!.downloads).toBe(0);
  });

  it('refuses to approve a package changed since it was submitted; approving the submitted one pins its sha256', async () => {
    const file = packageFile(rt, version.packagePath)!;
    const original = readFileSync(file);
    writeFileSync(file, Buffer.concat([original, Buffer.from('tampered')]));
    const refused = await post('reviewer', '/api/market/review', { type: 'module', id: moduleId, approve: true });
    expect(refused).toMatchObject({ code: 0, msg: 'The package of hello-world 1.2.0 changed since it was submitted: it cannot be approved' });
    expect((await rt.db.select().from(module).where(eq(module.id, moduleId)))[0]!.status).toBe('review');
    writeFileSync(file, original);
    expect((await post('reviewer', '/api/market/review', { type: 'module', id: moduleId, approve: true })).code).toBe(1);
    const [pinned] = await rt.db.select().from(moduleVersion).where(eq(moduleVersion.id, version.id));
    expect(pinned).toMatchObject({ status: 'published', reviewedSha256: version.sha256 });
  });
});

describe('installing a reviewed package', () => {
  // The editor is the site module the market installs: here a new version of it comes as a package.
  let file = '';
  let original: Buffer = Buffer.alloc(0);

  it('installs a version whose package is the one reviewed', async () => {
    const [editor] = await rt.db.select().from(module).where(eq(module.uid, 'editor'));
    expect(editor?.status).toBe('published');
    original = modulePackage('editor', '1.1.0', [{ name: 'dist/client.js', data: Buffer.from('export {};\n') }], { entry: { client: 'dist/client.js' }, capabilities: ['client:code'] });
    const inspected = await inspectPackage(original);
    if (!inspected.ok) throw new Error(JSON.stringify(inspected.problems));
    const packagePath = `test/editor-1.1.0-${inspected.sha256.slice(0, 8)}.zip`;
    file = packageFile(rt, packagePath)!;
    await mkdir(dirname(file), { recursive: true });
    writeFileSync(file, original);
    const [row] = await rt.db.insert(moduleVersion).values({
      moduleId: editor!.id, version: '1.1.0', changelog: 'Packaged', packagePath, packageName: 'editor-1.1.0.zip', packageSize: original.length,
      sha256: inspected.sha256, manifest: inspected.manifest, files: inspected.files, status: 'review', createTime: Math.floor(Date.now() / 1000),
    }).returning();
    expect((await post('reviewer', '/api/market/review', { type: 'version', id: row!.id, approve: true })).code).toBe(1);
    const installed = await post('reviewer', '/api/modules/install', { uid: 'editor' });
    expect(installed).toMatchObject({ code: 1, data: { installed: true, version: '1.1.0' } });
  });

  it('refuses a package whose bytes changed after approval, on every install path, and installs nothing', async () => {
    await rt.db.delete(moduleInstall).where(eq(moduleInstall.uid, 'editor'));
    writeFileSync(file, Buffer.concat([original.subarray(0, original.length - 1), Buffer.from([original.at(-1)! ^ 1])]));
    const en = await post('reviewer', '/api/modules/install', { uid: 'editor' });
    expect(en).toMatchObject({ code: 0, msg: 'The package of editor 1.1.0 is not the one that was reviewed (its sha256 changed since approval): installation refused' });
    const zh = await post('reviewer', '/api/modules/install', { uid: 'editor' }, 'zh-cn');
    expect(zh.msg).toBe('editor 1.1.0 的安装包已不是审核通过的那个（审核后 sha256 变了），拒绝安装');
    const admin = await post('reviewer', '/api/admin/modules', { uid: 'editor', install: 1 });
    expect(admin.msg).toBe(en.msg);
    const err: string[] = [];
    const code = await runCommand(['module:install', 'editor'], rt, { out: () => {}, err: (t) => void err.push(t), cwd: srv.dataDir });
    expect(code).toBe(1);
    expect(err.join('')).toBe(`${en.msg}\n`);
    expect(await rt.db.select().from(moduleInstall).where(and(eq(moduleInstall.uid, 'editor')))).toHaveLength(0);
  });

  it('refuses a package for another Atrium, and one published without a reviewed sha256', async () => {
    writeFileSync(file, original);
    const [v] = await rt.db.select().from(moduleVersion).where(eq(moduleVersion.packagePath, join('test', file.split('/test/')[1]!)));
    await rt.db.update(moduleVersion).set({ manifest: { ...(v!.manifest as object), atrium: '>=99.0.0' } }).where(eq(moduleVersion.id, v!.id));
    expect((await post('reviewer', '/api/modules/install', { uid: 'editor' })).msg).toMatch(/^The package of editor 1\.1\.0 is for Atrium >=99\.0\.0; this site runs Atrium \d+\.\d+\.\d+/);
    await rt.db.update(moduleVersion).set({ manifest: v!.manifest, reviewedSha256: '' }).where(eq(moduleVersion.id, v!.id));
    expect((await post('reviewer', '/api/modules/install', { uid: 'editor' })).msg).toBe('The package of editor 1.1.0 has no reviewed sha256: installation refused until it is reviewed again');
    await rt.db.update(moduleVersion).set({ reviewedSha256: v!.sha256 }).where(eq(moduleVersion.id, v!.id));
    expect((await post('reviewer', '/api/modules/install', { uid: 'editor' })).code).toBe(1);
  });
});
