// Every /api reply is the {code, msg, data, time} envelope in the request's language, also for a
// wrong method (405 with Allow), a form or text/plain post from elsewhere, and a query string
// longer than Node's header limit.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { raw, startServer, type RawResponse, type TestServer } from '../helpers/server';

let server: TestServer;
beforeAll(async () => { server = await startServer(); });
afterAll(async () => { await server?.stop(); });

function expectEnvelope(res: RawResponse): { code: number; msg: string; data: unknown; time: number } {
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  const body = res.json();
  expect(Object.keys(body).sort()).toEqual(['code', 'data', 'msg', 'time']);
  expect(typeof body.time).toBe('number');
  return body;
}

describe('a wrong method', () => {
  it('answers 405 with Allow and the envelope in the request language', async () => {
    const en = await raw(server.url, '/api/ask/post', { headers: { 'think-lang': 'en' } });
    expect(en.status).toBe(405);
    expect(en.headers.allow).toBe('POST');
    expect(expectEnvelope(en)).toMatchObject({ code: 0, msg: 'Method not allowed: GET' });
    const zh = await raw(server.url, '/api/ask/post');
    expect(zh.status).toBe(405);
    expect(expectEnvelope(zh).msg).toBe('不支持的请求方法：GET');
  });

  it('lists every method a path answers', async () => {
    const res = await raw(server.url, '/api/user/checkIn', { method: 'PUT', headers: { 'think-lang': 'en', 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD, POST');
    expectEnvelope(res);
  });

  it('still answers 404 with the envelope for a path nobody handles', async () => {
    const res = await raw(server.url, '/api/nothing/here', { method: 'PATCH', headers: { 'think-lang': 'en', 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(404);
    expect(expectEnvelope(res).msg).toBe('No such API: /api/nothing/here');
  });
});

describe('bodies a form can send', () => {
  it('refuses a form or text/plain post from another site with the envelope', async () => {
    for (const type of ['application/x-www-form-urlencoded', 'text/plain', 'multipart/form-data; boundary=x']) {
      const res = await raw(server.url, '/api/user/logout', { method: 'POST', headers: { 'content-type': type, origin: 'https://evil.example', 'think-lang': 'en' }, body: 'a=1' });
      expect(res.status).toBe(403);
      expect(expectEnvelope(res)).toMatchObject({ code: 0, msg: 'Cross-site request refused' });
    }
    const none = await raw(server.url, '/api/user/logout', { method: 'DELETE', headers: { 'think-lang': 'en' } });
    expect(none.status).toBe(403);
    expectEnvelope(none);
  });

  it('answers a same-site form post with the envelope too (it is not JSON)', async () => {
    const host = new URL(server.url).host;
    const res = await raw(server.url, '/api/user/logout', { method: 'POST', headers: { 'content-type': 'text/plain', origin: server.url, host, 'think-lang': 'en' }, body: 'a=1' });
    expect(res.status).toBe(200);
    expect(expectEnvelope(res)).toMatchObject({ code: 0, msg: 'The request body is not valid JSON' });
  });

  it('refuses a cross-site form post to a page', async () => {
    const res = await raw(server.url, '/ask', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' }, body: 'a=1' });
    expect(res.status).toBe(403);
  });
});

/** Sends raw bytes and reads the whole reply (Node closes the connection after a parse error). */
function rawBytes(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let out = '';
    socket.on('data', (d: Buffer) => { out += d.toString('utf8'); });
    socket.on('end', () => resolve(out));
    socket.on('error', (err) => (out ? resolve(out) : reject(err)));
    socket.write(text);
  });
}

describe('requests Node cannot take', () => {
  it('answers a query string over the header limit with a 431 envelope in the request language', async () => {
    const reply = await rawBytes(server.port, `GET /api/ask/index?q=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: 127.0.0.1\r\nthink-lang: en\r\n\r\n`);
    expect(reply).toMatch(/^HTTP\/1\.1 431 /);
    const body = JSON.parse(reply.slice(reply.indexOf('\r\n\r\n') + 4)) as { code: number; msg: string; time: number };
    expect(body).toMatchObject({ code: 0, data: null });
    expect(body.msg).toMatch(/^The request headers or address are too long/);
    // In Chinese (the default) when nothing asks for English.
    const zh = await rawBytes(server.port, `GET /api/ask/index?q=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    expect(JSON.parse(zh.slice(zh.indexOf('\r\n\r\n') + 4)).msg).toMatch(/^请求头或地址过长/);
  });
});
