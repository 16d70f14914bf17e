// Atrium behind the nginx configuration docs/operators/nginx.md documents (deploy/nginx/atrium.conf), with TLS:
// a visitor cannot choose their address with X-Forwarded-For, and session cookies are Secure.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../src/lib/server/env';
import { createRuntime } from '../../src/lib/server/boot/runtime';
import { createUser } from '../../src/lib/server/account/users';
import { startServer, type TestServer } from '../helpers/server';
import { NGINX_MISSING, startNginx, viaTls, type Nginx } from '../helpers/nginx';
import { ROOT, TEMPLATE_DIR, TMP } from '../helpers/paths';
import { rawExchange, type RawReply } from '../helpers/raw-exchange';
import { scaled } from '../helpers/time-scale.mjs';

if (NGINX_MISSING) console.warn(NGINX_MISSING);

const dirs: string[] = [];
afterAll(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }); });

/** A data folder with member `paula` (password `right-password1`) and the login captcha off. */
async function dataWithMember(): Promise<string> {
  const dataDir = mkdtempSync(join(TMP, 'proxy-'));
  dirs.push(dataDir);
  cpSync(TEMPLATE_DIR, dataDir, { recursive: true });
  const rt = await createRuntime(readConfig({ ATRIUM_ROOT: ROOT, DATA_DIR: dataDir, LOG_LEVEL: 'warn' }));
  try {
    await createUser(rt.db, { username: 'paula', password: 'right-password1', email: 'paula@example.com' });
    await rt.site.set('user_login_captcha', '0');
  } finally {
    await rt.close();
  }
  return dataDir;
}

const EN = { 'think-lang': 'en', 'content-type': 'application/json', origin: 'https://example.com' };

const tlsExchange = (port: number, head: string): Promise<RawReply> => rawExchange(port, head, { tls: true });

type Envelope = { code: number; msg: string; data: unknown; time: number };

describe.skipIf(NGINX_MISSING !== null)('behind nginx (deploy/nginx/atrium.conf)', () => {
  let server: TestServer;
  let nginx: Nginx;
  beforeAll(async () => {
    server = await startServer({ dataDir: await dataWithMember(), env: { TRUST_PROXY: '1', LOGIN_IP_LIMIT: '3' }, startTimeout: scaled(60_000) });
    nginx = await startNginx(server.port);
  }, scaled(120_000));
  afterAll(async () => {
    await nginx?.stop();
    await server?.stop();
  });

  it('counts per-address limits on the address nginx saw, whatever X-Forwarded-For the visitor sends', async () => {
    const msgs: string[] = [];
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      // Unknown names, so only the per-address login limit (3) can refuse them.
      const res = await viaTls(nginx.httpsPort, '/api/user/checkIn', {
        method: 'POST', headers: { ...EN, 'x-forwarded-for': `203.0.113.${i + 1}` },
        body: JSON.stringify({ tab: 'login', username: `nobody${i}`, password: 'whatever-1', keep: false }),
      });
      msgs.push(res.json().msg);
      statuses.push(res.status);
    }
    expect(msgs.slice(0, 3)).toEqual(Array(3).fill('Incorrect account or password'));
    expect(msgs[3]).toMatch(/^Too many login attempts from your network/);
    expect(msgs[4]).toMatch(/^Too many login attempts from your network/);
    // Refused by a limit: 429, as every other limit answers.
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
  });

  describe("nginx's own refusals", () => {
    const big = 'a'.repeat(10_000);

    it('answers a header line over 8 KB on /api with the envelope, in the language asked for', async () => {
      // nginx reads no header after the one too long: the language comes first, as browsers send it.
      const en = await viaTls(nginx.httpsPort, '/api/index/index', { headers: { 'accept-language': 'en-GB,en;q=0.9', cookie: `x=${big}` } });
      expect(en.status).toBe(431);
      expect(en.headers['content-type']).toMatch(/^application\/json/);
      expect(en.json()).toMatchObject({ code: 0, msg: 'The request headers or cookies are too long', data: null, time: expect.any(Number) });
      const zh = await viaTls(nginx.httpsPort, '/api/index/index', { headers: { 'accept-language': 'zh-CN,zh;q=0.9,en;q=0.8', cookie: `x=${big}` } });
      expect(zh.json().msg).toBe('请求头或 Cookie 过长');
      // The think-lang header wins over Accept-Language, as in Atrium.
      const header = await viaTls(nginx.httpsPort, '/api/index/index', { headers: { 'think-lang': 'en', 'accept-language': 'zh-CN', 'x-big': big } });
      expect(header.json().msg).toBe('The request headers or cookies are too long');
      // A page keeps nginx's own page.
      const page = await viaTls(nginx.httpsPort, '/ask', { headers: { cookie: `x=${big}` } });
      expect(page.status).toBe(400);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
    });

    it('answers an address over 8 KB with the envelope in both languages (nginx reads no further)', async () => {
      const res = await viaTls(nginx.httpsPort, `/api/index/index?q=${big}`, { headers: { 'accept-language': 'en' } });
      expect(res.status).toBe(414);
      expect(res.json()).toMatchObject({ code: 0, msg: '请求地址过长 (The request address is too long)', data: null });
    });

    it('answers a body over client_max_body_size on /api with the envelope', async () => {
      const head = (path: string, lang: string): string => `POST ${path} HTTP/1.1\r\nHost: example.com\r\nAccept-Language: ${lang}\r\nContent-Type: application/json\r\nContent-Length: ${40 * 1024 * 1024}\r\nConnection: close\r\n\r\n`;
      const en = await tlsExchange(nginx.httpsPort, head('/api/user/checkIn', 'en'));
      expect(en.status).toBe(413);
      expect(JSON.parse(en.body) as Envelope).toMatchObject({ code: 0, msg: 'The request body is too large; the limit is 32 MB', data: null });
      const zh = await tlsExchange(nginx.httpsPort, head('/api/user/checkIn', 'zh-CN'));
      expect((JSON.parse(zh.body) as Envelope).msg).toBe('请求内容过大，最大允许 32 MB');
      const page = await tlsExchange(nginx.httpsPort, head('/user/login', 'en'));
      expect(page.status).toBe(413);
      expect(page.body).toContain('<html>');
    });

    it('answers TRACE on /api with the envelope, and methods nginx passes on with Atrium\'s', async () => {
      const trace = await viaTls(nginx.httpsPort, '/api/user/checkIn', { method: 'TRACE', headers: { 'accept-language': 'en' } });
      expect(trace.status).toBe(405);
      expect(trace.json()).toMatchObject({ code: 0, msg: 'Method not allowed: TRACE', data: null });
      expect((await viaTls(nginx.httpsPort, '/api/user/checkIn', { method: 'TRACE' })).json().msg).toBe('不支持的请求方法：TRACE');
      expect((await viaTls(nginx.httpsPort, '/ask', { method: 'TRACE' })).headers['content-type']).toMatch(/^text\/html/);
      const propfind = await viaTls(nginx.httpsPort, '/api/user/checkIn', { method: 'PROPFIND', headers: { 'accept-language': 'en' } });
      expect(propfind.status).toBe(501);
      expect(propfind.json()).toMatchObject({ code: 0, msg: 'This site does not support the PROPFIND method' });
      // The error answers are not addresses of their own.
      expect((await viaTls(nginx.httpsPort, '/__atrium/413')).status).toBe(404);
    });

    it('answers /api with the envelope when no instance answers (last: it stops the server)', async () => {
      await server.stop();
      const api = await viaTls(nginx.httpsPort, '/api/index/index', { headers: { 'accept-language': 'en' } });
      expect(api.status).toBe(502);
      expect(api.json()).toMatchObject({ code: 0, msg: 'Gateway error!', data: null });
      const page = await viaTls(nginx.httpsPort, '/ask');
      expect(page.status).toBe(502);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
    });
  });
});

