// The developer studio through HTTP (in process, so the test reads the database the server writes):
// who may use it, modules and versions, private package uploads, sales, earnings and withdrawals.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createUser } from '../../src/lib/server/account/users';
import { attachment, developer, developerEarning, developerWithdrawal, messages, module, moduleOrder, moduleVersion } from '../../src/lib/server/db/schema';
import { dayStart, decideWithdrawal, earningsSummary, monthlyEarnings } from '../../src/lib/server/market/studio';
import type { Runtime } from '../../src/lib/server/runtime';
import { installModule } from '../../src/lib/server/modules/installs';
import { startInProcess, type InProcessServer } from '../helpers/in-process';
import { loginAs } from '../helpers/members';
import { postJson, raw } from '../helpers/server';
import { png, zip } from '../helpers/files';
import { scaled } from '../helpers/time-scale.mjs';
import { modulePackage } from '../helpers/module-package';

type Env<T = Record<string, unknown>> = { code: number; msg: string; data: T & { fields?: Record<string, string> } };

let srv: InProcessServer;
let rt: Runtime;
const people: Record<string, { id: number; token: string; cookie: string }> = {};

async function member(name: string, developerStatus: 'approved' | 'pending' | null): Promise<void> {
  const row = await createUser(rt.db, { username: name, password: 'studio123', nickname: `${name} nick` });
  if (developerStatus) {
    const t = Math.floor(Date.now() / 1000);
    await rt.db.insert(developer).values({
      userId: row.id, realName: '张三', idNumber: '11010519491231002X', mobile: '13800138000', email: `${name}@example.com`,
      province: '110000', status: developerStatus, createTime: t, updateTime: t,
    });
  }
  const session = await loginAs(srv.url, rt, name, 'studio123');
  people[name] = { id: row.id, token: session.token, cookie: session.cookie };
}

const headers = (name: string | null, lang = 'en'): Record<string, string> => ({ 'think-lang': lang, ...(name ? { 'ba-user-token': people[name]!.token } : {}) });
const post = async <T = Record<string, unknown>>(name: string | null, path: string, body: unknown, lang = 'en'): Promise<Env<T>> =>
  (await postJson(srv.url, path, body, headers(name, lang))).json<Env<T>>();
const get = async <T = Record<string, unknown>>(name: string | null, path: string): Promise<Env<T>> =>
  (await raw(srv.url, path, { headers: headers(name) })).json<Env<T>>();
const page = (name: string, path: string) => raw(srv.url, path, { headers: { cookie: `${people[name]!.cookie}; ba-lang=en` } });

async function upload(name: string, path: string, file: { name: string; data: Buffer; type?: string }, extra: Record<string, string> = {}): Promise<{ status: number; body: Env<{ file: { id: number; url: string; name: string; size: number; sha1: string } }> }> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(file.data)], { type: file.type ?? 'application/octet-stream' }), file.name);
  const res = await fetch(`${srv.url}${path}`, { method: 'POST', body: form, headers: { ...headers(extra.cookie ? null : name), ...extra } });
  return { status: res.status, body: (await res.json()) as Env<{ file: { id: number; url: string; name: string; size: number; sha1: string } }> };
}
const uploadPackage = (name: string, file: { name: string; data: Buffer }, extra: Record<string, string> = {}) => upload(name, '/api/developer/package', file, extra);

