// A refused upload (no token, body over the limit) is answered while the client is still sending:
// the server reads and drops the rest first, so fetch gets the envelope instead of a reset.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server';

let server: TestServer;
beforeAll(async () => { server = await startServer(); });
afterAll(async () => { await server?.stop(); });

function form(bytes: number): FormData {
  const body = new FormData();
  body.append('file', new Blob([new Uint8Array(bytes).fill(7)], { type: 'image/png' }), 'big.png');
  return body;
}

describe('refused uploads reach the client', () => {
  it.each([5, 30])('answers a %i MB upload without a token with "need login"', async (mb) => {
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${server.url}/api/ajax/upload`, { method: 'POST', body: form(mb * 1024 * 1024), headers: { 'think-lang': 'en' } });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ code: 303, msg: 'Please log in first', data: { type: 'need login' } });
    }
  });

  it('answers a body over MAX_BODY_BYTES with the 413 envelope', async () => {
    const res = await fetch(`${server.url}/api/ask/post`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'think-lang': 'en' }, body: `"${'x'.repeat(20 * 1024 * 1024)}"`,
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ code: 0, msg: 'The request body is too large; the limit is 16 MB' });
  });

  it('keeps the connection for the next request when the body was read to its end', async () => {
    const res = await fetch(`${server.url}/api/ajax/upload`, { method: 'POST', body: form(1024 * 1024) });
    expect(res.headers.get('connection')).not.toBe('close');
    expect((await res.json()).code).toBe(303);
  });
});
