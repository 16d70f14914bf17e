// The session in cookies (spec §3, §9, issue 29 item 12): the tokens in HttpOnly cookies, the user
// info in a readable one, all strict same-site and on the site's parent domain under SITE_DOMAIN, so
// a member on ask./doc./modules. has the same session, refreshes it there and logs out everywhere.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { startInProcess, type InProcessServer } from '../helpers/in-process';
import { postJson, raw, type RawResponse } from '../helpers/server';
import { createUser } from '../../src/lib/server/account/users';
import { scaled } from '../helpers/time-scale.mjs';

let site: InProcessServer;
let plain: InProcessServer;
beforeAll(async () => {
  [site, plain] = await Promise.all([
    startInProcess({ SITE_DOMAIN: 'example.com' }),
    // An https public address, the same server reached over plain HTTP at its LAN address too.
    startInProcess({ SITE_URL: 'https://atrium.example.org' }),
  ]);
  for (const s of [site, plain]) {
    await s.runtime.site.set('user_login_captcha', '0');
    await createUser(s.runtime.db, { username: 'carol', nickname: '卡萝 Carol', password: 'secret123', email: 'carol@example.com' });
  }
}, scaled(120_000));
afterAll(async () => { await Promise.all([site?.stop(), plain?.stop()]); });

type Cookie = { name: string; value: string; attrs: Record<string, string | true> };

/** The Set-Cookie lines of a reply, parsed (attribute names lower-cased). */
function setCookies(res: RawResponse): Map<string, Cookie> {
  const out = new Map<string, Cookie>();
  for (const line of ([] as string[]).concat(res.headers['set-cookie'] ?? [])) {
    const [pair = '', ...rest] = line.split(';');
    const eq = pair.indexOf('=');
    const attrs: Record<string, string | true> = {};
    for (const a of rest) {
      const i = a.indexOf('=');
      if (i < 0) attrs[a.trim().toLowerCase()] = true;
      else attrs[a.slice(0, i).trim().toLowerCase()] = a.slice(i + 1).trim();
    }
    out.set(pair.slice(0, eq).trim(), { name: pair.slice(0, eq).trim(), value: pair.slice(eq + 1).trim(), attrs });
  }
  return out;
}

/** Whether a Set-Cookie removes its cookie (Max-Age 0 or an expiry in the past). */
const removes = (c: Cookie | undefined): boolean => !!c && (c.attrs['max-age'] === '0' || (typeof c.attrs.expires === 'string' && Date.parse(c.attrs.expires) < Date.now()));

const jar = (cookies: Map<string, Cookie>): string => [...cookies.values()].filter((c) => !removes(c)).map((c) => `${c.name}=${c.value}`).join('; ');

async function logIn(server: InProcessServer, host: string): Promise<{ res: RawResponse; cookies: Map<string, Cookie> }> {
  const res = await postJson(server.url, '/api/user/checkIn', { tab: 'login', username: 'carol', password: 'secret123', keep: true }, { host, 'think-lang': 'en' });
  expect(res.json().code, res.text).toBe(1);
  return { res, cookies: setCookies(res) };
}

