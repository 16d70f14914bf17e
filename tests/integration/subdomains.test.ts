import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { raw, startServer, type TestServer } from '../helpers/server';

let server: TestServer;
beforeAll(async () => { server = await startServer({ env: { SITE_DOMAIN: 'example.com' } }); });
afterAll(async () => { await server?.stop(); });

const get = (host: string, path: string) => raw(server.url, path, { headers: { host } });
const layoutOf = (html: string): string | undefined => /<body[^>]*data-layout="([a-z]+)"/.exec(html)?.[1];

describe('subdomains (SITE_DOMAIN=example.com)', () => {
  it('serves each area at the root of its subdomain', async () => {
    expect(layoutOf((await get('ask.example.com', '/')).text)).toBe('ask');
    expect(layoutOf((await get('modules.example.com', '/')).text)).toBe('modules');
    expect(layoutOf((await get('doc.example.com', '/')).text)).toBe('common');
    expect(layoutOf((await get('example.com', '/')).text)).toBe('default');
  });

  it('renames the root route /home and strips the prefix', async () => {
    expect(layoutOf((await get('ask.example.com', '/home')).text)).toBe('default');
    const info = await get('ask.example.com', '/info/5');
    expect(info.status).toBe(404);
    // The path the reader typed, not the app's path behind the subdomain.
    expect(info.text).toContain('页面未找到：/info/5');
    expect(info.text).not.toContain('/ask/info/5');
    expect((await get('doc.example.com', '/guide-en/nope')).text).toContain('页面未找到：/guide-en/nope');
    expect((await get('example.com', '/ask/info/5')).text).toContain('页面未找到：/ask/info/5');
    expect((await get('ask.example.com', '/info/abc')).status).toBe(404);
    expect(layoutOf((await get('ask.example.com', '/search/x')).text)).toBe('ask');
  });

  it('serves the forum as /communityBack on the modules subdomain', async () => {
    const res = await get('modules.example.com', '/communityBack');
    expect(res.status).toBe(200);
    expect(layoutOf(res.text)).toBe('ask');
  });

  it('points links to the right host', async () => {
    const html = (await get('ask.example.com', '/')).text;
    expect(html).toContain('href="//doc.example.com/"');
    expect(html).toContain('href="//modules.example.com/"');
    expect(html).toContain('href="//example.com/chat"');
    expect(html).toContain('class="brand" href="//example.com/"');
    expect(html).toContain('action="/search"');
    expect(html).toContain('href="/post"');
    const modules = (await get('modules.example.com', '/')).text;
    expect(modules).toContain('href="/communityBack"');
  });

  it('keeps API and member paths unprefixed on every host', async () => {
    const api = await get('ask.example.com', '/api/index/index');
    expect(api.json().code).toBe(1);
    const user = await get('ask.example.com', '/user/login');
    expect(layoutOf(user.text)).toBe('none');
  });

  it('caches pages per host', async () => {
    await get('ask.example.com', '/home');
    const main = await get('example.com', '/');
    const ask = await get('ask.example.com', '/home');
    expect(ask.headers['x-atrium-cache']).toBe('hit');
    expect(main.text).toContain('class="brand" href="/"');
    expect(ask.text).toContain('class="brand" href="//example.com/"');
  });
});