/** A GET written byte for byte on a socket: no URL normalisation on the way (`..`, `%2e`). */
function rawGet(path: string): Promise<{ status: number; text: string }> {
  const { port } = new URL(srv.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`));
    let data = '';
    socket.on('data', (c: Buffer) => { data += c.toString('latin1'); });
    socket.on('end', () => resolve({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(data)?.[1] ?? 0), text: data }));
    socket.on('error', reject);
  });
}

const moduleBody = (over: Record<string, unknown> = {}) => ({
  uid: 'hello-world', name: 'Hello World', summary: 'Says hello', description: '## Hello\n\nA **friendly** module.', category: 'tools',
  tags: ['greeting', 'demo'], price: '19.90', score_price: 200, ...over,
});

beforeAll(async () => {
  srv = await startInProcess();
  rt = srv.runtime;
  await member('dev', 'approved');
  await member('rival', 'approved');
  await member('plain', null);
  await member('waiting', 'pending');
  // The studio's description and changelog are written in the editor module (refused without it).
  await installModule(rt.db, 'editor');
}, scaled(120_000));

afterAll(async () => { await srv?.stop(); });

describe('who may use the studio', () => {
  const writes: [string, unknown][] = [
    ['/api/developer/save', moduleBody({ uid: 'not-mine' })], ['/api/developer/submit', { id: 1 }], ['/api/developer/delist', { id: 1 }],
    ['/api/developer/relist', { id: 1 }], ['/api/developer/version', { module_id: 1, version: '1.0.0', changelog: 'x', package_id: 1 }],
    ['/api/developer/withdraw', { amount: '100', account: 'bank 6222' }],
  ];
  const reads = ['/api/developer/modules', '/api/developer/module?id=1', '/api/developer/orders', '/api/developer/earnings', '/api/developer/withdrawals'];

  it('refuses members who are not approved developers on every developer API, the package upload included', async () => {
    for (const name of ['plain', 'waiting']) {
      for (const [path, body] of writes) expect(await post(name, path, body), path).toMatchObject({ code: 401, msg: 'Only approved developers can do this' });
      for (const path of reads) expect(await get(name, path), path).toMatchObject({ code: 401, msg: 'Only approved developers can do this' });
      const pkg = await uploadPackage(name, { name: 'a.zip', data: zip([{ name: 'a.txt', data: Buffer.from('a') }]) });
      expect(pkg.body).toMatchObject({ code: 401, msg: 'Only approved developers can do this' });
    }
    expect((await post('plain', '/api/developer/save', moduleBody(), 'zh-cn')).msg).toBe('只有通过认证的开发者才能进行此操作');
    expect(await rt.db.select().from(module).where(eq(module.uid, 'not-mine'))).toHaveLength(0);
    expect(await rt.db.select().from(attachment).where(eq(attachment.topic, 'package'))).toHaveLength(0);
  });

  it('asks visitors to log in', async () => {
    expect((await get(null, '/api/developer/modules')).code).toBe(303);
    expect((await post(null, '/api/developer/save', moduleBody())).code).toBe(303);
    expect((await uploadPackage('dev', { name: 'a.zip', data: zip([{ name: 'a', data: Buffer.from('a') }]) }, { 'ba-user-token': '' })).body.code).toBe(303);
  });

  it('shows the developer pages only to approved developers', async () => {
    const marks: Record<string, string> = { '/user/developer/modules': 'New module', '/user/developer/orders': 'Filter orders', '/user/developer/earnings': 'Earnings summary' };
    for (const [path, mark] of Object.entries(marks)) {
      const refused = await page('plain', path);
      expect(refused.text).toContain('Only approved developers can use this page');
      expect(refused.text).toContain('/user/developer/verif');
      expect(refused.text).not.toContain(mark);
      const shown = (await page('dev', path)).text;
      expect(shown).not.toContain('Only approved developers can use this page');
      expect(shown).toContain(mark);
    }
    const empty = await page('dev', '/user/developer/modules');
    expect(empty.text).toContain('You have no modules yet');
  });
});

let moduleId = 0;
let cover = '';
let shot = '';

describe('modules', () => {
  it('creates a draft with cents, rendered description and search text; the uid is unique and fixed', async () => {
    cover = (await upload('dev', '/api/ajax/upload?topic=module', { name: 'cover.png', type: 'image/png', data: png(40, 20, 1) })).body.data.file.url;
    shot = (await upload('dev', '/api/ajax/upload?topic=module', { name: 'shot.png', type: 'image/png', data: png(30, 20, 2) })).body.data.file.url;
    const created = await post<{ id: number; created: boolean; status: string }>('dev', '/api/developer/save', moduleBody({ cover, screenshots: [shot] }));
    expect(created).toMatchObject({ code: 1, msg: 'Module created; now add its first version', data: { created: true, status: 'draft' } });
    moduleId = created.data.id;
    const [row] = await rt.db.select().from(module).where(eq(module.id, moduleId));
    expect(row).toMatchObject({ uid: 'hello-world', developerId: people.dev!.id, price: 1990, scorePrice: 200, status: 'draft', cover, screenshots: [shot], tags: ['greeting', 'demo'] });
    expect(row!.descriptionHtml).toContain('<strong>friendly</strong>');
    expect(row!.searchVector).toContain('hello');

    const edited = await post('dev', '/api/developer/save', moduleBody({ id: moduleId, name: 'Hello World 2', price: '0', score_price: 0, cover: '' }));
    expect(edited).toMatchObject({ code: 1, msg: 'Module saved' });
    expect((await rt.db.select().from(module).where(eq(module.id, moduleId)))[0]).toMatchObject({ name: 'Hello World 2', price: 0, scorePrice: 0, cover: '', status: 'draft' });

    const renamed = await post('dev', '/api/developer/save', moduleBody({ id: moduleId, uid: 'new-uid' }));
    expect(renamed.data.fields?.uid).toBe('The identifier cannot change once the module exists');
    const taken = await post('rival', '/api/developer/save', moduleBody());
    expect(taken.data.fields?.uid).toBe('This identifier is taken; please choose another');
    const reserved = await post('rival', '/api/developer/save', moduleBody({ uid: 'editor' }));
    expect(reserved.data.fields?.uid).toBe('This identifier is taken; please choose another');
    const invalid = await post('dev', '/api/developer/save', moduleBody({ uid: 'Bad_UID!', name: 'x', price: '1.234' }));
    expect(invalid.code).toBe(0);
    expect(invalid.data.fields).toMatchObject({ uid: expect.stringContaining('lower-case'), name: 'The name must be 2 to 60 characters', price: expect.stringContaining('price') });
  });

  it('takes only images the developer uploaded as cover and screenshots', async () => {
    const theirs = (await upload('rival', '/api/ajax/upload?topic=module', { name: 'r.png', type: 'image/png', data: png(10, 10, 3) })).body.data.file.url;
    const borrowed = await post('dev', '/api/developer/save', moduleBody({ id: moduleId, cover: theirs }));
    expect(borrowed.data.fields?.cover).toBe('Please use images you uploaded yourself');
    const made = await post('dev', '/api/developer/save', moduleBody({ id: moduleId, screenshots: [shot, '/storage/module/20990101/none.png'] }));
    expect(made.data.fields?.screenshots).toBe('Please use images you uploaded yourself');
    const foreign = await post('dev', '/api/developer/save', moduleBody({ id: moduleId, cover: 'https://example.com/a.png' }));
    expect(foreign.data.fields?.cover).toBe('Please use images you uploaded yourself');
    // The same picture uploaded by another member is that member's own attachment.
    const same = await upload('rival', '/api/ajax/upload?topic=module', { name: 'c.png', type: 'image/png', data: png(40, 20, 1) });
    expect(same.body.data.file.url).not.toBe(cover);
    expect((await post('dev', '/api/developer/save', moduleBody({ id: moduleId, cover }))).code).toBe(1);
  });

  it('refuses another developer their hands on the module', async () => {
    const missing = { code: 0, msg: 'There is no such module among yours' };
    expect(await post('rival', '/api/developer/save', moduleBody({ id: moduleId, name: 'Stolen' }))).toMatchObject(missing);
    expect(await post('rival', '/api/developer/submit', { id: moduleId })).toMatchObject(missing);
    expect(await post('rival', '/api/developer/delist', { id: moduleId })).toMatchObject(missing);
    expect(await post('rival', '/api/developer/relist', { id: moduleId })).toMatchObject(missing);
    expect(await get('rival', `/api/developer/module?id=${moduleId}`)).toMatchObject(missing);
    expect((await get<{ list: unknown[] }>('rival', '/api/developer/modules')).data.list).toEqual([]);
    expect((await rt.db.select().from(module).where(eq(module.id, moduleId)))[0]!.name).toBe('Hello World');
    const edit = await page('rival', `/user/developer/modules?edit=${moduleId}`);
    expect(edit.text).toContain('There is no such module among yours');
    expect(edit.text).not.toContain('friendly');
    expect((await page('rival', `/user/developer/modules?versions=${moduleId}`)).text).toContain('There is no such module among yours');
  });

  it('lists the developer\'s modules and shows the forms', async () => {
    const list = await get<{ list: { id: number; uid: string; status: string; price: number }[]; total: number }>('dev', '/api/developer/modules');
    expect(list.data).toMatchObject({ total: 1, list: [{ id: moduleId, uid: 'hello-world', status: 'draft', price: 1990 }] });
    const html = (await page('dev', '/user/developer/modules')).text;
    expect(html).toContain('hello-world');
    expect(html).toContain('¥19.90 / 200 points');
    expect(html).toContain('Submit for review');
    expect((await page('dev', '/user/developer/modules?new=1')).text).toContain('Create module');
    expect((await page('dev', `/user/developer/modules?edit=${moduleId}`)).text).toContain('Save changes');
  });
});

let packageId = 0;
let packagePath = '';

describe('package uploads', () => {
  const good = modulePackage('hello-world', '1.0.0', [{ name: 'index.js', data: Buffer.from('export default {}\n') }], { entry: { server: 'index.js' } });

  it('stores a zip privately and records a private package attachment', async () => {
    const res = await uploadPackage('dev', { name: 'hello-world-1.0.0.zip', data: good });
    expect(res.body).toMatchObject({ code: 1, msg: 'Package uploaded', data: { file: { name: 'hello-world-1.0.0.zip', size: good.length } } });
    expect(Object.keys(res.body.data.file).sort()).toEqual(['id', 'name', 'sha1', 'size']);
    packageId = res.body.data.file.id;
    const [row] = await rt.db.select().from(attachment).where(eq(attachment.id, packageId));
    expect(row).toMatchObject({ storage: 'private', topic: 'package', userId: people.dev!.id, mimetype: 'application/zip', sha1: res.body.data.file.sha1 });
    expect(row!.url).toMatch(/^\d{6}\/[0-9a-f]{40}\.zip$/);
    packagePath = row!.url;
    expect(readFileSync(join(srv.dataDir, 'packages', packagePath)).equals(good)).toBe(true);
    expect(existsSync(join(srv.dataDir, 'storage', packagePath))).toBe(false);
    const again = await uploadPackage('dev', { name: 'renamed.zip', data: good });
    expect(again.body.data.file.id).toBe(packageId);
  });

  it('refuses a renamed PNG, a non-zip name, an empty zip and a package over the limit, leaving nothing behind', async () => {
    expect((await uploadPackage('dev', { name: 'picture.zip', data: png(4, 4, 9) })).body).toMatchObject({ code: 0, msg: 'This file is not a valid zip archive' });
    expect((await uploadPackage('dev', { name: 'picture.png', data: good })).body).toMatchObject({ code: 0, msg: 'The package must be a .zip file' });
    expect((await uploadPackage('dev', { name: 'empty.zip', data: zip([]) })).body).toMatchObject({ code: 0, msg: 'This zip archive is empty' });
    await rt.site.set('market_package_max_size', '1kb');
    try {
      const big = zip([{ name: 'big.bin', data: Buffer.alloc(4096, 7) }]);
      expect((await uploadPackage('dev', { name: 'big.zip', data: big })).body).toMatchObject({ code: 0, msg: 'The package is larger than the 1 KB limit' });
      const zh = await upload('dev', '/api/developer/package', { name: 'big.zip', data: big }, { 'think-lang': 'zh-cn' });
      expect(zh.body.msg).toBe('安装包超过了 1 KB 的上限');
    } finally {
      await rt.site.set('market_package_max_size', '20mb');
    }
    expect(await rt.db.select().from(attachment).where(eq(attachment.topic, 'package'))).toHaveLength(1);
    expect(readdirSync(join(srv.dataDir, 'packages', '.tmp'))).toEqual([]);
  });

  it('refuses a cookie session from another site', async () => {
    const res = await uploadPackage('dev', { name: 'x.zip', data: good }, { cookie: people.dev!.cookie, origin: 'https://evil.example' });
    expect(res.status).toBe(403);
  });

  it('is never served by /storage or any other URL', async () => {
    expect((await fetch(`${srv.url}/storage/${packagePath}`)).status).toBe(404);
    for (const path of [`/storage/../packages/${packagePath}`, `/storage/%2e%2e/packages/${packagePath}`, `/storage/..%2fpackages/${packagePath}`, `/storage/%2E%2E%2Fpackages%2F${packagePath}`]) {
      const res = await rawGet(path);
      expect(res.status, path).not.toBe(200);
      expect(res.text).not.toContain('atrium.json');
    }
    const direct = await fetch(`${srv.url}/packages/${packagePath}`);
    expect(direct.status).toBe(404);
    expect(Buffer.from(await direct.arrayBuffer()).includes(Buffer.from('atrium.json'))).toBe(false);
  });
});

describe('versions and review', () => {
  it('submitting needs a version', async () => {
    expect(await post('dev', '/api/developer/submit', { id: moduleId })).toMatchObject({ code: 0, msg: 'Please add at least one version before submitting for review' });
  });

  it('adds a version for review from the developer\'s own package; versions only go up', async () => {
    const added = await post('dev', '/api/developer/version', { module_id: moduleId, version: '1.0.0', changelog: '- First release', min_atrium: '0.1.0', package_id: packageId });
    expect(added).toMatchObject({ code: 1, msg: 'Version submitted for review', data: { version: '1.0.0', status: 'review' } });
    const [row] = await rt.db.select().from(moduleVersion).where(eq(moduleVersion.moduleId, moduleId));
    const [pkg] = await rt.db.select().from(attachment).where(eq(attachment.id, packageId));
    expect(row).toMatchObject({ status: 'review', packagePath: pkg!.url, packageName: pkg!.name, packageSize: pkg!.size, sha1: pkg!.sha1, minAtrium: '0.1.0', changelog: '- First release' });

    for (const version of ['1.0.0', '0.9.9', '1.0.0-rc.1']) {
      const lower = await post('dev', '/api/developer/version', { module_id: moduleId, version, changelog: 'again', package_id: packageId });
      expect(lower.data.fields?.version, version).toBe('The version must be higher than every existing version (highest: 1.0.0)');
    }
    const bad = await post('dev', '/api/developer/version', { module_id: moduleId, version: 'v2', changelog: '', package_id: packageId });
    expect(bad.data.fields).toMatchObject({ version: expect.stringContaining('semantic version'), changelog: 'Please describe what changed' });
    const image = (await rt.db.select().from(attachment).where(and(eq(attachment.userId, people.dev!.id), eq(attachment.topic, 'module'))))[0]!;
    const notPackage = await post('dev', '/api/developer/version', { module_id: moduleId, version: '1.1.0', changelog: 'x', package_id: image.id });
    expect(notPackage.data.fields?.package_id).toBe('Please upload this version\'s package (.zip) first');
    const rivalPkg = await uploadPackage('rival', { name: 'r.zip', data: modulePackage('rival-thing') });
    const borrowed = await post('dev', '/api/developer/version', { module_id: moduleId, version: '1.1.0', changelog: 'x', package_id: rivalPkg.body.data.file.id });
    expect(borrowed.data.fields?.package_id).toBe('Please upload this version\'s package (.zip) first');
    expect(await post('rival', '/api/developer/version', { module_id: moduleId, version: '2.0.0', changelog: 'x', package_id: rivalPkg.body.data.file.id }))
      .toMatchObject({ code: 0, msg: 'There is no such module among yours' });
    expect(await rt.db.select().from(moduleVersion).where(eq(moduleVersion.moduleId, moduleId))).toHaveLength(1);
  });

  it('submits the draft for review once', async () => {
    expect(await post('dev', '/api/developer/submit', { id: moduleId })).toMatchObject({ code: 1, data: { status: 'review' } });
    expect((await rt.db.select().from(module).where(eq(module.id, moduleId)))[0]!.status).toBe('review');
    expect(await post('dev', '/api/developer/submit', { id: moduleId })).toMatchObject({ code: 0, msg: 'Only a draft can be submitted for review' });
    const versions = await get<{ module: { status: string }; versions: { version: string; status: string }[] }>('dev', `/api/developer/module?id=${moduleId}`);
    expect(versions.data).toMatchObject({ module: { status: 'review' }, versions: [{ version: '1.0.0', status: 'review' }] });
    const html = (await page('dev', `/user/developer/modules?versions=${moduleId}`)).text;
    expect(html).toContain('1.0.0');
    expect(html).toContain('hello-world-1.0.0.zip');
  });

  it('delists and relists a published module, refreshing the market; an edit keeps it published', async () => {
    // The operators' approval (another part of the market) publishes it.
    await rt.db.update(module).set({ status: 'published', latestVersion: '1.0.0' }).where(eq(module.id, moduleId));
    // The services declare `modules`; the request's unit of work publishes it once it has committed.
    const invalidate = vi.spyOn(rt.invalidation, 'publish');
    try {
      expect(await post('dev', '/api/developer/relist', { id: moduleId })).toMatchObject({ code: 0, msg: 'Only a delisted module can be listed again' });
      expect(await post('dev', '/api/developer/save', moduleBody({ id: moduleId, summary: 'Now even friendlier' }))).toMatchObject({ code: 1, data: { status: 'published' } });
      expect(invalidate).toHaveBeenCalledWith(['modules']);
      invalidate.mockClear();
      expect(await post('dev', '/api/developer/delist', { id: moduleId })).toMatchObject({ code: 1, data: { status: 'delisted' } });
      expect(invalidate).toHaveBeenCalledWith(['modules']);
      expect(await post('dev', '/api/developer/delist', { id: moduleId })).toMatchObject({ code: 0, msg: 'Only a published module can be delisted' });
      invalidate.mockClear();
      expect(await post('dev', '/api/developer/relist', { id: moduleId })).toMatchObject({ code: 1, data: { status: 'published' } });
      expect(invalidate).toHaveBeenCalledWith(['modules']);
    } finally {
      invalidate.mockRestore();
    }
    const [row] = await rt.db.select().from(module).where(eq(module.id, moduleId));
    expect(row).toMatchObject({ status: 'published', summary: 'Now even friendlier' });
    expect((await page('dev', `/user/developer/modules?edit=${moduleId}`)).text).toContain('This module is on the market');
  });
});

describe('sales and earnings', () => {
  let timeZone = 'Asia/Shanghai';
  const orderNos = ['20250310000000000001', '20250311000000000002', '20250312000000000003', '20250313000000000004'];

  beforeAll(async () => {
    timeZone = await rt.site.get('time_zone', 'UTC');
    const day = (d: string): number => dayStart(d, timeZone) + 3600;
    const base = { moduleId, developerId: people.dev!.id };
    const orders = await rt.db.insert(moduleOrder).values([
      { ...base, orderNo: orderNos[0]!, userId: people.plain!.id, payType: 'balance', amount: 1990, commission: 299, status: 'paid', payTime: day('2025-03-10'), createTime: day('2025-03-10') },
      { ...base, orderNo: orderNos[1]!, userId: people.waiting!.id, payType: 'score', amount: 200, commission: 30, status: 'paid', payTime: day('2025-03-11'), createTime: day('2025-03-11') },
      { ...base, orderNo: orderNos[2]!, userId: people.plain!.id, payType: 'balance', amount: 1990, commission: 0, status: 'unpaid', createTime: day('2025-03-12') },
      { ...base, orderNo: orderNos[3]!, userId: people.waiting!.id, payType: 'balance', amount: 1990, commission: 299, status: 'refunded', payTime: day('2025-03-13'), createTime: day('2025-03-13') },
      { moduleId, developerId: people.rival!.id, orderNo: '20250314000000000005', userId: people.rival!.id, payType: 'balance', amount: 500, commission: 75, status: 'paid', createTime: day('2025-03-14') },
    ]).returning({ id: moduleOrder.id });
    const t = Math.floor(Date.now() / 1000);
    await rt.db.insert(developerEarning).values([
      { developerId: people.dev!.id, orderId: orders[0]!.id, kind: 'money', gross: 1990, commission: 299, amount: 1691, createTime: day('2025-03-10') },
      { developerId: people.dev!.id, orderId: orders[1]!.id, kind: 'score', gross: 200, commission: 30, amount: 170, createTime: day('2025-03-11') },
      // A big sale this month, so there is something to withdraw.
      { developerId: people.dev!.id, orderId: 900_001, kind: 'money', gross: 58_824, commission: 8_824, amount: 50_000, createTime: t },
      { developerId: people.rival!.id, orderId: orders[4]!.id, kind: 'money', gross: 500, commission: 75, amount: 425, createTime: t },
    ]);
  });

  type Sales = { list: { orderNo: string; buyerName: string; amount: string; net: string; payType: string; status: string; moduleUid: string }[]; total: number; totals: { count: number; money: { gross: string; net: string }; score: { gross: number; net: number } } };

  it('lists what module_order says, with totals of the paid orders', async () => {
    const all = await get<Sales>('dev', '/api/developer/orders');
    expect(all.data.total).toBe(4);
    expect(all.data.list.map((o) => o.orderNo)).toEqual([...orderNos].reverse());
    expect(all.data.list.at(-1)).toMatchObject({ buyerName: 'plain nick', amount: '19.90', net: '16.91', payType: 'balance', status: 'paid', moduleUid: 'hello-world' });
    expect(all.data.list.find((o) => o.payType === 'score')).toMatchObject({ amount: '200', net: '170' });
    expect(all.data.totals).toEqual({ count: 4, money: { gross: '19.90', net: '16.91' }, score: { gross: 200, net: 170 } });
    expect((await get<Sales>('rival', '/api/developer/orders')).data.list.map((o) => o.orderNo)).toEqual(['20250314000000000005']);
  });

  it('filters by status, pay type, days in the site time zone, order number and buyer', async () => {
    const nos = async (query: string): Promise<string[]> => (await get<Sales>('dev', `/api/developer/orders?${query}`)).data.list.map((o) => o.orderNo);
    expect(await nos('status=paid')).toEqual([orderNos[1], orderNos[0]]);
    expect(await nos('pay_type=score')).toEqual([orderNos[1]]);
    expect(await nos('from=2025-03-11&to=2025-03-12')).toEqual([orderNos[2], orderNos[1]]);
    expect(await nos('q=0000000003')).toEqual([orderNos[2]]);
    expect(await nos('q=WAITING')).toEqual([orderNos[3], orderNos[1]]);
    expect(await nos('q=%25')).toEqual([]);
    expect((await get('dev', '/api/developer/orders?from=2025-02-30')).data.fields?.from).toBe('Please enter a correct date');
    const html = (await page('dev', '/user/developer/orders?status=paid')).text;
    expect(html).toContain(orderNos[0]);
    expect(html).not.toContain(orderNos[2]);
    expect((await page('dev', '/user/developer/orders?q=nobody')).text).toContain('No orders match these filters');
  });

  it('sums earnings from developer_earning and developer_withdrawal', async () => {
    const res = await get<{ money: Record<string, string>; score: { total: number }; sales: number; monthly: { month: string; amount: string }[]; withdrawMin: string }>('dev', '/api/developer/earnings');
    expect(res.data).toMatchObject({
      money: { gross: '608.14', commission: '91.23', total: '516.91', withdrawn: '0.00', pending: '0.00', available: '516.91' },
      score: { total: 170 }, sales: 3, withdrawMin: '100.00',
    });
    expect(res.data.monthly).toHaveLength(12);
    expect(res.data.monthly.at(-1)!.amount).toBe('500.00');
  });

  it('groups money earnings by calendar month of the site time zone (the chart service)', async () => {
    const dev = 999_999;
    const at = Date.UTC(2025, 5, 15);
    const sh = (iso: string): number => Date.parse(`${iso}+08:00`) / 1000;
    await rt.db.insert(developerEarning).values([
      { developerId: dev, orderId: 800_001, kind: 'money', gross: 100, commission: 0, amount: 100, createTime: sh('2025-06-01T00:30:00') },
      { developerId: dev, orderId: 800_002, kind: 'money', gross: 200, commission: 0, amount: 200, createTime: sh('2025-05-31T23:30:00') },
      { developerId: dev, orderId: 800_003, kind: 'money', gross: 300, commission: 0, amount: 300, createTime: sh('2024-07-01T00:00:00') },
      { developerId: dev, orderId: 800_004, kind: 'money', gross: 400, commission: 0, amount: 400, createTime: sh('2024-06-30T23:59:59') },
      { developerId: dev, orderId: 800_005, kind: 'score', gross: 999, commission: 0, amount: 999, createTime: sh('2025-06-02T00:00:00') },
      { developerId: dev, orderId: 800_006, kind: 'money', gross: 50, commission: 0, amount: 50, createTime: sh('2025-06-02T00:00:00') },
    ]);
    const months = await monthlyEarnings(rt.db, dev, 12, 'Asia/Shanghai', at);
    expect(months.map((m) => m.month)).toEqual(['2024-07', '2024-08', '2024-09', '2024-10', '2024-11', '2024-12', '2025-01', '2025-02', '2025-03', '2025-04', '2025-05', '2025-06']);
    expect(months.map((m) => m.cents)).toEqual([300, 0, 0, 0, 0, 0, 0, 0, 0, 0, 200, 150]);
  });

  it('draws the monthly chart accessibly on the earnings page', async () => {
    const html = (await page('dev', '/user/developer/earnings')).text;
    expect(html).toMatch(/<svg[^>]*role="img"[^>]*aria-labelledby="earnings-chart-title earnings-chart-desc"/);
    expect(html).toMatch(/<title id="earnings-chart-title">/);
    expect(html).toContain('the best month was');
    expect(html).toMatch(/<div class="visually-hidden"[^>]*>\s*<table/);
    expect(html).toContain('¥516.91');
    expect(html).toContain('No withdrawals yet');
  });
});

describe('withdrawals', () => {
  const key = (): string => `studio:withdraw:${people.dev!.id}`;

  it('refuses less than the minimum and more than is available', async () => {
    await rt.limiter.reset(key());
    const low = await post('dev', '/api/developer/withdraw', { amount: '50', account: 'ICBC 6222 0000' });
    expect(low).toMatchObject({ code: 0, msg: 'A withdrawal must be at least ¥100.00' });
    expect(low.data.fields?.amount).toBe('A withdrawal must be at least ¥100.00');
    const high = await post('dev', '/api/developer/withdraw', { amount: '516.92', account: 'ICBC 6222 0000' });
    expect(high).toMatchObject({ code: 0, msg: 'The amount is more than the ¥516.91 available' });
    expect((await post('dev', '/api/developer/withdraw', { amount: '516.92', account: 'ICBC 6222 0000' }, 'zh-cn')).msg).toBe('提现金额超过了可提现余额 ¥516.91');
    expect(await rt.db.select().from(developerWithdrawal)).toHaveLength(0);
  });

  it('never overdraws when requests arrive together', async () => {
    await rt.limiter.reset(key());
    const replies = await Promise.all(Array.from({ length: 8 }, () => post('dev', '/api/developer/withdraw', { amount: '100', account: 'ICBC 6222 0000' })));
    const granted = replies.filter((r) => r.code === 1);
    expect(granted).toHaveLength(5);
    expect(replies.filter((r) => r.code === 0).every((r) => r.msg.startsWith('The amount is more than'))).toBe(true);
    const summary = await earningsSummary(rt.db, people.dev!.id);
    expect(summary.money).toMatchObject({ total: 51_691, pending: 50_000, withdrawn: 0, available: 1_691 });
    const rows = await rt.db.select().from(developerWithdrawal).where(eq(developerWithdrawal.developerId, people.dev!.id));
    expect(rows.reduce((s, r) => s + r.amount, 0)).toBeLessThanOrEqual(51_691);
  });

  it('operators pay or reject; the developer is told and sees the status', async () => {
    const rows = await rt.db.select().from(developerWithdrawal).where(eq(developerWithdrawal.developerId, people.dev!.id)).orderBy(developerWithdrawal.id);
    expect(await decideWithdrawal(rt.db, rows[0]!.id, 'paid', 'bank ref 42')).toMatchObject({ status: 'paid', remark: 'bank ref 42' });
    expect(await decideWithdrawal(rt.db, rows[1]!.id, 'rejected', 'account name does not match')).toMatchObject({ status: 'rejected' });
    expect(await decideWithdrawal(rt.db, rows[0]!.id, 'rejected', 'twice')).toBeNull();
    expect((await earningsSummary(rt.db, people.dev!.id)).money).toMatchObject({ withdrawn: 10_000, pending: 30_000, available: 11_691 });
    const notices = await rt.db.select().from(messages).where(and(eq(messages.recipientId, people.dev!.id), eq(messages.type, 'market_withdrawal')));
    expect(notices.map((n) => n.title).sort()).toEqual(['devstudio.notice.withdrawalPaid', 'devstudio.notice.withdrawalRejected']);
    expect(notices.find((n) => n.title === 'devstudio.notice.withdrawalRejected')!.summary).toBe('¥100.00: account name does not match');
    const list = await get<{ list: { status: string; remark: string; amount: string }[]; total: number }>('dev', '/api/developer/withdrawals');
    expect(list.data.total).toBe(5);
    expect(list.data.list.map((w) => w.status).sort()).toEqual(['paid', 'pending', 'pending', 'pending', 'rejected']);
    const html = (await page('dev', '/user/developer/earnings')).text;
    expect(html).toContain('account name does not match');
    expect(html).toContain('Withdrawals pending');
  });
});