describe('session cookies under SITE_DOMAIN=example.com', () => {
  it('login sets HttpOnly strict token cookies and a readable 30-day user-info cookie on the parent domain', async () => {
    const { res, cookies } = await logIn(site, 'example.com');
    // The API's wire shape is kept: the reply still carries the user info with its tokens.
    const info = res.json<{ code: number; data: { userInfo: { token: string; refresh_token: string; username: string } } }>().data.userInfo;
    expect(info.username).toBe('carol');
    expect(info.token).toMatch(/^[0-9a-f-]{36}$/);

    const token = cookies.get('ba-user-token')!;
    const refresh = cookies.get('ba-user-refresh')!;
    const user = cookies.get('userInfo-v5')!;
    expect(token.value).toBe(info.token);
    expect(refresh.value).toBe(info.refresh_token);
    for (const c of [token, refresh, user]) {
      expect(c.attrs.samesite, c.name).toBe('Strict');
      expect(c.attrs.domain, c.name).toMatch(/^\.?example\.com$/);
      expect(c.attrs.path, c.name).toBe('/');
      // Plain HTTP: a Secure cookie would be dropped by the browser.
      expect(c.attrs.secure, c.name).toBeUndefined();
    }
    expect(token.attrs.httponly).toBe(true);
    expect(refresh.attrs.httponly).toBe(true);
    expect(user.attrs.httponly).toBeUndefined();
    expect(user.attrs['max-age']).toBe(String(30 * 24 * 3600));
    // What scripts can read: the persisted subset without any token.
    const stored = JSON.parse(decodeURIComponent(user.value)) as Record<string, unknown>;
    expect(Object.keys(stored).sort()).toEqual(['avatar', 'id', 'nickname', 'show_open_source_star_time', 'username']);
    expect(stored).toMatchObject({ username: 'carol', nickname: '卡萝 Carol' });
    expect(decodeURIComponent(user.value)).not.toContain(info.token);
    expect(decodeURIComponent(user.value)).not.toContain(info.refresh_token);
  });

  it('a member signed in on the main domain is signed in on every subdomain, by cookie alone', async () => {
    const { cookies } = await logIn(site, 'example.com');
    const cookie = jar(cookies);
    for (const host of ['ask.example.com', 'doc.example.com', 'modules.example.com']) {
      const api = (await raw(site.url, '/api/index/index?requiredLogin=1', { headers: { host, cookie } })).json<{ code: number; data: { userInfo: { username: string } } }>();
      expect(api.code, host).toBe(1);
      expect(api.data.userInfo.username).toBe('carol');
      const page = await raw(site.url, '/', { headers: { host, cookie } });
      expect(page.text, host).toContain('data-session-name>卡萝 Carol<');
    }
  });

  it('an expired access token on a subdomain is renewed from the refresh cookie (409 → refresh → retry)', async () => {
    const { cookies } = await logIn(site, 'example.com');
    const id = (JSON.parse(decodeURIComponent(cookies.get('userInfo-v5')!.value)) as { id: number }).id;
    await site.runtime.db.execute(sql.raw(`update token set expire_time = 1 where type = 'user' and user_id = ${id}`));
    await site.runtime.sessions.forgetUser(id);
    const cookie = jar(cookies);
    const expired = await raw(site.url, '/api/index/index?requiredLogin=1', { headers: { host: 'ask.example.com', cookie } });
    expect(expired.json().code).toBe(409);

    // What the page's request layer does: no token in the body, the cookie carries it.
    const renewed = await postJson(site.url, '/api/common/refreshToken', {}, { host: 'ask.example.com', origin: 'http://ask.example.com', cookie });
    expect(renewed.json().code, renewed.text).toBe(1);
    const next = setCookies(renewed);
    for (const name of ['ba-user-token', 'ba-user-refresh', 'userInfo-v5']) {
      expect(next.get(name)?.attrs.domain, name).toMatch(/^\.?example\.com$/);
      expect(next.get(name)?.attrs.samesite, name).toBe('Strict');
    }
    expect(next.get('ba-user-token')!.value).not.toBe(cookies.get('ba-user-token')!.value);
    const retried = await raw(site.url, '/api/index/index?requiredLogin=1', { headers: { host: 'ask.example.com', cookie: jar(next) } });
    expect(retried.json().code).toBe(1);

    // A refresh cookie that does not work: refused, and the dead cookies are cleared.
    const dead = `ba-user-token=${cookies.get('ba-user-token')!.value}; ba-user-refresh=00000000-0000-4000-8000-000000000000`;
    const again = await postJson(site.url, '/api/common/refreshToken', {}, { host: 'doc.example.com', origin: 'http://doc.example.com', cookie: dead });
    expect(again.json().code).toBe(0);
    const cleared = setCookies(again);
    for (const name of ['ba-user-token', 'ba-user-refresh', 'userInfo-v5']) expect(removes(cleared.get(name)), name).toBe(true);
  });

  it('logging out on a subdomain clears every cookie on the parent domain and ends the session', async () => {
    const { cookies } = await logIn(site, 'example.com');
    const cookie = jar(cookies);
    const out = await postJson(site.url, '/api/user/logout', {}, { host: 'doc.example.com', origin: 'http://doc.example.com', cookie });
    expect(out.json().code).toBe(1);
    const cleared = setCookies(out);
    for (const name of ['ba-user-token', 'ba-user-refresh', 'userInfo-v5']) {
      expect(removes(cleared.get(name)), name).toBe(true);
      expect(cleared.get(name)!.attrs.domain, name).toMatch(/^\.?example\.com$/);
    }
    // The tokens themselves are gone too, wherever a copy is kept.
    expect((await raw(site.url, '/api/index/index?requiredLogin=1', { headers: { host: 'example.com', cookie } })).json().code).toBe(303);
    const refresh = cookies.get('ba-user-refresh')!.value;
    expect((await postJson(site.url, '/api/common/refreshToken', { refreshToken: refresh })).json().code).toBe(0);
  });

  it('refuses a cookie-authenticated write from another site, takes one from a sibling subdomain', async () => {
    const { cookies } = await logIn(site, 'example.com');
    const cookie = jar(cookies);
    const body = { nickname: 'Carol Two', username: 'carol', avatar: '', gender: 0, birthday: '', motto: '' };
    const foreign = await postJson(site.url, '/api/account/profile', body, { host: 'doc.example.com', origin: 'https://evil.example', cookie });
    expect(foreign.status).toBe(403);
    const sibling = await postJson(site.url, '/api/account/profile', body, { host: 'doc.example.com', origin: 'http://ask.example.com', cookie });
    expect(sibling.json().code, sibling.text).toBe(1);
    // The readable cookie follows the new name at once, on the parent domain.
    const user = setCookies(sibling).get('userInfo-v5')!;
    expect(JSON.parse(decodeURIComponent(user.value))).toMatchObject({ nickname: 'Carol Two' });
    expect(user.attrs.domain).toMatch(/^\.?example\.com$/);
    await postJson(site.url, '/api/account/profile', { ...body, nickname: '卡萝 Carol' }, { host: 'example.com', origin: 'http://example.com', cookie });
  });

  it('a page load sets a missing user-info cookie and drops one that outlived its session', async () => {
    const { cookies } = await logIn(site, 'example.com');
    // A session from before the user-info cookie (tokens only): the first page sets it.
    const tokensOnly = `ba-user-token=${cookies.get('ba-user-token')!.value}; ba-user-refresh=${cookies.get('ba-user-refresh')!.value}`;
    const first = setCookies(await raw(site.url, '/', { headers: { host: 'ask.example.com', cookie: tokensOnly } }));
    expect(JSON.parse(decodeURIComponent(first.get('userInfo-v5')!.value))).toMatchObject({ username: 'carol' });
    expect(first.get('userInfo-v5')!.attrs.domain).toMatch(/^\.?example\.com$/);
    // Up to date: nothing to set.
    expect(setCookies(await raw(site.url, '/', { headers: { host: 'example.com', cookie: jar(cookies) } })).size).toBe(0);
    // The user info alone (the tokens expired with the browser session): dropped, even where visitors get cached pages.
    const alone = `userInfo-v5=${cookies.get('userInfo-v5')!.value}`;
    await raw(site.url, '/', { headers: { host: 'example.com' } });
    const stale = setCookies(await raw(site.url, '/', { headers: { host: 'example.com', cookie: alone } }));
    expect(removes(stale.get('userInfo-v5'))).toBe(true);
  });

  it('a request to a host outside SITE_DOMAIN (the LAN address) gets host-only cookies', async () => {
    const { cookies } = await logIn(site, '192.168.1.20:4321');
    for (const name of ['ba-user-token', 'ba-user-refresh', 'userInfo-v5']) {
      expect(cookies.get(name)!.attrs.domain, name).toBeUndefined();
      expect(cookies.get(name)!.attrs.samesite, name).toBe('Strict');
    }
  });
});

