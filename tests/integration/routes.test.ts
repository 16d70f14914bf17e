import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { raw, startServer, type TestServer } from '../helpers/server';
import { USER_CHILDREN } from '../../src/lib/shared/routes';

let server: TestServer;
beforeAll(async () => { server = await startServer(); });
afterAll(async () => { await server?.stop(); });

const layoutOf = (html: string): string | undefined => /<body[^>]*data-layout="([a-z]+)"/.exec(html)?.[1];

describe('every route of the spec table', () => {
  it.each([
    ['/', 'default'], ['/ask', 'ask'], ['/ask/search/hello', 'ask'], ['/chat', 'none'],
    ['/md', 'common'], ['/modules', 'modules'], ['/user/login', 'none'],
  ])('%s answers 200 in layout %s', async (path, layout) => {
    const res = await raw(server.url, path);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(layoutOf(res.text)).toBe(layout);
  });

  it.each([
    ['/ask/info/5', 'ask'], ['/ask/lists/category/99999', 'ask'], ['/ask/lists/tag/99999', 'ask'], ['/ask/lists/user/99999', 'ask'], ['/md/atrium', 'doc'], ['/md/atrium/intro', 'doc'],
    ['/modules/no-such-module', 'common'], ['/user/card/1', 'none'],
  ])('%s (no such record yet) answers 404 in its layout %s', async (path, layout) => {
    const res = await raw(server.url, path);
    expect(res.status).toBe(404);
    expect(layoutOf(res.text)).toBe(layout);
    expect(res.text).toContain(`页面未找到：${path}`);
  });

  it.each(['/user', '/ask/post', '/md/edit/atrium', ...USER_CHILDREN.map((c) => `/user/${c}`), '/user/iframe/https%3A%2F%2Fexample.com'])('%s sends a visitor to the login page', async (path) => {
    const res = await raw(server.url, path);
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe(`/user/login?to=${encodeURIComponent(path)}`);
  });
});

describe('404 page', () => {
  it('names the path in the visitor language', async () => {
    const zh = await raw(server.url, '/no/such/page');
    expect(zh.status).toBe(404);
    expect(zh.text).toContain('页面未找到：/no/such/page');
    expect(zh.text).toContain('您访问的页面不存在');
    const en = await raw(server.url, '/no/such/page', { headers: { cookie: 'ba-lang=en' } });
    expect(en.text).toContain('Page Not Found: /no/such/page');
    expect(en.text).toContain('The page you asked for does not exist');
    expect(en.text).toContain('<html lang="en"');
  });

  it.each(['/ask/info/abc', '/ask/info/0', '/ask/lists/bogus/1', '/user/card/abc', '/modules/Not%20A%20Uid'])('invalid parameters in %s answer 404', async (path) => {
    const res = await raw(server.url, path, { headers: { cookie: 'ba-lang=en' } });
    expect(res.status).toBe(404);
    expect(res.text).toContain('Page Not Found:');
  });

  it('escapes the path it echoes', async () => {
    const res = await raw(server.url, '/%3Cscript%3Ealert(1)%3C/script%3E');
    expect(res.status).toBe(404);
    expect(res.text).not.toContain('<script>alert(1)');
  });
});

describe('site shell', () => {
  it('renders header navigation, language switch, theme switch, login link and footer', async () => {
    const res = await raw(server.url, '/', { headers: { cookie: 'ba-lang=en' } });
    expect(res.text).toContain('<a href="/ask"');
    expect(res.text).toContain('>Community</a>');
    expect(res.text).toContain('data-action="set-language" data-locale="zh-cn"');
    expect(res.text).toContain('data-action="toggle-theme"');
    expect(res.text).toContain('href="/user/login?to=%2F"');
    expect(res.text).toContain('Version v0.1.0');
  });

  it('renders the theme from the ba-is-dark cookie, so there is no flash', async () => {
    const dark = await raw(server.url, '/', { headers: { cookie: 'ba-is-dark=true' } });
    expect(dark.text).toMatch(/<html[^>]*class="dark"/);
    const light = await raw(server.url, '/', { headers: { cookie: 'ba-is-dark=false' } });
    expect(light.text).not.toMatch(/<html[^>]*class="dark"/);
  });

  it('searches from a form without JavaScript', async () => {
    const res = await raw(server.url, '/ask/search?keywords=%E6%95%B0%E6%8D%AE%E5%BA%93');
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('/ask/search/%E6%95%B0%E6%8D%AE%E5%BA%93');
    const page = await raw(server.url, '/ask/search/%E6%95%B0%E6%8D%AE%E5%BA%93');
    expect(page.text).toContain('没有找到与“数据库”相关的帖子');
  });

  it('serves the build manifest and hashed assets with the right caching', async () => {
    const manifest = await raw(server.url, '/build-manifest.json');
    expect(manifest.headers['cache-control']).toBe('no-store');
    expect(manifest.json<{ id: string }>().id).toMatch(/\w+/);
    const home = await raw(server.url, '/');
    const css = /href="(\/_astro\/[^"]+\.css)"/.exec(home.text)?.[1];
    expect(css).toBeDefined();
    const asset = await raw(server.url, css!, { headers: { 'accept-encoding': 'br' } });
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(asset.headers['content-encoding']).toBe('br');
  });
});
