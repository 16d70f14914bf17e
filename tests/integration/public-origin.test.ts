// Absolute URLs (canonical, og:url, sitemap, RSS, robots.txt) come from the configured public
// origin, or from a Host the operator allowed; a forged Host header never reaches them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { raw, startServer, type TestServer } from '../helpers/server';

const EVIL = { host: 'evil.example' };

describe('without SITE_URL', () => {
  let server: TestServer;
  beforeAll(async () => { server = await startServer({ env: { ALLOWED_HOSTS: 'forum.example' } }); });
  afterAll(async () => { await server?.stop(); });

  it('keeps a forged Host out of the sitemap, robots.txt, the feed and the page head', async () => {
    for (const path of ['/sitemap.xml', '/robots.txt', '/ask/feed.xml', '/ask', '/']) {
      const res = await raw(server.url, path, { headers: EVIL });
      expect(res.status, path).toBe(200);
      expect(res.text, path).not.toContain('evil.example');
    }
    const page = await raw(server.url, '/ask', { headers: EVIL });
    expect(page.text).toContain('<link rel="canonical" href="/ask">');
  });

  it('uses a Host from ALLOWED_HOSTS', async () => {
    const res = await raw(server.url, '/sitemap.xml', { headers: { host: 'forum.example' } });
    expect(res.text).toContain('<loc>http://forum.example/ask</loc>');
  });
});

describe('with SITE_URL', () => {
  let server: TestServer;
  beforeAll(async () => { server = await startServer({ env: { SITE_URL: 'https://site.example' } }); });
  afterAll(async () => { await server?.stop(); });

  it('names SITE_URL whatever Host asked', async () => {
    const map = await raw(server.url, '/sitemap.xml', { headers: EVIL });
    expect(map.text).toContain('<loc>https://site.example/ask</loc>');
    expect(map.text).not.toContain('evil.example');
    const page = await raw(server.url, '/ask', { headers: EVIL });
    expect(page.text).toContain('<link rel="canonical" href="https://site.example/ask">');
    expect(page.text).toContain('<meta property="og:url" content="https://site.example/ask">');
    expect((await raw(server.url, '/robots.txt', { headers: EVIL })).text).toContain('Sitemap: https://site.example/sitemap.xml');
  });
});
