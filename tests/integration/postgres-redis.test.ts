// Several instances sharing PostgreSQL and Redis: migrations, shared rate limits, cache invalidation.
// Needs TEST_DATABASE_URL and TEST_REDIS_URL (`.ci/run` sets both); skipped without them.
import { afterAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { Redis } from 'ioredis';
import { raw, startServer, type TestServer } from '../helpers/server';
import { createRedisBus } from '../../src/lib/server/bus';
import { PageCache } from '../../src/lib/server/page-cache';
import { Invalidation } from '../../src/lib/server/invalidation';
import { scaled } from '../helpers/time-scale.mjs';

const DB = process.env.TEST_DATABASE_URL;
const REDIS = process.env.TEST_REDIS_URL;
const started: TestServer[] = [];
afterAll(async () => { await Promise.all(started.map((s) => s.stop())); });

async function emptyDatabase(): Promise<string> {
  const name = `atrium_e_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 7)}`;
  const admin = new pg.Client({ connectionString: DB });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const u = new URL(DB!);
  u.pathname = `/${name}`;
  return u.toString();
}

describe.skipIf(!DB || !REDIS)('PostgreSQL and Redis', () => {
  it('migrates once when two instances start on an empty database at the same time', async () => {
    const url = await emptyDatabase();
    const prefix = `t${Date.now()}:`;
    const env = { DATABASE_URL: url, REDIS_URL: REDIS!, REDIS_PREFIX: prefix };
    const [a, b] = await Promise.all([startServer({ env }), startServer({ env })]);
    started.push(a, b);
    for (const s of [a, b]) {
      expect((await raw(s.url, '/healthz')).json<{ database: string }>().database).toBe('up');
      expect((await raw(s.url, '/api/index/index')).json().code).toBe(1);
    }
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const { rows } = await client.query<{ n: number }>('select count(*)::int as n from config where name = $1', ['site_name']);
    // Seeding ran once: the member group and the administrator group, not twice each.
    const groups = await client.query<{ n: number }>('select count(*)::int as n from user_group');
    await client.end();
    expect(rows[0]?.n).toBe(1);
    expect(groups.rows[0]?.n).toBe(2);
  });

  it('shares the API rate limit between instances through Redis', async () => {
    const env = { REDIS_URL: REDIS!, REDIS_PREFIX: `rl${Date.now()}:`, API_RATE_LIMIT: '6' };
    const a = await startServer({ postgres: true, env });
    const b = await startServer({ postgres: true, env });
    started.push(a, b);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      statuses.push((await raw(a.url, '/api/index/index')).status);
      statuses.push((await raw(b.url, '/api/index/index')).status);
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(6);
    expect(statuses.slice(6)).toEqual([429, 429]);
  });

  it('serves pages rendered from PostgreSQL', async () => {
    const s = await startServer({ postgres: true });
    started.push(s);
    const res = await raw(s.url, '/', { headers: { cookie: 'ba-lang=en' } });
    expect(res.status).toBe(200);
    expect(res.text).toContain('>Community</a>');
  });

  it('drops a cached page on every instance when one invalidates it', async () => {
    const prefix = `pc${Date.now()}:`;
    const r1 = new Redis(REDIS!);
    const r2 = new Redis(REDIS!);
    const [busA, busB] = [await createRedisBus(r1, prefix), await createRedisBus(r2, prefix)];
    const a = new PageCache(1 << 20, new Invalidation(busA));
    const b = new PageCache(1 << 20, new Invalidation(busB));
    try {
      await new Promise((r) => setTimeout(r, 100));
      const page = { status: 200, headers: {}, body: Buffer.from('x'), tags: ['ask' as const] };
      await a.set('k', page, a.generation);
      await b.set('k', page, b.generation);
      await a.invalidate(['ask']);
      await expect.poll(() => b.get('k'), { timeout: scaled(2000) }).toBeUndefined();
      expect(a.get('k')).toBeUndefined();
    } finally {
      a.close(); b.close();
      await busA.close(); await busB.close();
      r1.disconnect(); r2.disconnect();
    }
  });
});