describe('session cookies without SITE_DOMAIN, SITE_URL https', () => {
  it('are host-only; Secure on the https site, not over plain HTTP at the LAN address', async () => {
    const secure = await logIn(plain, 'atrium.example.org');
    const lan = await logIn(plain, '192.168.1.20:4321');
    for (const name of ['ba-user-token', 'ba-user-refresh', 'userInfo-v5']) {
      expect(secure.cookies.get(name)!.attrs.domain, name).toBeUndefined();
      expect(secure.cookies.get(name)!.attrs.secure, name).toBe(true);
      expect(lan.cookies.get(name)!.attrs.domain, name).toBeUndefined();
      expect(lan.cookies.get(name)!.attrs.secure, name).toBeUndefined();
      expect(lan.cookies.get(name)!.attrs.samesite, name).toBe('Strict');
    }
    expect(lan.cookies.get('ba-user-token')!.attrs.httponly).toBe(true);
  });

  it('API clients that send the token header keep working, and get no cookie from a page load', async () => {
    const { res } = await logIn(plain, 'atrium.example.org');
    const { token } = res.json<{ code: number; data: { userInfo: { token: string } } }>().data.userInfo;
    expect((await raw(plain.url, '/api/index/index?requiredLogin=1', { headers: { 'ba-user-token': token } })).json().code).toBe(1);
    const page = await raw(plain.url, '/user/account/overview', { headers: { 'ba-user-token': token } });
    expect(page.status).toBe(200);
    expect(res.headers['set-cookie']).toBeDefined();
    expect(setCookies(page).size).toBe(0);
  });

  it("BuildAdmin's `bausertoken` header is read by every route that reads the token: refresh and logout too", async () => {
    const { res } = await logIn(plain, 'atrium.example.org');
    const { token, refresh_token: refresh } = res.json<{ data: { userInfo: { token: string; refresh_token: string } } }>().data.userInfo;
    const host = 'atrium.example.org';
    const renewed = await postJson(plain.url, '/api/common/refreshToken', { refreshToken: refresh }, { host, bausertoken: token });
    expect(renewed.json().code).toBe(1);
    const next = renewed.json<{ data: { token: string } }>().data.token;
    expect((await raw(plain.url, '/api/index/index?requiredLogin=1', { headers: { bausertoken: next } })).json().code).toBe(1);
    expect((await postJson(plain.url, '/api/user/logout', {}, { host, bausertoken: next })).json().code).toBe(1);
    // Logging out with the header alone ended the session the header named.
    expect((await raw(plain.url, '/api/index/index?requiredLogin=1', { headers: { bausertoken: next } })).json().code).not.toBe(1);
  });
});
