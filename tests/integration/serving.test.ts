import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { raw, startServer, type TestServer } from '../helpers/server';
import { TEMPLATE_DIR, TMP } from '../helpers/paths';

let server: TestServer;
beforeAll(async () => { server = await startServer(); });
afterAll(async () => { await server?.stop(); });

describe('page cache', () => {
  it('serves a visitor page from memory the second time, with ETag and 304', async () => {
    const first = await raw(server.url, '/md');
    expect(first.headers['x-atrium-cache']).toBeUndefined();
    const second = await raw(server.url, '/md');
    expect(second.headers['x-atrium-cache']).toBe('hit');
    expect(second.text).toBe(first.text);
    const etag = String(second.headers.etag);
    const again = await raw(server.url, '/md', { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
  });

  it('answers a hit with the headers of the page, a request id, HEAD without body, and counts it in /metrics', async () => {
    await raw(server.url, '/ask');
    const hit = await raw(server.url, '/ask');
    expect(hit.headers['x-atrium-cache']).toBe('hit');
    expect(hit.headers['content-type']).toBe('text/html');
    expect(hit.headers['x-content-type-options']).toBe('nosniff');
    expect(hit.headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(hit.headers.vary).toMatch(/Accept-Encoding/);
    expect(hit.headers['x-request-id']).toMatch(/\S/);
    const next = await raw(server.url, '/ask');
    expect(next.headers['x-request-id']).not.toBe(hit.headers['x-request-id']);
    const head = await raw(server.url, '/ask', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(head.headers['content-length']).toBe(String(hit.body.length));
    // A query string is part of the key; a hit on it is still the page.
    await raw(server.url, '/ask?page=1');
    expect((await raw(server.url, '/ask?page=1')).headers['x-atrium-cache']).toBe('hit');
    const metrics = (await raw(server.url, '/metrics')).text;
    const hits = Number(/^atrium_page_cache_hits_total (\d+)/m.exec(metrics)?.[1]);
    expect(hits).toBeGreaterThanOrEqual(4);
    expect(metrics).toMatch(/^atrium_http_requests_total\{route="[^"]+",method="HEAD",status="200"\} [1-9]/m);
    expect(metrics).toMatch(/^atrium_http_request_duration_seconds_count\{route="[^"]+",method="GET"\} [1-9]/m);
  });

  it('keys pages by locale and theme', async () => {
    await raw(server.url, '/modules', { headers: { cookie: 'ba-lang=en' } });
    const en = await raw(server.url, '/modules', { headers: { cookie: 'ba-lang=en' } });
    const zh = await raw(server.url, '/modules', { headers: { cookie: 'ba-lang=zh-cn' } });
    expect(en.headers['x-atrium-cache']).toBe('hit');
    expect(en.text).toContain('<h1 class="page-title">Module market</h1>');
    expect(zh.text).toContain('<h1 class="page-title">模块市场</h1>');
    await raw(server.url, '/modules', { headers: { cookie: 'ba-lang=en; ba-is-dark=true' } });
    const dark = await raw(server.url, '/modules', { headers: { cookie: 'ba-lang=en; ba-is-dark=true' } });
    expect(dark.text).toMatch(/<html[^>]*class="dark"/);
    expect(en.text).not.toMatch(/<html[^>]*class="dark"/);
  });

  it('never serves a request carrying a session from the shared cache', async () => {
    await raw(server.url, '/chat');
    const member = await raw(server.url, '/chat', { headers: { cookie: 'ba-user-token=abc' } });
    expect(member.status).toBe(200);
    expect(member.headers['x-atrium-cache']).toBeUndefined();
  });

  it('does not cache 404 pages or redirects', async () => {
    await raw(server.url, '/nope');
    expect((await raw(server.url, '/nope')).headers['x-atrium-cache']).toBeUndefined();
    await raw(server.url, '/user');
    expect((await raw(server.url, '/user')).status).toBe(302);
  });
});

describe('compression', () => {
  it('sends cached HTML as brotli or gzip as the client accepts', async () => {
    await raw(server.url, '/ask');
    const br = await raw(server.url, '/ask', { headers: { 'accept-encoding': 'br, gzip' } });
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.body).toString()).toContain('data-layout="ask"');
    const gz = await raw(server.url, '/ask', { headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.body).toString()).toContain('data-layout="ask"');
    expect(String(br.headers.vary)).toMatch(/Accept-Encoding/);
  });

  it('compresses rendered HTML and JSON on the fly', async () => {
    const page = await raw(server.url, '/nope-either', { headers: { 'accept-encoding': 'gzip' } });
    expect(page.status).toBe(404);
    expect(page.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(page.body).toString()).toContain('页面未找到');
    const json = await raw(server.url, '/api/index/index', { headers: { 'accept-encoding': 'br' } });
    expect(json.headers['content-encoding']).toBe('br');
    expect(JSON.parse(brotliDecompressSync(json.body).toString()).code).toBe(1);
  });
});

describe('health and shutdown', () => {
  it('reports database reachability', async () => {
    const res = await raw(server.url, '/healthz');
    expect(res.status).toBe(200);
    expect(res.json<{ status: string; database: string }>()).toMatchObject({ status: 'ok', database: 'up' });
  });

  it('refuses a second process on the same PGlite directory with a clear error', async () => {
    await expect(startServer({ dataDir: server.dataDir })).rejects.toThrow(/already open in process \d+/);
  });

  it('finishes in-flight requests on SIGTERM and closes the database', async () => {
    const dir = mkdtempSync(join(TMP, 'shutdown-'));
    cpSync(TEMPLATE_DIR, dir, { recursive: true });
    const own = await startServer({ dataDir: dir });
    expect(existsSync(join(dir, 'atrium.lock'))).toBe(true);
    const inFlight = Array.from({ length: 10 }, () => raw(own.url, '/api/index/index'));
    await new Promise((r) => setTimeout(r, 5));
    const exited = own.stop();
    const results = await Promise.allSettled(inFlight);
    expect(await exited).toBe(0);
    for (const r of results) {
      // A request the server had accepted completes; one it had not is refused, never cut off.
      if (r.status === 'fulfilled') expect(r.value.status).toBe(200);
      else expect(String(r.reason)).toMatch(/ECONNREFUSED|ECONNRESET/);
    }
    expect(results.some((r) => r.status === 'fulfilled')).toBe(true);
    expect(existsSync(join(dir, 'atrium.lock'))).toBe(false);
    rmSync(dir, { recursive: true, force: true });
  });
});
