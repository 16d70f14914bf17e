// Modules that install and run, through the HTTP API of a built server (in process, so the test
// reads the database and the module host): a markdown module installed from the market renders
// `$…$` in posts (in its own host process), the stored render records the module set and is
// rendered again in the background; upgrade, rollback, disable, uninstall and purge change what
// readers see without a restart; a module whose hook throws leaves the page whole and is reported;
// a package changed after review is refused; safe mode starts with every module disabled.
import { writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/lib/server/account/users';
import { askCategory, askPost, module, moduleEvent, moduleInstall, moduleKv, moduleVersion } from '../../src/lib/server/db/schema';
import { packageFile } from '../../src/lib/server/market/packages';
import { inspectPackage } from '../../src/lib/server/modules/inspect';
import { installModule } from '../../src/lib/server/modules/installs';
import { ADMIN_GROUP } from '../../src/lib/server/site/seed';
import type { Runtime } from '../../src/lib/server/runtime';
import { runCommand } from '../../src/server/cli';
import { startInProcess, type InProcessServer } from '../helpers/in-process';
import { loginAs } from '../helpers/members';
import { modulePackage } from '../helpers/module-package';
import { postJson, raw } from '../helpers/server';
import { scaled } from '../helpers/time-scale.mjs';
import { until } from '../helpers/until';

type Env<T = Record<string, unknown>> = { code: number; msg: string; data: T };

let srv: InProcessServer;
let rt: Runtime;
const people: Record<string, { id: number; token: string; cookie: string }> = {};

const post = async <T = Record<string, unknown>>(name: string, path: string, body: unknown, lang = 'en'): Promise<Env<T>> =>
  (await postJson(srv.url, path, body, { 'think-lang': lang, 'ba-user-token': people[name]!.token })).json<Env<T>>();

/** A markdown module whose server half upper-cases `$…$` (and marks its version's class). */
function shout(version: string, opts: { cls?: string; throws?: boolean } = {}): Buffer {
  const server = opts.throws
    ? 'export default { hooks: { markdown() { throw new Error("shout broke"); } } };\n'
    : `const esc = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
export default { hooks: { async markdown(items, ctx) {
  await ctx.store.set('last', items.length);
  return items.map((i) => '<math' + (i.kind === 'inline' ? '' : ' display="block"') + '><mi class="${opts.cls ?? 'shout'}" onclick="x()">' + esc(i.src.toUpperCase()) + '</mi></math><script>alert(1)</script>');
} } };\n`;
  return modulePackage('shout', version, [
    { name: 'server/index.mjs', data: Buffer.from(server) },
    { name: 'style.css', data: Buffer.from('.shout{font-weight:bold}\n') },
  ], {
    entry: { server: 'server/index.mjs' },
    capabilities: ['markdown', 'storage'],
    contributes: { markdown: { inline: [{ open: '$', close: '$' }], block: [{ open: '$$', close: '$$' }], css: 'style.css' } },
  });
}

let moduleId = 0;

/** Publishes a version of `shout` (or of the module `id`) in the market, its package stored and its sha256 approved. */
async function publish(version: string, bytes: Buffer, id = moduleId, uid = 'shout'): Promise<void> {
  const inspected = await inspectPackage(bytes);
  if (!inspected.ok) throw new Error(JSON.stringify(inspected.problems));
  const packagePath = `test/${uid}-${version}-${inspected.sha256.slice(0, 8)}.zip`;
  const file = packageFile(rt, packagePath)!;
  await mkdir(dirname(file), { recursive: true });
  writeFileSync(file, bytes);
  const t = Math.floor(Date.now() / 1000);
  await rt.db.insert(moduleVersion).values({
    moduleId: id, version, changelog: '', packagePath, packageName: `${uid}-${version}.zip`, packageSize: bytes.length, sha256: inspected.sha256,
    reviewedSha256: inspected.sha256, manifest: inspected.manifest, files: inspected.files, status: 'published', publishTime: t, createTime: t,
  });
  await rt.db.update(module).set({ latestVersion: version }).where(eq(module.id, id));
}

const page = async (id: number): Promise<string> => (await raw(srv.url, `/ask/info/${id}`, { headers: { cookie: 'ba-lang=en' } })).text;
let postId = 0;

beforeAll(async () => {
  srv = await startInProcess();
  rt = srv.runtime;
  for (const [name, groupId] of [['boss', ADMIN_GROUP], ['writer', 1]] as const) {
    const row = await createUser(rt.db, { username: name, password: 'lifecycle1', groupId });
    const session = await loginAs(srv.url, rt, name, 'lifecycle1');
    people[name] = { id: row.id, token: session.token, cookie: session.cookie };
  }
  await installModule(rt.db, 'editor');
  const t = Math.floor(Date.now() / 1000);
  const [m] = await rt.db.insert(module).values({ uid: 'shout', developerId: people.boss!.id, name: 'Shout', category: 'tools', status: 'published', createTime: t, updateTime: t }).returning();
  moduleId = m!.id;
  await publish('1.0.0', shout('1.0.0'));
  const [discussion] = await rt.db.select({ id: askCategory.id }).from(askCategory).where(eq(askCategory.slug, 'discussion'));
  const created = await post<{ id: number }>('writer', '/api/ask/post', { title: 'Energy and mass', content: 'Energy $E=mc^2$ costs $5 and $10.', category_id: discussion!.id, nonce: 'lifecycle-1' });
  expect(created.code, created.msg).toBe(1);
  postId = created.data.id;
}, scaled(120_000));

afterAll(async () => { await srv?.stop(); });

describe('a markdown module', () => {
  it('is text before it is installed, and no module host runs', async () => {
    expect(await page(postId)).toContain('Energy $E=mc^2$ costs $5 and $10.');
    expect(rt.modules.moduleHost).toBeNull();
  });

  it('renders posts once installed from the market, in its own process, sanitised, without a restart', async () => {
    const installed = await post('boss', '/api/modules/install', { uid: 'shout' });
    expect(installed).toMatchObject({ code: 1, data: { installed: true, version: '1.0.0' } });
    await until(() => rt.modules.currentRenderSet === 'shout@1.0.0', 'the set');
    const html = await page(postId);
    expect(html).toContain('<span class="md-ext" data-ext="shout"><math><mi class="shout">E=MC^2</mi></math></span> costs $5 and $10.');
    expect(html).not.toContain('onclick');
    expect(html).not.toContain('alert(1)');
    expect(rt.modules.status('shout')).toMatchObject({ state: 'running', pid: expect.any(Number) });
    // The module's store is its own, kept by the site.
    expect(await rt.db.select().from(moduleKv).where(eq(moduleKv.moduleUid, 'shout'))).toEqual([expect.objectContaining({ key: 'last', value: 1 })]);
    await until(async () => (await rt.db.select({ s: askPost.renderSet }).from(askPost).where(eq(askPost.id, postId)))[0]?.s === 'shout@1.0.0', 'the stored render');
    const audit = (await raw(srv.url, '/api/admin/audit?action=module:install', { headers: { 'ba-user-token': people.boss!.token } })).json<Env<{ list: { action: string; target: string; after: string }[] }>>();
    expect(audit.data.list).toEqual([expect.objectContaining({ action: 'module:install', target: 'shout', after: '1.0.0' })]);
  });

  it('upgrades to a version that renders differently, and rolls back', async () => {
    await publish('1.1.0', shout('1.1.0', { cls: 'shout-loud' }));
    const up = await post('boss', '/api/modules/lifecycle', { uid: 'shout', action: 'upgrade' });
    expect(up).toMatchObject({ code: 1, msg: 'shout upgraded to 1.1.0', data: { version: '1.1.0' } });
    await until(() => rt.modules.currentRenderSet === 'shout@1.1.0', 'the upgrade');
    expect(await page(postId)).toContain('<mi class="shout-loud">E=MC^2</mi>');
    const again = await post('boss', '/api/modules/lifecycle', { uid: 'shout', action: 'upgrade' }, 'zh-cn');
    expect(again).toMatchObject({ code: 0, msg: 'shout 1.1.0 已是最新版本' });
    const back = await post('boss', '/api/modules/lifecycle', { uid: 'shout', action: 'rollback' });
    expect(back).toMatchObject({ code: 1, msg: 'shout is back at 1.0.0' });
    await until(() => rt.modules.currentRenderSet === 'shout@1.0.0', 'the rollback');
    expect(await page(postId)).toContain('<mi class="shout">E=MC^2</mi>');
    // Each step is in the audit log, by whoever took it; the CLI's too.
    const io = { out: () => undefined, err: () => undefined, cwd: process.cwd() };
    expect(await runCommand(['module:upgrade', 'shout'], rt, io)).toBe(0);
    expect(await runCommand(['module:rollback', 'shout'], rt, io)).toBe(0);
    await until(() => rt.modules.currentRenderSet === 'shout@1.0.0', 'the CLI rollback');
    const rows = (await raw(srv.url, '/api/admin/audit?page=1', { headers: { 'ba-user-token': people.boss!.token } })).json<Env<{ list: { action: string; username: string; target: string; after: string }[] }>>().data.list;
    expect(rows.slice(0, 2).map((r) => `${r.username} ${r.action} ${r.target}`)).toEqual(['cli module:rollback shout', 'cli module:upgrade shout']);
    expect(rows.map((r) => `${r.username} ${r.action} ${r.after}`)).toEqual(expect.arrayContaining(['boss module:upgrade 1.1.0', 'boss module:rollback 1.0.0']));
  });

  it('shows the source while disabled, and renders again once enabled', async () => {
    expect((await post('boss', '/api/modules/lifecycle', { uid: 'shout', action: 'disable' })).code).toBe(1);
    await until(() => rt.modules.currentRenderSet === '', 'the disable');
    expect(await page(postId)).toContain('Energy $E=mc^2$ costs');
    expect(rt.modules.status('shout')).toBeNull();
    expect((await post('boss', '/api/modules/lifecycle', { uid: 'shout', action: 'enable' })).code).toBe(1);
    await until(() => rt.modules.currentRenderSet === 'shout@1.0.0', 'the enable');
    expect(await page(postId)).toContain('<mi class="shout">E=MC^2</mi>');
  });

  it('is refused by members who are not administrators', async () => {
    const refused = await post('writer', '/api/modules/lifecycle', { uid: 'shout', action: 'disable' });
    expect(refused.code).toBe(401);
    expect(rt.modules.currentRenderSet).toBe('shout@1.0.0');
  });

  it('uninstalls keeping its data, or with --purge removing it; the post shows its source', async () => {
    const out: string[] = [];
    const io = { out: (t: string) => out.push(t), err: (t: string) => out.push(t), cwd: process.cwd() };
    expect(await runCommand(['module:uninstall', 'shout'], rt, io)).toBe(0);
    await until(() => rt.modules.currentRenderSet === '', 'the uninstall');
    expect(await page(postId)).toContain('Energy $E=mc^2$ costs');
    expect(await rt.db.select().from(moduleKv).where(eq(moduleKv.moduleUid, 'shout'))).toHaveLength(1);
    expect(await runCommand(['module:install', 'shout@1.1.0'], rt, io)).toBe(0);
    await until(() => rt.modules.currentRenderSet === 'shout@1.1.0', 'the CLI install');
    expect(await runCommand(['module:list'], rt, io)).toBe(0);
    expect(out.join('')).toMatch(/shout\t1\.1\.0\tenabled\tsha256 [0-9a-f]{12}/);
    expect(await runCommand(['module:uninstall', 'shout', '--purge'], rt, io)).toBe(0);
    expect(await rt.db.select().from(moduleKv).where(eq(moduleKv.moduleUid, 'shout'))).toHaveLength(0);
  });
});

describe('a faulty module', () => {
  it('that throws in its hook leaves the page whole, showing the source, and is reported', async () => {
    await publish('2.0.0', shout('2.0.0', { throws: true }));
    expect((await post('boss', '/api/modules/install', { uid: 'shout' })).code).toBe(1);
    await until(() => rt.modules.currentRenderSet === 'shout@2.0.0', 'the install');
    const html = await page(postId);
    expect(html).toContain('<code class="md-ext-source" data-ext="shout">$E=mc^2$</code>');
    expect(html).toContain('Energy and mass');
    await until(async () => (await rt.db.select({ r: moduleInstall.reason }).from(moduleInstall).where(eq(moduleInstall.uid, 'shout')))[0]?.r.includes('shout broke') ?? false, 'the report');
  });

  it('that crashes its host is restarted, then disabled everywhere after 3 crashes, with the reason', async () => {
    const crasher = modulePackage('shout', '3.0.0', [{ name: 'server/index.mjs', data: Buffer.from('export default { hooks: { markdown() { process.exit(3); } } };\n') }], {
      entry: { server: 'server/index.mjs' }, capabilities: ['markdown'], contributes: { markdown: { inline: [{ open: '$', close: '$' }] } },
    });
    await publish('3.0.0', crasher);
    expect((await post('boss', '/api/modules/lifecycle', { uid: 'shout', action: 'upgrade' })).code).toBe(1);
    await until(() => rt.modules.currentRenderSet === 'shout@3.0.0', 'the upgrade');
    // Each member's read (not cached) meets a stale render, asks the module, whose host dies: the page still renders.
    for (let i = 0; i < 3; i++) {
      const html = (await raw(srv.url, `/ask/info/${postId}`, { headers: { cookie: `${people.writer!.cookie}; ba-lang=en` } })).text;
      expect(html).toContain('<code class="md-ext-source" data-ext="shout">$E=mc^2$</code>');
    }
    await until(async () => (await rt.db.select().from(moduleInstall).where(eq(moduleInstall.uid, 'shout')))[0]?.enabled === 0, 'the disable');
    const [row] = await rt.db.select().from(moduleInstall).where(eq(moduleInstall.uid, 'shout'));
    expect(row!.reason).toMatch(/^crashed: /);
    await until(() => rt.modules.currentRenderSet === '', 'the module to stop');
    expect(await page(postId)).toContain('Energy $E=mc^2$ costs');
    expect((await post('boss', '/api/modules/lifecycle', { uid: 'shout', action: 'rollback' })).code).toBe(1);
  });

  it('whose package changed after review is refused at install', async () => {
    const [v] = await rt.db.select().from(moduleVersion).where(and(eq(moduleVersion.moduleId, moduleId), eq(moduleVersion.version, '1.0.0')));
    const file = packageFile(rt, v!.packagePath)!;
    writeFileSync(file, shout('1.0.0', { cls: 'tampered' }));
    const res = await post('boss', '/api/modules/lifecycle', { uid: 'shout', action: 'install', version: '1.0.0' });
    expect(res).toMatchObject({ code: 0, msg: 'The package of shout 1.0.0 is not the one that was reviewed (its sha256 changed since approval): installation refused' });
    const [row] = await rt.db.select().from(moduleInstall).where(eq(moduleInstall.uid, 'shout'));
    expect(row?.version).toBe('2.0.0');
  });
});

describe('a module with API routes', () => {
  it('answers /api/m/{uid}/… in its host with the declared access, its store its own', async () => {
    const server = `export default { routes: {
  'GET /status': async (req, ctx) => ({ body: { ok: true, pings: (await ctx.store.get('pings')) ?? 0 } }),
  'POST /ping': async (req, ctx) => { const n = ((await ctx.store.get('pings')) ?? 0) + 1; await ctx.store.set('pings', n); return { body: { pings: n, by: req.memberId, said: req.body.say ?? null } }; },
  'GET /secret': () => ({ body: 'for administrators' }),
  'GET /teapot': () => ({ status: 418, body: { why: 'short and stout' } }),
  'GET /slow': () => new Promise(() => {}),
} };\n`;
    const bytes = modulePackage('pinger', '1.0.0', [{ name: 'server.mjs', data: Buffer.from(server) }], {
      entry: { server: 'server.mjs' }, capabilities: ['routes', 'storage'],
      contributes: { routes: [
        { method: 'GET', path: '/status', access: 'public' }, { method: 'POST', path: '/ping', access: 'member' },
        { method: 'GET', path: '/secret', access: 'admin' }, { method: 'GET', path: '/teapot', access: 'public' }, { method: 'GET', path: '/slow', access: 'public' },
      ] },
    });
    const t = Math.floor(Date.now() / 1000);
    const [m] = await rt.db.insert(module).values({ uid: 'pinger', developerId: people.boss!.id, name: 'Pinger', category: 'tools', status: 'published', createTime: t, updateTime: t }).returning();
    await publish('1.0.0', bytes, m!.id, 'pinger');
    const get = async (path: string, who?: string, lang = 'en') => (await raw(srv.url, path, { headers: { 'think-lang': lang, ...(who ? { 'ba-user-token': people[who]!.token } : {}) } }));
    expect((await get('/api/m/pinger/status')).status).toBe(404);
    expect((await post('boss', '/api/modules/lifecycle', { uid: 'pinger', action: 'install' })).code).toBe(1);
    await until(() => rt.modules.list().some((a) => a.uid === 'pinger'), 'pinger');
    expect((await get('/api/m/pinger/status')).json()).toMatchObject({ code: 1, data: { ok: true, pings: 0 } });
    expect((await postJson(srv.url, '/api/m/pinger/ping', { say: 'hi' }, { 'think-lang': 'en' })).json()).toMatchObject({ code: 303 });
    expect(await post('writer', '/api/m/pinger/ping', { say: 'hi' })).toMatchObject({ code: 1, data: { pings: 1, by: people.writer!.id, said: 'hi' } });
    expect((await get('/api/m/pinger/secret', 'writer')).json().code).toBe(401);
    expect((await get('/api/m/pinger/secret', 'boss')).json()).toMatchObject({ code: 1, data: 'for administrators' });
    const teapot = await get('/api/m/pinger/teapot', undefined, 'zh-cn');
    expect(teapot.status).toBe(418);
    expect(teapot.json()).toMatchObject({ code: 0, msg: '模块 pinger 拒绝了此请求', data: { why: 'short and stout' } });
    expect((await get('/api/m/pinger/undeclared')).status).toBe(404);
    const slow = await get('/api/m/pinger/slow');
    expect(slow.status).toBe(504);
    expect(slow.json().msg).toBe('The module pinger could not answer; try again later');
    // Its store is its own: the site's key-value rows carry its uid.
    expect(await rt.db.select().from(moduleKv).where(eq(moduleKv.moduleUid, 'pinger'))).toEqual([expect.objectContaining({ key: 'pings', value: 1 })]);
  }, scaled(60_000));
});

describe('a module told of site events', () => {
  it('gets each event once after commit, from the outbox; a failing one is kept for a retry', async () => {
    const server = `export default { hooks: { async onEvent(name, payload, ctx) {
  if (name === 'reply.created') throw new Error('not today');
  await ctx.store.set(name + ':' + payload.id, payload);
} } };\n`;
    const bytes = modulePackage('listener', '1.0.0', [{ name: 'server.mjs', data: Buffer.from(server) }], {
      entry: { server: 'server.mjs' }, capabilities: ['events', 'storage'], contributes: { events: ['post.created', 'reply.created', 'member.joined'] },
    });
    const t = Math.floor(Date.now() / 1000);
    const [m] = await rt.db.insert(module).values({ uid: 'listener', developerId: people.boss!.id, name: 'Listener', category: 'tools', status: 'published', createTime: t, updateTime: t }).returning();
    await publish('1.0.0', bytes, m!.id, 'listener');
    expect((await post('boss', '/api/modules/lifecycle', { uid: 'listener', action: 'install' })).code).toBe(1);
    await until(() => rt.modules.list().some((a) => a.uid === 'listener'), 'listener');
    const [discussion] = await rt.db.select({ id: askCategory.id }).from(askCategory).where(eq(askCategory.slug, 'discussion'));
    const made = await post<{ id: number }>('boss', '/api/ask/post', { title: 'Told to modules', content: 'Hello modules', category_id: discussion!.id, nonce: 'events-1' });
    expect(made.code, made.msg).toBe(1);
    const key = `post.created:${made.data.id}`;
    await until(async () => (await rt.db.select().from(moduleKv).where(and(eq(moduleKv.moduleUid, 'listener'), eq(moduleKv.key, key)))).length === 1, 'the event');
    const [stored] = await rt.db.select().from(moduleKv).where(and(eq(moduleKv.moduleUid, 'listener'), eq(moduleKv.key, key)));
    expect(stored!.value).toMatchObject({ id: made.data.id, title: 'Told to modules', url: `/ask/info/${made.data.id}`, authorId: people.boss!.id });
    // Handled events leave the outbox; the failing reply event stays, tried once, due again later.
    const reply = await post<{ id: number }>('writer', '/api/ask/reply', { post_id: made.data.id, content: 'A reply', nonce: 'events-2' });
    expect(reply.code, reply.msg).toBe(1);
    await until(async () => (await rt.db.select().from(moduleEvent).where(eq(moduleEvent.moduleUid, 'listener'))).some((e) => e.attempts === 1), 'the retry');
    const left = await rt.db.select().from(moduleEvent).where(eq(moduleEvent.moduleUid, 'listener'));
    expect(left).toEqual([expect.objectContaining({ event: 'reply.created', attempts: 1 })]);
    expect(left[0]!.nextTime).toBeGreaterThan(Math.floor(Date.now() / 1000));
    // A module that is not installed gets nothing recorded; uninstalling drops what waited.
    expect(await runCommand(['module:uninstall', 'listener'], rt, { out: () => undefined, err: () => undefined, cwd: process.cwd() })).toBe(0);
    expect(await rt.db.select().from(moduleEvent).where(eq(moduleEvent.moduleUid, 'listener'))).toEqual([]);
  }, scaled(60_000));
});

describe('safe mode', () => {
  it('starts with every module disabled, whatever the wanted state', async () => {
    const safe = await startInProcess({ ATRIUM_SAFE_MODE: '1' });
    try {
      await safe.runtime.db.insert(moduleInstall).values({ uid: 'shout', version: '1.0.0', createTime: 0, sha256: 'a'.repeat(64) });
      await safe.runtime.modules.reconcile();
      expect(safe.runtime.modules.safeMode).toBe(true);
      expect(safe.runtime.modules.list()).toEqual([]);
    } finally {
      await safe.stop();
    }
  });
});
