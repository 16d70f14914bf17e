// The code that changes data drops the pages built from it: here, in the same process, and on
// every other instance sharing Redis.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readConfig } from '../../src/lib/server/env';
import type { Runtime } from '../../src/lib/server/runtime';
import { createRuntime } from '../../src/lib/server/boot/runtime';
import { ROOT, TEMPLATE_DIR, TMP } from '../helpers/paths';
import { freshPostgres } from '../helpers/server';
import { scaled } from '../helpers/time-scale.mjs';

const open: Runtime[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((r) => r.close()));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function config(env: Record<string, string>) {
  return readConfig({ ATRIUM_ROOT: ROOT, LOG_LEVEL: 'warn', ...env });
}

const page = (tags: string[]) => ({ status: 200, headers: {}, body: Buffer.from('<p>x</p>'), tags });

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
});
