import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { raw, startServer, type TestServer } from '../helpers/server';

// The page cache is off here so that every request renders and awaits the database.
let server: TestServer;
beforeAll(async () => { server = await startServer({ env: { PAGE_CACHE_MB: '0' } }); });
afterAll(async () => { await server?.stop(); });

const langOf = (html: string): string | undefined => /<html lang="([a-z-]+)"/.exec(html)?.[1];

describe('locale per request', () => {
  it('defaults to zh-cn', async () => {
    const res = await raw(server.url, '/ask');
    expect(langOf(res.text)).toBe('zh-cn');
    expect(res.text).toContain('还没有帖子');
  });

  it('follows Accept-Language when there is no cookie', async () => {
    const res = await raw(server.url, '/ask', { headers: { 'accept-language': 'en-US,en;q=0.9' } });
    expect(langOf(res.text)).toBe('en');
    expect(res.text).toContain('No posts yet');
  });

  it('lets the ba-lang cookie win over Accept-Language', async () => {
    const res = await raw(server.url, '/ask', { headers: { cookie: 'ba-lang=zh-cn', 'accept-language': 'en' } });
    expect(langOf(res.text)).toBe('zh-cn');
  });

  it('answers 200 concurrent mixed-locale requests each in its own language', async () => {
    const requests = Array.from({ length: 200 }, (_, i) => {
      const locale = i % 2 ? 'en' : 'zh-cn';
      const path = i % 4 < 2 ? '/ask' : '/api/index/index';
      return raw(server.url, path, { headers: { cookie: `ba-lang=${locale}` } }).then((res) => ({ locale, path, res }));
    });
    const wrong: string[] = [];
    for (const { locale, path, res } of await Promise.all(requests)) {
      expect(res.status).toBe(200);
      if (path === '/ask') {
        const ok = langOf(res.text) === locale && res.text.includes(locale === 'en' ? 'No posts yet' : '还没有帖子');
        if (!ok) wrong.push(`${path} ${locale}`);
      } else {
        // The API awaits a database query, then localises the head navigation.
        const titles = (res.json().data as { site: { headNav: { title: string }[] } }).site.headNav.map((n) => n.title);
        if (titles[0] !== (locale === 'en' ? 'Community' : '社区')) wrong.push(`${path} ${locale}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