describe.skipIf(NGINX_MISSING !== null)('session cookies behind nginx with TLS', () => {
  let server: TestServer;
  let nginx: Nginx;
  beforeAll(async () => {
    // The proxy named by its address, as deploy/ shows it. The visitor connects from 127.0.0.2:
    // from the proxy's own address it would be taken for one more proxy in the chain.
    server = await startServer({ dataDir: await dataWithMember(), env: { TRUST_PROXY: '127.0.0.1' }, startTimeout: scaled(60_000) });
    nginx = await startNginx(server.port);
  }, scaled(120_000));
  afterAll(async () => {
    await nginx?.stop();
    await server?.stop();
  });

  it('marks the session and refresh cookies Secure, and records the address nginx saw', async () => {
    const res = await viaTls(nginx.httpsPort, '/api/user/checkIn', {
      method: 'POST', headers: { ...EN, 'x-forwarded-for': '198.51.100.7' }, localAddress: '127.0.0.2',
      body: JSON.stringify({ tab: 'login', username: 'paula', password: 'right-password1', keep: true }),
    });
    const body = res.json<{ code: number; data: { userInfo: { refresh_token: string; last_login_ip: string } } }>();
    expect(body.code).toBe(1);
    expect(body.data.userInfo.last_login_ip).toBe('127.0.0.2');
    const cookies = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
    const token = cookies.find((c) => c.startsWith('ba-user-token='));
    const refresh = cookies.find((c) => c.startsWith('ba-user-refresh='));
    expect(token).toMatch(/;\s*Secure/i);
    expect(refresh).toMatch(/;\s*Secure/i);

    // The rotated refresh token comes back Secure as well.
    const renewed = await viaTls(nginx.httpsPort, '/api/common/refreshToken', {
      method: 'POST', headers: EN, body: JSON.stringify({ refreshToken: body.data.userInfo.refresh_token }),
    });
    expect(renewed.json().code).toBe(1);
    const again = ([] as string[]).concat(renewed.headers['set-cookie'] ?? []);
    expect(again.length).toBeGreaterThan(0);
    for (const c of again) expect(c).toMatch(/;\s*Secure/i);
  });

  it('sends plain-http visitors to https', async () => {
    const { raw } = await import('../helpers/server');
    const res = await raw(`http://127.0.0.1:${nginx.httpPort}`, '/ask?x=1', { headers: { host: 'example.com' } });
    expect(res.status).toBe(301);
    expect(res.headers.location).toBe('https://example.com/ask?x=1');
  });
});
