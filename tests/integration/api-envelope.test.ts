import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, raw, startServer, type TestServer } from '../helpers/server';

let server: TestServer;
beforeAll(async () => { server = await startServer({ env: { MAX_BODY_BYTES: '2048' } }); });
afterAll(async () => { await server?.stop(); });

function expectEnvelope(body: Record<string, unknown>): void {
  expect(Object.keys(body).sort()).toEqual(['code', 'data', 'msg', 'time']);
  expect(Number.isInteger(body.time)).toBe(true);
  expect(Math.abs((body.time as number) - Date.now() / 1000)).toBeLessThan(60);
}

describe('GET /api/index/index', () => {
  it('answers a visitor with site data, rules and empty menus', async () => {
    const res = await raw(server.url, '/api/index/index?requiredLogin=0');
    expect(res.status).toBe(200);
    const body = res.json<{ code: number; msg: string; data: Record<string, unknown>; time: number }>();
    expectEnvelope(body);
    expect(body.code).toBe(1);
    const data = body.data as { site: Record<string, unknown>; rules: unknown[]; menus: unknown[]; userInfo: unknown; openMemberCenter: boolean };
    expect(Object.keys(data).sort()).toEqual(['menus', 'openMemberCenter', 'rules', 'site', 'userInfo']);
    expect(Object.keys(data.site).sort()).toEqual([
      'apiUrl', 'cdnUrl', 'headNav', 'initialize', 'openSourceStarDialog', 'recordNumber', 'siteName', 'upload', 'userInitialize', 'version',
    ]);
    expect(data.site.siteName).toBe('Atrium');
    expect(data.site.upload).toMatchObject({ mode: 'local', maxSize: 10 * 1024 * 1024, allowedSuffixes: expect.stringContaining('png'), params: {} });
    expect(data.menus).toEqual([]);
    expect(data.userInfo).toBeNull();
    expect(data.openMemberCenter).toBe(true);
    expect(Array.isArray(data.rules)).toBe(true);
  });

  it("answers 303 'need login' to a visitor with requiredLogin=1", async () => {
    const body = (await raw(server.url, '/api/index/index?requiredLogin=1')).json();
    expectEnvelope(body);
    expect(body.code).toBe(303);
    expect(body.data).toEqual({ type: 'need login' });
    expect(body.msg).toBe('请先登录');
  });

  it('treats controllers case-insensitively', async () => {
    expect((await raw(server.url, '/api/Index/index')).json().code).toBe(1);
  });
});

describe('the envelope for errors', () => {
  it('gives a business error with field errors in the request language', async () => {
    const en = await raw(server.url, '/api/index/index?requiredLogin=2', { headers: { 'think-lang': 'en' } });
    expect(en.status).toBe(200);
    const body = en.json();
    expectEnvelope(body);
    // `msg` is the first field's message, so a client that shows only `msg` still says what is wrong.
    expect(body).toMatchObject({ code: 0, msg: 'Must be one of: 0, 1', data: { fields: { requiredLogin: 'Must be one of: 0, 1' } } });
    const zh = (await raw(server.url, '/api/index/index?requiredLogin=2', { headers: { 'ba-lang': 'zh-cn' } })).json();
    expect(zh).toMatchObject({ code: 0, msg: '只能是以下值之一：0, 1', data: { fields: { requiredLogin: '只能是以下值之一：0, 1' } } });
  });

  it('takes the language from the cookie when no header is sent', async () => {
    const body = (await raw(server.url, '/api/index/index?requiredLogin=2', { headers: { cookie: 'ba-lang=en' } })).json();
    expect(body.msg).toBe('Must be one of: 0, 1');
  });

  it('answers malformed JSON with code 0, never a 500', async () => {
    const res = await postJson(server.url, '/api/user/logout', '{"refreshToken": ', { 'think-lang': 'en' });
    expect(res.status).toBe(200);
    expect(res.json()).toMatchObject({ code: 0, msg: 'The request body is not valid JSON', data: { fields: { body: 'The request body is not valid JSON' } } });
  });

  it('names unknown fields and wrong types', async () => {
    const res = await postJson(server.url, '/api/user/logout', { refreshToken: 5, admin: true }, { 'think-lang': 'en' });
    expect(res.status).toBe(200);
    expect(res.json()).toMatchObject({ code: 0, msg: 'Wrong type, expected text', data: { fields: { refreshToken: 'Wrong type, expected text', admin: 'Unknown field' } } });
    const list = await postJson(server.url, '/api/user/logout', [1, 2], { 'think-lang': 'en' });
    expect(list.json().code).toBe(0);
  });

  it('accepts both spellings of the refresh token on logout', async () => {
    expect((await postJson(server.url, '/api/user/logout', { refresh_token: 'x' })).json().code).toBe(1);
    expect((await postJson(server.url, '/api/user/logout', { refreshToken: 'x' })).json().code).toBe(1);
  });

  it('answers an unknown API path with HTTP 404 and the envelope', async () => {
    const res = await raw(server.url, '/api/nothing/here', { headers: { 'think-lang': 'en' } });
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const body = res.json();
    expectEnvelope(body);
    expect(body).toMatchObject({ code: 0, msg: 'No such API: /api/nothing/here' });
    expect((await postJson(server.url, '/api/nothing/here', {})).status).toBe(404);
  });

  it('refuses an oversize body with 413', async () => {
    const res = await postJson(server.url, '/api/user/logout', { refreshToken: 'x'.repeat(4000) }, { 'think-lang': 'en' });
    expect(res.status).toBe(413);
    expect(res.json()).toMatchObject({ code: 0, msg: 'The request body is too large; the limit is 2 KB' });
  });
});

describe('rate limit', () => {
  it('answers 429 with Retry-After once an IP passes the limit', async () => {
    const limited = await startServer({ env: { API_RATE_LIMIT: '5' } });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 7; i++) statuses.push((await raw(limited.url, '/api/index/index')).status);
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
      const res = await raw(limited.url, '/api/index/index', { headers: { 'think-lang': 'en' } });
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      expect(res.json().msg).toMatch(/^Too many requests, please try again in \d+ seconds$/);
    } finally {
      await limited.stop();
    }
  });
});
