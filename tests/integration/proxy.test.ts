// Atrium behind the nginx configuration docs/operators/nginx.md documents (deploy/nginx/atrium.conf), with TLS:
// a visitor cannot choose their address with X-Forwarded-For, and session cookies are Secure.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../src/lib/server/env';
import { createRuntime } from '../../src/lib/server/runtime';
import { createUser } from '../../src/lib/server/account/users';
import { startServer, type TestServer } from '../helpers/server';
import { NGINX_MISSING, startNginx, viaTls, type Nginx } from '../helpers/nginx';
import { ROOT, TEMPLATE_DIR, TMP } from '../helpers/paths';

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

describe.skipIf(NGINX_MISSING !== null)('behind nginx (deploy/nginx/atrium.conf)', () => {
  let server: TestServer;
  let nginx: Nginx;
  beforeAll(async () => {
    server = await startServer({ dataDir: await dataWithMember(), env: { TRUST_PROXY: '1', LOGIN_IP_LIMIT: '3' } });
    nginx = await startNginx(server.port);
  });
  afterAll(async () => {
    await nginx?.stop();
    await server?.stop();
  });

  it('counts per-address limits on the address nginx saw, whatever X-Forwarded-For the visitor sends', async () => {
    const msgs: string[] = [];
    for (let i = 0; i < 5; i++) {
      // Unknown names, so only the per-address login limit (3) can refuse them.
      const res = await viaTls(nginx.httpsPort, '/api/user/checkIn', {
        method: 'POST', headers: { ...EN, 'x-forwarded-for': `203.0.113.${i + 1}` },
        body: JSON.stringify({ tab: 'login', username: `nobody${i}`, password: 'whatever-1', keep: false }),
      });
      msgs.push(res.json().msg);
    }
    expect(msgs.slice(0, 3)).toEqual(Array(3).fill('Incorrect account or password'));
    expect(msgs[3]).toMatch(/^Too many login attempts from your network/);
    expect(msgs[4]).toMatch(/^Too many login attempts from your network/);
  });
});

describe.skipIf(NGINX_MISSING !== null)('session cookies behind nginx with TLS', () => {
  let server: TestServer;
  let nginx: Nginx;
  beforeAll(async () => {
    server = await startServer({ dataDir: await dataWithMember(), env: { TRUST_PROXY: '1' } });
    nginx = await startNginx(server.port);
  });
  afterAll(async () => {
    await nginx?.stop();
    await server?.stop();
  });

  it('marks the session and refresh cookies Secure, and records the address nginx saw', async () => {
    const res = await viaTls(nginx.httpsPort, '/api/user/checkIn', {
      method: 'POST', headers: { ...EN, 'x-forwarded-for': '198.51.100.7' },
      body: JSON.stringify({ tab: 'login', username: 'paula', password: 'right-password1', keep: true }),
    });
    const body = res.json<{ code: number; data: { userInfo: { refresh_token: string; last_login_ip: string } } }>();
    expect(body.code).toBe(1);
    expect(body.data.userInfo.last_login_ip).toBe('127.0.0.1');
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
