// An API route whose code cannot be loaded (the build replaced under a running server, until its
// restart) still answers the JSON envelope, in the caller's language, never the HTML error page.
// The server runs from a copy of the build with one API route's chunk removed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { raw, startServer, type TestServer } from '../helpers/server';
import { ROOT, TMP } from '../helpers/paths';
import { scaled } from '../helpers/time-scale.mjs';

let server: TestServer;
let root = '';
beforeAll(async () => {
  root = mkdtempSync(join(TMP, 'broken-build-'));
  for (const entry of ['dist', 'drizzle', 'package.json']) cpSync(join(ROOT, entry), join(root, entry), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'));
  const chunks = join(root, 'dist', 'server', 'chunks');
  const route = readdirSync(chunks).find((f) => readFileSync(join(chunks, f), 'utf8').includes('// src/pages/api/chat/models.ts'));
  if (!route) throw new Error('the chunk of /api/chat/models was not found in the build');
  unlinkSync(join(chunks, route));
  server = await startServer({ env: { ATRIUM_ROOT: root } });
}, scaled(60_000));
afterAll(async () => {
  await server?.stop();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('an API route that cannot be loaded', () => {
  it('answers the envelope with the request id in the caller language', async () => {
    const en = await raw(server.url, '/api/chat/models', { headers: { cookie: 'ba-lang=en' } });
    expect(en.status).toBe(500);
    expect(en.headers['content-type']).toMatch(/^application\/json/);
    const body = JSON.parse(en.text) as { code: number; msg: string; data: unknown; time: number };
    expect(body).toMatchObject({ code: 0, data: null });
    expect(body.msg).toMatch(/^Server internal error! Please try again later \(request id [\w-]+\)$/);
    expect(body.msg).toContain(String(en.headers['x-request-id']));
    const zh = await raw(server.url, '/api/chat/models');
    expect(JSON.parse(zh.text).msg).toMatch(/^服务器内部错误，请稍后再试/);
  });

  it('leaves pages and the other routes working', async () => {
    expect((await raw(server.url, '/ask')).status).toBe(200);
    const list = await raw(server.url, '/api/chat/list');
    expect(list.headers['content-type']).toMatch(/^application\/json/);
  });
});
