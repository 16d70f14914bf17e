// The code that changes data drops the pages built from it: here, in the same process, and on
// every other instance sharing Redis. A write declares the tags it touched where it writes
// (src/lib/server/write-scope.ts); the request or the command around it publishes them once it
// has committed, so a write through the API and the same write through the CLI drop the same pages.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import { readConfig } from '../../src/lib/server/env';
import type { Runtime } from '../../src/lib/server/runtime';
import type { CacheTag } from '../../src/lib/server/cache-tags';
import { createRuntime } from '../../src/lib/server/boot/runtime';
import { createUser } from '../../src/lib/server/account/users';
import { installModule } from '../../src/lib/server/modules/installs';
import { askCategory } from '../../src/lib/server/db/schema';
import { runCommand } from '../../src/server/cli';
import { startInProcess, type InProcessServer } from '../helpers/in-process';
import { loginAs } from '../helpers/members';
import { ROOT, TEMPLATE_DIR, TMP, PG_PREFIX } from '../helpers/paths';
import { freshPostgres, postJson, raw } from '../helpers/server';
import { scaled } from '../helpers/time-scale.mjs';

const open: Runtime[] = [];
const dirs: string[] = [];
const servers: InProcessServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
  await Promise.all(open.splice(0).map((r) => r.close()));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const EN = { cookie: 'ba-lang=en' };
const QUIET = { out: () => undefined, err: () => undefined, cwd: process.cwd() };

/** A member who may post (the editor installed, old enough for the new-member limits) and their token. */
async function poster(url: string, rt: Runtime, name: string): Promise<{ token: string; category: number }> {
  await installModule(rt.db, 'editor');
  await rt.site.set('user_login_captcha', '0');
  const row = await createUser(rt.db, { username: name, password: 'inval-pass1' });
  await rt.db.execute(sql`update "user" set join_time = join_time - 200000 where id = ${row.id}`);
  const [category] = await rt.db.select({ id: askCategory.id }).from(askCategory).where(eq(askCategory.slug, 'discussion'));
  return { token: (await loginAs(url, rt, name, 'inval-pass1')).token, category: category!.id };
}

/** Reads a page twice, so that the second answer comes from the cache; returns that answer. */
async function cached(url: string, path: string): Promise<{ text: string; hit: boolean }> {
  await raw(url, path, { headers: EN });
  const res = await raw(url, path, { headers: EN });
  return { text: res.text, hit: res.headers['x-atrium-cache'] === 'hit' };
}

function config(env: Record<string, string>) {
  return readConfig({ ATRIUM_ROOT: ROOT, LOG_LEVEL: 'warn', ...env });
}

const page = (tags: CacheTag[]) => ({ status: 200, headers: {}, body: Buffer.from('<p>x</p>'), tags });

