// The module host (issue 26 item 5): each fixture module in tests/fixtures/modules runs in its own
// process under Node's permission model, and a faulty one costs the site nothing but its own calls.
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/lib/server/db/client';
import { ModuleHost, type ModuleHostOptions } from '../../src/lib/server/modules/host/host';
import { MemoryKvBackend } from '../../src/lib/server/modules/host/kv';
import { DbKvBackend } from '../../src/lib/server/modules/host/kv-db';
import { ModuleCallError, type HookName, type HostedModule } from '../../src/lib/server/modules/host/types';
import { ROOT, TEMPLATE_DIR, TMP } from '../helpers/paths';
import { freshPostgres } from '../helpers/server';
import { scaled } from '../helpers/time-scale.mjs';

const FIXTURES = join(ROOT, 'tests', 'fixtures', 'modules');
let site: string;
let hosts: ModuleHost[] = [];

beforeAll(() => {
  mkdirSync(TMP, { recursive: true });
  site = mkdtempSync(join(TMP, 'module-host-'));
  // What a module must not reach: the site's database folder beside the modules' data folders.
  mkdirSync(join(site, 'db'), { recursive: true });
  writeFileSync(join(site, 'db', 'PG_VERSION'), '17\n');
});
// close() only signals the hosts' processes: the next test starts once they are gone, so its count of
// this file's processes sees its own (on a busy machine an exit takes a while).
afterEach(async () => {
  for (const h of hosts) h.close();
  hosts = [];
  await until(() => hostChildren().length === 0);
});
afterAll(() => rmSync(site, { recursive: true, force: true }));

function mod(fixture: string, opts: { uid?: string; hooks?: HookName[]; entry?: string } = {}): HostedModule {
  const uid = opts.uid ?? fixture;
  return {
    uid,
    version: '1.0.0',
    packageDir: join(FIXTURES, fixture),
    dataDir: join(site, 'modules', uid),
    serverEntry: opts.entry ?? 'server.mjs',
    hooks: opts.hooks ?? ['render', 'onEvent', 'route'],
  };
}

function newHost(opts: Partial<ModuleHostOptions> = {}, ...modules: HostedModule[]): ModuleHost {
  const host = new ModuleHost({ kv: new MemoryKvBackend(), runtimeDir: join(site, 'run'), onOutput: () => undefined, ...opts });
  for (const m of modules) host.register(m);
  hosts.push(host);
  return host;
}

async function failure(p: Promise<unknown>): Promise<ModuleCallError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ModuleCallError) return e;
    throw e;
  }
  throw new Error('the call succeeded');
}

/** Processes whose parent is this one and that run a module host bootstrap. */
function hostChildren(): number[] {
  const out: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      // This file's hosts only (their bootstrap lies in its site's run folder): other files of the worker
      // may still be stopping theirs.
      if (ppid === process.pid && readFileSync(`/proc/${d}/cmdline`, 'utf8').includes(join(site, 'run', 'module-host-'))) out.push(Number(d));
    } catch {
      // Gone between the listing and the read.
    }
  }
  return out;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function rssMb(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  return kb / 1024;
}

