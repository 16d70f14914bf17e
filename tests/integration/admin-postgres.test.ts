// Operators on PostgreSQL and Redis (issue 18): a setting changed on one instance is seen by the
// other at once; a backup taken through the driver restores into an empty PostgreSQL database and
// serves the same content; /metrics behind METRICS_TOKEN.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshPostgres, postJson, raw, startServer, type TestServer } from '../helpers/server';
import { PG_PREFIX, ROOT, TMP } from '../helpers/paths';
import { memberRecords, PASSWORD, prepareAdminSite, setupPath, type AdminSite } from '../helpers/admin-site';
import { scaled } from '../helpers/time-scale.mjs';

const enabled = Boolean(process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL);
type Env = { code: number; msg: string; data: Record<string, unknown> };

describe.skipIf(!enabled)('operators on PostgreSQL + Redis', () => {
  let a: TestServer;
  let b: TestServer;
  let site: AdminSite;
  let databaseUrl: string;
  let dataDir: string;
  let admin = '';
  const env = (): Record<string, string> => ({ DATABASE_URL: databaseUrl, REDIS_URL: process.env.TEST_REDIS_URL!, REDIS_PREFIX: `${PG_PREFIX}-admin-${Date.now()}:`, METRICS_TOKEN: 'scrape-me' });

  beforeAll(async () => {
    databaseUrl = await freshPostgres();
    dataDir = mkdtempSync(join(TMP, 'admin-pg-'));
    site = await prepareAdminSite({ DATA_DIR: dataDir, DATABASE_URL: databaseUrl });
    const shared = env();
    // A logs every statement as slow (threshold 0 ms), to show what a slow query's line carries.
    a = await startServer({ dataDir, env: { ...shared, SLOW_QUERY_MS: '0' } });
    // The instance started last holds the valid setup link (each start replaces the token).
    b = await startServer({ dataDir, env: shared });
  }, scaled(120_000));

  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('a setting saved on one instance is seen by the other without a restart', async () => {
    const token = new URL(setupPath(b.logs())!, b.url).searchParams.get('token');
    const res = await postJson(b.url, '/api/install/create', { token, username: 'boss', email: 'boss@example.com', password: PASSWORD, site_name: 'First name' });
    expect(res.json<Env>().code, res.text).toBe(1);
    admin = ([] as string[]).concat(res.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]).join('; ');
    const siteName = async (srv: TestServer): Promise<string> => ((await raw(srv.url, '/api/index/index?requiredLogin=0')).json<Env>().data.site as { siteName: string }).siteName;
    expect(await siteName(a)).toBe('First name');
    const saved = await postJson(a.url, '/api/admin/settings', { values: { site_name: 'Second name' } }, { cookie: admin, origin: a.url });
    expect(saved.json<Env>().code, saved.text).toBe(1);
    let seen = '';
    for (let i = 0; i < 40 && seen !== 'Second name'; i++) {
      seen = await siteName(b);
      if (seen !== 'Second name') await new Promise((r) => setTimeout(r, 50));
    }
    expect(seen).toBe('Second name');
    // The page B renders says so too (its page cache was dropped through the bus).
    expect((await raw(b.url, '/')).text).toContain('Second name');
  });

  it('serves /metrics only with the token', async () => {
    expect((await raw(a.url, '/metrics')).status).toBe(401);
    const m = await raw(a.url, '/metrics', { headers: { authorization: 'Bearer scrape-me' } });
    expect(m.status).toBe(200);
    expect(m.text).toMatch(/atrium_http_requests_total\{route="\/api\/admin\/settings",method="POST",status="200"\} 1/);
    expect(m.text).toMatch(/atrium_http_request_duration_seconds_bucket\{le="[\d.]+",route="\/api\/index\/index",method="GET"\}/);
    expect(m.text).toMatch(/atrium_db_pool_connections\{state="total"\} \d+/);
    expect(m.text).toMatch(/atrium_bus_events_total\{channel="cache"\} 1/);
    expect(m.text).toContain('atrium_page_cache_hits_total');
    expect(m.text).toContain('atrium_open_connections');
    expect(m.text).toMatch(/atrium_db_query_duration_seconds_count \d+/);
    // Slow queries are logged with the request and route that ran them, inside transactions too:
    // a login's statements run in one (update member, login history, session tokens).
    expect(a.logs()).toMatch(/slow query \{"requestId":"[^"]+","route":"[^"]+","ms":\d+,"sql":"select/);
    const login = await postJson(a.url, '/api/user/checkIn', { tab: 'login', username: 'boss', password: PASSWORD });
    expect(login.json<Env>().code, login.text).toBe(1);
    const inLogin = (): string[] => a.logs().split('\n').filter((l) => l.includes('slow query') && l.includes('"route":"/api/user/checkIn"') && l.includes('"transaction":true'));
    for (let i = 0; i < 40 && !inLogin().some((l) => l.includes('user_login_log')); i++) await new Promise((r) => setTimeout(r, 50));
    const inTransaction = inLogin();
    expect(inTransaction.some((l) => l.includes('"sql":"update \\"user\\" set'))).toBe(true);
    expect(inTransaction.some((l) => l.includes('"sql":"insert into \\"token\\"'))).toBe(true);
    expect(inTransaction.some((l) => l.includes('user_login_log'))).toBe(true);
  });

  it('backs up through the driver and restores into an empty PostgreSQL database serving the same posts, books, orders and files', async () => {
    const file = join(TMP, `admin-pg-${Date.now()}.backup.gz`);
    const cliEnv = { ...(process.env as Record<string, string>), ATRIUM_ROOT: ROOT, DATA_DIR: dataDir, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' };
    const backup = spawnSync(process.execPath, [join(ROOT, 'dist/cli.mjs'), 'backup', file], { env: cliEnv, encoding: 'utf8' });
    expect(backup.stderr).toBe('');
    expect(backup.stdout).toMatch(/^Backup written/);
    // An empty database: created, nothing in it.
    const name = `${PG_PREFIX}_restore_${Date.now().toString(36)}`;
    const adminClient = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await adminClient.connect();
    await adminClient.query(`create database ${name}`);
    await adminClient.end();
    const target = new URL(process.env.TEST_DATABASE_URL!);
    target.pathname = `/${name}`;
    const emptyDir = mkdtempSync(join(TMP, 'admin-pg-restored-'));
    const restore = spawnSync(process.execPath, [join(ROOT, 'dist/cli.mjs'), 'restore', file], { env: { ...cliEnv, DATABASE_URL: target.toString(), DATA_DIR: emptyDir }, encoding: 'utf8' });
    expect(restore.stderr).toBe('');
    // The upload. The editor's package came with the template database (its file in the template's
    // folder, its bytes in the shared package table, restored as rows).
    expect(restore.stdout).toMatch(/^Restored \d+ rows and 1 files from a postgres backup/);
    // Restoring again onto what now has members is refused.
    const again = spawnSync(process.execPath, [join(ROOT, 'dist/cli.mjs'), 'restore', file], { env: { ...cliEnv, DATABASE_URL: target.toString(), DATA_DIR: emptyDir }, encoding: 'utf8' });
    expect(again.status).toBe(1);
    const c = await startServer({ dataDir: emptyDir, env: { DATABASE_URL: target.toString() } });
    try {
      for (const path of [`/ask/info/${site.postId}`, '/md/handbook', site.file]) {
        const [x, y] = await Promise.all([raw(a.url, path), raw(c.url, path)]);
        expect(y.status, path).toBe(200);
        expect(y.text.match(/<h1[^>]*>[^<]*/)?.[0] ?? y.text).toBe(x.text.match(/<h1[^>]*>[^<]*/)?.[0] ?? x.text);
      }
      // The same orders and balance log (module market and ledger) for the member who bought.
      const [before, after] = await Promise.all([memberRecords(a.url, site.buyer), memberRecords(c.url, site.buyer)]);
      expect(before.orders.map((o) => o.order_no)).toEqual([site.orderNo]);
      expect(before.balance.length).toBe(2);
      expect(after).toEqual(before);
      // The administrator came along: no setup link, and the same login works.
      expect(setupPath(c.logs())).toBeNull();
      const login = await postJson(c.url, '/api/user/checkIn', { tab: 'login', username: 'boss', password: PASSWORD });
      expect(login.json<Env>().code).toBe(1);
    } finally {
      await c.stop();
      rmSync(emptyDir, { recursive: true, force: true });
    }
  }, scaled(120_000));
});