describe('cache invalidation by the code that changes data', () => {
  it('a configuration change drops the pages tagged site and re-reads the configuration', async () => {
    const dir = mkdtempSync(join(TMP, 'inv-'));
    dirs.push(dir);
    cpSync(TEMPLATE_DIR, dir, { recursive: true });
    const rt = await createRuntime(config({ DATA_DIR: dir }));
    open.push(rt);
    expect(await rt.site.get('site_name')).toBe('Atrium');
    await rt.pageCache.set('home', page(['site']), rt.pageCache.generation);
    expect(rt.pageCache.get('home')).toBeDefined();
    await rt.site.set('site_name', 'Renamed');
    expect(rt.pageCache.get('home')).toBeUndefined();
    expect(await rt.site.get('site_name')).toBe('Renamed');
    await expect(rt.site.set('no_such_setting', 'x')).rejects.toThrow(/Unknown configuration name/);
  });

  it.skipIf(!process.env.TEST_DATABASE_URL || !process.env.TEST_REDIS_URL)('reaches every instance through Redis', async () => {
    const env = { DATABASE_URL: await freshPostgres(), REDIS_URL: process.env.TEST_REDIS_URL!, REDIS_PREFIX: `inv${Date.now()}:` };
    const a = await createRuntime(config(env));
    const b = await createRuntime(config(env));
    open.push(a, b);
    await new Promise((r) => setTimeout(r, 100)); // subscriptions settle
    expect(await b.site.get('site_name')).toBe('Atrium');
    await b.pageCache.set('home', page(['site']), b.pageCache.generation);
    await a.site.set('site_name', 'Shared');
    await expect.poll(() => b.pageCache.get('home'), { timeout: scaled(3000) }).toBeUndefined();
    await expect.poll(() => b.site.get('site_name'), { timeout: scaled(3000) }).toBe('Shared');
  });

  it.skipIf(!process.env.TEST_REDIS_URL)('a new instance hears the others from its first subscription (its subscriber is ready first)', async () => {
    // ioredis used to send SUBSCRIBE during its handshake; its ready check then failed in
    // subscriber mode ("Connection in subscriber mode") and that instance missed every event.
    const { Redis } = await import('ioredis');
    const { createRedisBus } = await import('../../src/lib/server/bus');
    const prefix = `bus${Date.now().toString(36)}:`;
    const clients: InstanceType<typeof Redis>[] = [];
    const buses: Awaited<ReturnType<typeof createRedisBus>>[] = [];
    try {
      const heard: string[][] = [];
      for (let i = 0; i < 6; i++) {
        const redis = new Redis(process.env.TEST_REDIS_URL!, { lazyConnect: true, maxRetriesPerRequest: 2 });
        clients.push(redis);
        await redis.connect();
        const bus = await createRedisBus(redis, prefix);
        buses.push(bus);
        const got: string[] = [];
        heard.push(got);
        bus.subscribe('ping', (m) => got.push(String((m as { n: number }).n)));
        // The services of a starting instance subscribe over its first milliseconds, some while
        // the subscriber connection is still in its handshake.
        for (let k = 0; k < 20; k++) {
          bus.subscribe(`other-${k}`, () => undefined);
          await new Promise((r) => setImmediate(r));
        }
      }
      await new Promise((r) => setTimeout(r, 100));
      await buses[0]!.publish('ping', { n: 1 });
      await expect.poll(() => heard.map((h) => h.join()), { timeout: scaled(3000) }).toEqual(Array(6).fill('1'));
    } finally {
      for (const b of buses) await b.close();
      for (const c of clients) c.disconnect();
    }
  });
  it('a write through the API and one through the CLI drop the cached pages they change, and no others', async () => {
    const srv = await startInProcess();
    servers.push(srv);
    const rt = srv.runtime;
    const { token, category } = await poster(srv.url, rt, 'invalapi');
    expect((await cached(srv.url, '/ask')).hit).toBe(true);
    expect((await cached(srv.url, '/md')).hit).toBe(true);
    // The forum handler no longer drops anything itself: createPost declared `ask`.
    const posted = await postJson(srv.url, '/api/ask/post', { title: 'Fresh from the API', category_id: category, content: 'Body', nonce: `inv-${Date.now()}` }, { 'ba-user-token': token });
    expect(posted.json<{ code: number }>().code).toBe(1);
    const ask = await raw(srv.url, '/ask', { headers: EN });
    expect(ask.headers['x-atrium-cache']).not.toBe('hit');
    expect(ask.text).toContain('Fresh from the API');
    expect((await raw(srv.url, '/md', { headers: EN })).headers['x-atrium-cache'], 'a forum write keeps the docs cached').toBe('hit');
    // The same way from the CLI: md:book's service declared `md`, the command's unit published it.
    expect(await runCommand(['md:book', 'inval-guide', '--title', 'Invalidated Guide'], rt, QUIET)).toBe(0);
    const md = await raw(srv.url, '/md', { headers: EN });
    expect(md.headers['x-atrium-cache']).not.toBe('hit');
    expect(md.text).toContain('Invalidated Guide');
    expect((await raw(srv.url, '/ask', { headers: EN })).headers['x-atrium-cache'], 'a docs write keeps the forum cached').toBe('hit');
  });

  it('a refused write drops nothing', async () => {
    const srv = await startInProcess();
    servers.push(srv);
    const { token } = await poster(srv.url, srv.runtime, 'invalrefused');
    expect((await cached(srv.url, '/ask')).hit).toBe(true);
    // No such category: the post's transaction rolls back, and its `ask` tag with it.
    const refused = await postJson(srv.url, '/api/ask/post', { title: 'Never written', category_id: 999_999, content: 'Body', nonce: `inv-${Date.now()}` }, { 'ba-user-token': token });
    expect(refused.json<{ code: number }>().code).not.toBe(1);
    expect((await raw(srv.url, '/ask', { headers: EN })).headers['x-atrium-cache']).toBe('hit');
  });

  it.skipIf(!process.env.TEST_DATABASE_URL || !process.env.TEST_REDIS_URL)('another instance serves no stale page after a write through the API or the CLI (PostgreSQL + Redis)', async () => {
    const env = { DATABASE_URL: await freshPostgres(), REDIS_URL: process.env.TEST_REDIS_URL!, REDIS_PREFIX: `${PG_PREFIX}-inv${Date.now()}:` };
    const a = await startInProcess(env);
    servers.push(a);
    const b = await startInProcess(env);
    servers.push(b);
    // The operator's CLI: a process of its own on the same database and Redis.
    const cli = await createRuntime(config({ ...env, DATA_DIR: a.dataDir }), { background: false });
    open.push(cli);
    const { token, category } = await poster(a.url, a.runtime, 'invaltwo');
    await new Promise((r) => setTimeout(r, 100)); // subscriptions settle
    expect((await cached(b.url, '/ask')).hit).toBe(true);
    expect((await cached(b.url, '/md')).hit).toBe(true);
    const posted = await postJson(a.url, '/api/ask/post', { title: 'Written on instance A', category_id: category, content: 'Body', nonce: `inv2-${Date.now()}` }, { 'ba-user-token': token });
    expect(posted.json<{ code: number }>().code).toBe(1);
    await expect.poll(async () => (await raw(b.url, '/ask', { headers: EN })).text, { timeout: scaled(3000) }).toContain('Written on instance A');
    expect(await runCommand(['md:book', 'inval-shared', '--title', 'Shared Guide'], cli, QUIET)).toBe(0);
    await expect.poll(async () => (await raw(b.url, '/md', { headers: EN })).text, { timeout: scaled(3000) }).toContain('Shared Guide');
    await expect.poll(async () => (await raw(a.url, '/md', { headers: EN })).text, { timeout: scaled(3000) }).toContain('Shared Guide');
  });
});