async function until(cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + scaled(ms);
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('module host', () => {
  it('starts no process until a module is called, then serves hooks, routes, events and the scoped store', async () => {
    const kv = new MemoryKvBackend();
    const host = newHost({ kv }, mod('ok'), mod('ok', { uid: 'ok2' }));
    expect(host.runningPids()).toEqual([]);
    expect(hostChildren()).toEqual([]);
    expect(host.status('ok')).toMatchObject({ state: 'stopped', pid: null, starts: 0 });

    expect(await host.call('ok', 'render', ['hi', { kind: 'post', locale: 'en' }])).toBe('<span class="ok" data-kind="post">hi</span>');
    expect(host.status('ok')).toMatchObject({ state: 'running', starts: 1 });
    expect(hostChildren()).toEqual(host.runningPids());
    expect(await host.call('ok', 'route', [{ method: 'POST', path: '/echo', query: {}, body: { a: [1, 2] }, memberId: null }])).toEqual({ status: 200, body: { echo: { a: [1, 2] }, banner: 'ok-banner' } });
    expect(await host.call('ok', 'route', [{ method: 'GET', path: '/nope', query: {}, body: null, memberId: null }])).toEqual({ status: 404, body: null });
    // Its working directory is its data folder, which it may write.
    expect(await host.call('ok', 'route', [{ method: 'GET', path: '/data-file', query: {}, body: null, memberId: null }])).toEqual({ status: 201, body: 'ok' });
    expect(readFileSync(join(site, 'modules', 'ok', 'note.txt'), 'utf8')).toBe('ok');

    await host.call('ok', 'onEvent', ['post.created', { id: 1 }]);
    await host.call('ok', 'onEvent', ['post.created', { id: 2 }]);
    expect(await kv.get('ok', 'count:post.created')).toBe(2);
    const list = (q: Record<string, string>, uid = 'ok') => host.call(uid, 'route', [{ method: 'GET', path: '/store', query: q, body: null, memberId: null }]);
    expect((await list({ key: 'note:a', v: 'x', prefix: 'note:' })).body).toEqual([{ key: 'note:a', value: { v: 'x' } }]);
    // Another module's store is its own, even running the same code.
    expect((await list({ prefix: '' }, 'ok2')).body).toEqual([]);
    expect(await kv.get('ok2', 'note:a')).toBeNull();
    // What the module sends is checked: a Date is not JSON.
    const bad = await failure(host.call('ok', 'route', [{ method: 'GET', path: '/bad-store', query: {}, body: null, memberId: null }]));
    expect(bad.kind).toBe('threw');
    expect(bad.message).toMatch(/value must be JSON/);
  });

  it('passes each call the module\'s settings, the caller\'s language and its strings (ctx.settings, ctx.locale, ctx.t); runs onJob', async () => {
    const kv = new MemoryKvBackend();
    const host = newHost({ kv }, mod('context', { hooks: ['route', 'onJob'] }));
    const ctxOf = (locale?: string) => host.call('context', 'route', [{ method: 'GET', path: '/ctx', query: {}, body: null, memberId: null }], { locale });
    expect((await ctxOf()).body).toEqual({ settings: {}, frozen: true, locale: 'zh-cn', greeting: '你好，Ada', missing: 'no.such.key' });
    host.configure('context', { colour: 'red' });
    expect((await ctxOf('en')).body).toEqual({ settings: { colour: 'red' }, frozen: true, locale: 'en', greeting: 'Hello, Ada', missing: 'no.such.key' });
    // Settings reach the running process with the next call: no restart.
    host.configure('context', { colour: 'green' });
    expect((await ctxOf('en')).body).toMatchObject({ settings: { colour: 'green' } });
    expect(host.status('context')!.starts).toBe(1);
    expect(await host.call('context', 'onJob', ['tidy'])).toBeNull();
    expect(await kv.get('context', 'job:tidy')).toEqual({ settings: { colour: 'green' }, locale: 'zh-cn', text: '你好，job' });
  });

  it('gives the module a clean environment, not the site\'s secrets', async () => {
    process.env.ATRIUM_TEST_SECRET = 'do-not-leak';
    try {
      const host = newHost({}, mod('ok'));
      const keys = (await host.call('ok', 'route', [{ method: 'GET', path: '/env', query: {}, body: null, memberId: null }])).body as string[];
      expect(keys).not.toContain('ATRIUM_TEST_SECRET');
      expect(keys).not.toContain('TEST_DATABASE_URL');
    } finally {
      delete process.env.ATRIUM_TEST_SECRET;
    }
  });

  it('refuses calls to unknown modules and undeclared hooks without starting a process', async () => {
    const host = newHost({}, mod('ok', { hooks: ['render'] }));
    expect((await failure(host.call('ok', 'route', [{ method: 'GET', path: '/', query: {}, body: null, memberId: null }]))).kind).toBe('not-declared');
    expect((await failure(host.call('nope', 'render', ['x', { kind: 'post', locale: 'en' }]))).kind).toBe('unknown-module');
    expect(host.status('ok')?.starts).toBe(0);
    expect(() => host.register({ ...mod('ok'), serverEntry: '../loop/server.mjs' })).toThrow(/inside the package/);
    expect(() => host.register({ ...mod('ok'), dataDir: 'relative/data' })).toThrow(/absolute/);
  });

  it('checks the shape of what a module answers, even when it writes to the channel itself', async () => {
    const host = newHost({}, mod('ok'));
    // The first call of a fresh host has id 1: the fixture answers it with an object, not a string.
    const err = await failure(host.call('ok', 'render', ['forge', { kind: 'post', locale: 'en' }]));
    expect(err).toMatchObject({ kind: 'threw', message: 'render answered with a result of the wrong shape' });
  });

  it('reports a hook that throws, keeps its process, and serves other modules meanwhile', async () => {
    const host = newHost({}, mod('throws'), mod('ok'));
    const ctx = { kind: 'post', locale: 'en' };
    const [err, ok] = await Promise.all([failure(host.call('throws', 'render', ['x', ctx])), host.call('ok', 'render', ['y', ctx])]);
    expect(err).toMatchObject({ kind: 'threw', uid: 'throws', message: 'render is broken (call 1)' });
    expect(ok).toContain('y');
    expect((await failure(host.call('throws', 'render', ['x', ctx]))).message).toBe('render is broken (call 2)');
    expect(host.status('throws')).toMatchObject({ state: 'running', starts: 1, recentFailures: [], disabledReason: null });
  });

  it('times out a module stuck in a loop, kills its host, and the site answers other calls meanwhile', async () => {
    const host = newHost({}, mod('loop'), mod('ok'));
    const ctx = { kind: 'post', locale: 'en' };
    await host.call('loop', 'render', ['fine', ctx]);
    await host.call('ok', 'render', ['warm', ctx]);
    const loopPid = host.status('loop')!.pid!;
    const started = Date.now();
    const stuck = failure(host.call('loop', 'render', ['spin', ctx], { timeoutMs: 1000 }));
    // While the loop spins: the other module answers and this process's timers run.
    const answered: number[] = [];
    for (let i = 0; i < 5; i++) {
      expect(await host.call('ok', 'render', [`n${i}`, ctx])).toContain(`n${i}`);
      answered.push(Date.now() - started);
    }
    const err = await stuck;
    const elapsed = Date.now() - started;
    expect(err.kind).toBe('timeout');
    expect(err.message).toMatch(/render did not answer within 1000 ms/);
    expect(elapsed).toBeGreaterThanOrEqual(990);
    expect(elapsed).toBeLessThan(3000);
    expect(answered.at(-1)!).toBeLessThan(1000);
    await until(() => !alive(loopPid));
    expect(host.status('loop')).toMatchObject({ state: 'stopped', recentFailures: [{ reason: 'render did not answer within 1000 ms' }] });
    // The next call starts a fresh host.
    expect(await host.call('loop', 'render', ['fine', ctx])).toBe('fine');
    expect(host.status('loop')?.starts).toBe(2);
  });

  it('restarts a crashed host on the next call and disables the module after N crashes', async () => {
    const disabled: [string, string][] = [];
    const host = newHost({ maxCrashes: 3, onDisabled: (uid, reason) => disabled.push([uid, reason]) }, mod('crash'));
    const ctx = { kind: 'post', locale: 'en' };
    const first = await failure(host.call('crash', 'render', ['async', ctx]));
    expect(first.kind).toBe('crashed');
    expect(first.message).toMatch(/async boom/);
    expect(host.status('crash')).toMatchObject({ state: 'stopped', starts: 1 });
    const second = await failure(host.call('crash', 'render', ['exit', ctx]));
    expect(second).toMatchObject({ kind: 'crashed', message: 'the host process exited with code 3' });
    expect(host.status('crash')?.starts).toBe(2);
    expect(disabled).toEqual([]);
    expect((await failure(host.call('crash', 'render', ['exit', ctx]))).kind).toBe('crashed');
    expect(disabled).toHaveLength(1);
    const [disabledUid, reason] = disabled[0]!;
    expect(disabledUid).toBe('crash');
    expect(reason).toMatch(/^disabled after 3 crashes within 600 s; last: the host process exited with code 3/);
    const status = host.status('crash')!;
    expect(status).toMatchObject({ state: 'disabled', pid: null, starts: 3, disabledReason: reason });
    expect(status.recentFailures).toHaveLength(3);
    // Disabled: refused at once, no process started.
    expect(await failure(host.call('crash', 'render', ['exit', ctx]))).toMatchObject({ kind: 'disabled', message: reason });
    expect(host.status('crash')?.starts).toBe(3);
    // The administrator re-enables it: it runs again.
    host.enable('crash');
    expect((await failure(host.call('crash', 'render', ['exit', ctx]))).kind).toBe('crashed');
    expect(host.status('crash')).toMatchObject({ state: 'stopped', starts: 4, recentFailures: [{ reason: 'the host process exited with code 3' }] });
  });

  it("caps a host's heap: a module that allocates without end crashes its own process only", async () => {
    const host = newHost({ maxOldSpaceMb: 32 }, mod('crash'), mod('ok'));
    const ctx = { kind: 'post', locale: 'en' };
    const err = await failure(host.call('crash', 'render', ['hog', ctx], { timeoutMs: 20_000 }));
    expect(err.kind).toBe('crashed');
    expect(err.message).toMatch(/heap|memory/i);
    expect(host.status('crash')?.recentFailures).toHaveLength(1);
    expect(await host.call('ok', 'render', ['still here', ctx])).toContain('still here');
  });

  it('counts a module that fails to load as a crash, with its error as the reason', async () => {
    const host = newHost({ maxCrashes: 1 }, mod('crash', { entry: 'load.mjs' }));
    const err = await failure(host.call('crash', 'render', ['x', { kind: 'post', locale: 'en' }]));
    expect(err).toMatchObject({ kind: 'crashed', message: 'failed to load: cannot load: missing configuration' });
    expect(host.status('crash')).toMatchObject({ state: 'disabled', disabledReason: expect.stringMatching(/missing configuration/) });
  });

  it('denies reading outside the package and data folders (another module, the site database, /etc)', async () => {
    const host = newHost({}, mod('reads-outside'));
    const read = (path: string) => host.call('reads-outside', 'render', [path, { kind: 'post', locale: 'en' }]);
    expect(await read(join(FIXTURES, 'reads-outside', 'server.mjs'))).toMatch(/^read:\d+$/);
    expect(await read('/etc/hostname')).toBe('denied:ERR_ACCESS_DENIED');
    expect(await read(join(site, 'db', 'PG_VERSION'))).toBe('denied:ERR_ACCESS_DENIED');
    expect(await read(join(FIXTURES, 'ok', 'banner.txt'))).toBe('denied:ERR_ACCESS_DENIED');
    expect(await read(join(ROOT, 'package.json'))).toBe('denied:ERR_ACCESS_DENIED');
  });

  it('denies writing outside the data folder, its own package included', async () => {
    const host = newHost({}, mod('writes-outside'));
    const write = (path: string) => host.call('writes-outside', 'render', [path, { kind: 'post', locale: 'en' }]);
    expect(await write(join(site, 'db', 'evil'))).toBe('denied:ERR_ACCESS_DENIED');
    expect(await write(join(FIXTURES, 'writes-outside', 'evil.mjs'))).toBe('denied:ERR_ACCESS_DENIED');
    expect(await write(join(site, 'modules', 'evil'))).toBe('denied:ERR_ACCESS_DENIED');
    expect(existsSync(join(site, 'db', 'evil'))).toBe(false);
    expect(await write(join(site, 'modules', 'writes-outside', 'fine.txt'))).toBe('written');
  });

  it('refuses to start a package that contains a symbolic link (the permission model follows links)', async () => {
    const pkg = join(site, 'packages', 'linked');
    cpSync(join(FIXTURES, 'ok'), pkg, { recursive: true });
    symlinkSync('/etc/hostname', join(pkg, 'lib', 'host.txt'));
    const disabled: string[] = [];
    const host = newHost({ onDisabled: (_uid, reason) => disabled.push(reason) }, { ...mod('ok', { uid: 'linked' }), packageDir: pkg });
    const err = await failure(host.call('linked', 'render', ['x', { kind: 'post', locale: 'en' }]));
    expect(err.kind).toBe('disabled');
    expect(err.message).toMatch(/symbolic link \(lib\/host.txt\)/);
    expect(disabled).toEqual([err.message]);
    expect(host.status('linked')).toMatchObject({ state: 'disabled', starts: 0 });
  });

  it("does not pass the store backend's own errors to the module", async () => {
    const kv = new MemoryKvBackend();
    kv.list = async () => { throw new Error('connection to postgres://admin:secret@db failed'); };
    const host = newHost({ kv }, mod('ok'));
    const err = await failure(host.call('ok', 'route', [{ method: 'GET', path: '/store', query: {}, body: null, memberId: null }]));
    expect(err).toMatchObject({ kind: 'threw', message: 'the store failed' });
  });

  it('denies starting processes and workers', async () => {
    const host = newHost({}, mod('spawns'));
    expect(await host.call('spawns', 'render', ['', { kind: 'post', locale: 'en' }])).toBe('spawn:ERR_ACCESS_DENIED,worker:ERR_ACCESS_DENIED');
  });

  it('stops an idle host and leaves no process behind', async () => {
    const host = newHost({ idleMs: 300 }, mod('ok'));
    await host.call('ok', 'render', ['a', { kind: 'post', locale: 'en' }]);
    const pid = host.status('ok')!.pid!;
    expect(alive(pid)).toBe(true);
    await until(() => !alive(pid));
    expect(host.status('ok')).toMatchObject({ state: 'stopped', pid: null, recentFailures: [] });
    expect(hostChildren()).toEqual([]);
    // An idle stop is not a crash, and the next call starts it again.
    expect(await host.call('ok', 'render', ['b', { kind: 'post', locale: 'en' }])).toContain('b');
    expect(host.status('ok')?.starts).toBe(2);
  });

  it('warm starts a host before any call; the first call uses it, and it stops when idle like any other', async () => {
    const host = newHost({ idleMs: 400 }, mod('ok'));
    host.warm('nobody');
    expect(hostChildren()).toEqual([]);
    host.warm('ok');
    expect(host.status('ok')).toMatchObject({ starts: 1 });
    await until(() => host.status('ok')?.state === 'running');
    const pid = host.status('ok')!.pid!;
    expect(hostChildren()).toEqual([pid]);
    expect(await host.call('ok', 'render', ['w', { kind: 'post', locale: 'en' }])).toContain('w');
    expect(host.status('ok')).toMatchObject({ starts: 1, pid });
    await until(() => !alive(pid));
    expect(hostChildren()).toEqual([]);
    // A disabled module is not started.
    host.disable('ok', 'by the test');
    host.warm('ok');
    expect(hostChildren()).toEqual([]);
  });

  it('keeps a trivial module host under 60 MB resident; measures the per-call overhead', async () => {
    const host = newHost({}, mod('ok'));
    const ctx = { kind: 'post', locale: 'en' };
    const t0 = performance.now();
    await host.call('ok', 'render', ['first', ctx]);
    const coldMs = performance.now() - t0;
    const times: number[] = [];
    for (let i = 0; i < 300; i++) {
      const t = performance.now();
      await host.call('ok', 'render', [`text ${i}`, ctx]);
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    const pid = host.status('ok')!.pid!;
    const rss = rssMb(pid);
    const selfRss = ((await host.call('ok', 'route', [{ method: 'GET', path: '/rss', query: {}, body: null, memberId: null }])).body as number) / 2 ** 20;
    console.log(
      `module host: cold start + first call ${coldMs.toFixed(0)} ms; per call p50 ${times[150]!.toFixed(3)} ms, p95 ${times[285]!.toFixed(3)} ms; ` +
        `RSS ${rss.toFixed(1)} MB (/proc), ${selfRss.toFixed(1)} MB (process.memoryUsage)`,
    );
    expect(rss).toBeLessThanOrEqual(60);
  });
});

const kinds = ['pglite', ...(process.env.TEST_DATABASE_URL ? ['postgres' as const] : [])] as const;

describe.each(kinds)('module store in the database (%s)', (kind) => {
  let database: Database;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(TMP, 'module-kv-'));
    if (kind === 'pglite') cpSync(TEMPLATE_DIR, dir, { recursive: true });
    database = await openDatabase({ databaseUrl: kind === 'postgres' ? await freshPostgres() : null, dataDir: dir });
  });
  afterAll(async () => {
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps JSON values per module: get, set (upsert), delete, list by prefix in byte order, purge', async () => {
    const kv = new DbKvBackend(database.db);
    expect(await kv.get('a', 'k')).toBeNull();
    await kv.set('a', 'k', { n: 1, s: ['x'] });
    await kv.set('a', 'k', { n: 2 });
    await kv.set('a', 'nul', null);
    await kv.set('a', 'str', 'text');
    await kv.set('a', 'p:b', 2);
    await kv.set('a', 'p:B', 1);
    await kv.set('a', 'p:a', true);
    await kv.set('b', 'p:z', 'other module');
    expect(await kv.get('a', 'k')).toEqual({ n: 2 });
    expect(await kv.get('a', 'nul')).toBeNull();
    expect(await kv.get('a', 'str')).toBe('text');
    expect(await kv.list('a', 'p:', 10)).toEqual([{ key: 'p:B', value: 1 }, { key: 'p:a', value: true }, { key: 'p:b', value: 2 }]);
    expect(await kv.list('a', 'p:', 2)).toHaveLength(2);
    expect(await kv.list('a', '%', 10)).toEqual([]);
    expect(await kv.delete('a', 'k')).toBe(true);
    expect(await kv.delete('a', 'k')).toBe(false);
    expect(await kv.purge('a')).toBe(5);
    expect(await kv.list('a', '', 10)).toEqual([]);
    expect(await kv.list('b', '', 10)).toEqual([{ key: 'p:z', value: 'other module' }]);
  });

  it("serves a module's ctx.store through the host", async () => {
    const kv = new DbKvBackend(database.db);
    const host = newHost({ kv }, mod('ok', { uid: `ok-${kind}` }));
    await host.call(`ok-${kind}`, 'onEvent', ['member.joined', { id: 7 }]);
    await host.call(`ok-${kind}`, 'onEvent', ['member.joined', { id: 8 }]);
    expect(await kv.get(`ok-${kind}`, 'count:member.joined')).toBe(2);
  });
});
