// Local uploads through HTTP: POST /api/ajax/upload and the files served under /storage.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startInProcess, type InProcessServer } from '../helpers/in-process';
import { loginAs } from '../helpers/members';
import { png } from '../helpers/files';
import { createUser } from '../../src/lib/server/account/users';
import { startSession } from '../../src/lib/server/auth/sessions';
import { attachment, token as tokenTable } from '../../src/lib/server/db/schema';

let server: InProcessServer;
let token: string;
let aliceId: number;

beforeAll(async () => {
  server = await startInProcess();
  aliceId = (await createUser(server.runtime.db, { username: 'alice', password: 'secret123' })).id;
  token = (await loginAs(server.url, server.runtime, 'alice', 'secret123')).token;
});
afterAll(async () => {
  await server?.stop();
});
// Alice uploads more than the per-minute limit in this file.
beforeEach(async () => {
  await server.runtime.limiter.reset(`upload:${aliceId}`);
});

interface FileReply {
  id: number; url: string; full_url: string; name: string; size: number; mimetype: string; sha1: string;
  width: number; height: number; topic: string; storage: string; suffix: string; user_id: number; last_upload_time: number;
}
type Body = { code: number; msg: string; data: { file: FileReply } & Record<string, unknown> | null };

async function upload(opts: { file?: { name: string; type: string; data: Buffer | string }; query?: string; headers?: Record<string, string>; token?: string | null; lang?: string } = {}): Promise<{ status: number; body: Body; headers: Headers }> {
  const form = new FormData();
  form.append('note', 'hello');
  if (opts.file) form.append('file', new Blob([typeof opts.file.data === 'string' ? opts.file.data : new Uint8Array(opts.file.data)], { type: opts.file.type }), opts.file.name);
  const headers: Record<string, string> = { 'think-lang': opts.lang ?? 'en', ...opts.headers };
  const t = opts.token === undefined ? token : opts.token;
  if (t) headers['ba-user-token'] = t;
  const res = await fetch(`${server.url}/api/ajax/upload${opts.query ?? ''}`, { method: 'POST', body: form, headers });
  return { status: res.status, body: (await res.json()) as Body, headers: res.headers };
}

/** A GET written byte for byte on a socket: no URL normalisation on the way (`..`, `%2e`). */
function rawGet(path: string): Promise<{ status: number; head: string }> {
  const { port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
    });
    let data = '';
    socket.on('data', (c: Buffer) => { data += c.toString('latin1'); });
    socket.on('end', () => resolve({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(data)?.[1] ?? 0), head: data.split('\r\n\r\n')[0] ?? '' }));
    socket.on('error', reject);
  });
}

describe('who may upload', () => {
  it('needs login (303 need login), also with a bad token', async () => {
    const none = await upload({ token: null, file: { name: 'a.png', type: 'image/png', data: png(1, 1) } });
    expect(none.body).toMatchObject({ code: 303, data: { type: 'need login' } });
    const bad = await upload({ token: 'not-a-token', file: { name: 'a.png', type: 'image/png', data: png(1, 1) } });
    expect(bad.body).toMatchObject({ code: 303, data: { type: 'need login' } });
  });

  it('answers 409 when the token expired', async () => {
    const [bob] = [await createUser(server.runtime.db, { username: 'bob', password: 'secret123' })];
    const session = await startSession(server.runtime.db, server.runtime.tokenSecret, bob!.id, false);
    await server.runtime.db.update(tokenTable).set({ expireTime: 1 }).where(eq(tokenTable.userId, bob!.id));
    const res = await upload({ token: session.token, file: { name: 'a.png', type: 'image/png', data: png(1, 1) } });
    expect(res.body).toMatchObject({ code: 409, msg: 'Token expiration', data: [] });
  });

  it('limits uploads per member (HTTP 429)', async () => {
    const carol = await createUser(server.runtime.db, { username: 'carol', password: 'secret123' });
    const session = await startSession(server.runtime.db, server.runtime.tokenSecret, carol.id, false);
    for (let i = 0; i < 30; i++) await server.runtime.limiter.hit(`upload:${carol.id}`, 30, 60);
    const res = await upload({ token: session.token, file: { name: 'a.png', type: 'image/png', data: png(1, 1) } });
    expect(res.status).toBe(429);
    expect(res.body.code).toBe(0);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('refuses a cookie session from another site, accepts it from our own pages', async () => {
    const file = { name: 'cookie.png', type: 'image/png', data: png(2, 2, 7) };
    const foreign = await upload({ token: null, file, headers: { cookie: `ba-user-token=${token}`, origin: 'https://evil.example' } });
    expect(foreign.status).toBe(403);
    const own = await upload({ token: null, file, headers: { cookie: `ba-user-token=${token}`, origin: server.url } });
    expect(own.body.code).toBe(1);
  });
});

describe('validation', () => {
  it('a form without a file is incomplete (en and zh-cn)', async () => {
    expect((await upload()).body).toMatchObject({ code: 0, msg: 'The data of the uploaded file is incomplete!' });
    expect((await upload({ lang: 'zh-cn' })).body).toMatchObject({ code: 0, msg: '上传文件的数据不完整！' });
    const notMultipart = await fetch(`${server.url}/api/ajax/upload`, { method: 'POST', headers: { 'ba-user-token': token, 'think-lang': 'en', 'content-type': 'application/json' }, body: '{}' });
    expect(await notMultipart.json()).toMatchObject({ code: 0, msg: 'The data of the uploaded file is incomplete!' });
  });

  it('an empty file is incomplete', async () => {
    expect((await upload({ file: { name: 'empty.png', type: 'image/png', data: '' } })).body.msg).toBe('The data of the uploaded file is incomplete!');
  });

  it('refuses a type outside the suffix and MIME lists', async () => {
    const res = await upload({ file: { name: 'tool.exe', type: 'application/x-msdownload', data: 'MZ....' } });
    expect(res.body).toMatchObject({ code: 0, msg: 'The type of uploaded file is not allowed!' });
    const zh = await upload({ lang: 'zh-cn', file: { name: 'page.html', type: 'text/html', data: '<script>alert(1)</script>' } });
    expect(zh.body).toMatchObject({ code: 0, msg: '上传文件的类型不被允许！' });
  });

  it('accepts a type by MIME alone when the MIME list has it', async () => {
    await server.runtime.site.set('upload_allowed_mime_types', 'text/plain');
    try {
      const res = await upload({ file: { name: 'notes.txt', type: 'text/plain', data: 'plain notes' } });
      expect(res.body).toMatchObject({ code: 1, data: { file: { suffix: 'txt', mimetype: 'text/plain' } } });
    } finally {
      await server.runtime.site.set('upload_allowed_mime_types', '');
    }
  });

  it('refuses a file over upload_max_size and leaves no temporary file', async () => {
    await server.runtime.site.set('upload_max_size', '1kb');
    try {
      const res = await upload({ file: { name: 'big.png', type: 'image/png', data: Buffer.alloc(4096, 1) } });
      expect(res.body).toMatchObject({ code: 0, msg: 'The size of the uploaded file exceeds the allowed range!' });
      const exact = await upload({ file: { name: 'exact.zip', type: 'application/zip', data: Buffer.alloc(1024, 2) } });
      expect(exact.body.code).toBe(1);
    } finally {
      await server.runtime.site.set('upload_max_size', '10mb');
    }
    const tmp = join(server.dataDir, 'storage', '.tmp');
    await expect.poll(() => (existsSync(tmp) ? readdirSync(tmp) : [])).toEqual([]);
  });

  it('refuses a too large body from its Content-Length before reading it', async () => {
    await server.runtime.site.set('upload_max_size', '1kb');
    try {
      const { port } = new URL(server.url);
      const reply = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1', () => {
          socket.write(`POST /api/ajax/upload HTTP/1.1\r\nHost: 127.0.0.1\r\nba-user-token: ${token}\r\nthink-lang: en\r\n` +
            `Content-Type: multipart/form-data; boundary=xyz\r\nContent-Length: ${50 * 1024 * 1024}\r\n\r\n--xyz\r\n`);
        });
        let data = '';
        socket.on('data', (c: Buffer) => { data += c.toString('utf8'); });
        socket.on('close', () => resolve(data));
        socket.on('error', reject);
      });
      expect(reply).toMatch(/^HTTP\/1\.1 200/);
      expect(reply).toMatch(/connection: close/i);
      expect(JSON.parse(reply.slice(reply.indexOf('\r\n\r\n') + 4))).toMatchObject({ code: 0, msg: 'The size of the uploaded file exceeds the allowed range!' });
    } finally {
      await server.runtime.site.set('upload_max_size', '10mb');
    }
  });

  it('a numeric error in upload_params rejects every upload with its code and message', async () => {
    await server.runtime.site.set('upload_params', JSON.stringify({ error: 2, message: 'Uploads are paused for maintenance' }));
    try {
      const res = await upload({ file: { name: 'a.png', type: 'image/png', data: png(1, 1) } });
      expect(res.body).toMatchObject({ code: 2, msg: 'Uploads are paused for maintenance' });
    } finally {
      await server.runtime.site.set('upload_params', '{}');
    }
    expect((await upload({ file: { name: 'a.png', type: 'image/png', data: png(1, 1, 3) } })).body.code).toBe(1);
  });

  it('only the local driver, and an alpha-dash topic', async () => {
    const file = { name: 'a.png', type: 'image/png', data: png(1, 1) };
    expect((await upload({ file, query: '?driver=oss' })).body).toMatchObject({ code: 0, msg: 'Driver oss not supported' });
    expect((await upload({ file, query: '?topic=../etc' })).body.code).toBe(0);
    expect((await upload({ file, query: `?topic=${'a'.repeat(21)}` })).body.code).toBe(0);
  });
});

describe('storing', () => {
  it('stores a PNG with its size, dedupes the same content and serves it', async () => {
    const data = png(37, 21, 9);
    const sha1 = createHash('sha1').update(data).digest('hex');
    const first = await upload({ file: { name: 'My Photo (1).png', type: 'image/png', data }, query: '?driver=local&topic=avatar' });
    expect(first.body.code).toBe(1);
    expect(first.body.msg).toBe('File uploaded successfully');
    const file = first.body.data!.file;
    expect(file).toMatchObject({
      width: 37, height: 21, size: data.length, sha1, mimetype: 'image/png', topic: 'avatar', storage: 'local',
      suffix: 'png', user_id: aliceId, name: 'My Photo (1).png',
    });
    expect(file.url).toMatch(new RegExp(`^/storage/avatar/\\d{8}/MyPhoto1${sha1}\\.png$`));
    expect(file.full_url).toBe(`//${new URL(server.url).host}${file.url}`);
    expect(readFileSync(join(server.dataDir, file.url)).equals(data)).toBe(true);

    const again = await upload({ file: { name: 'renamed.png', type: 'image/png', data }, query: '?topic=avatar' });
    expect(again.body.data!.file.id).toBe(file.id);
    expect(again.body.data!.file.url).toBe(file.url);
    const [row] = await server.runtime.db.select().from(attachment).where(eq(attachment.id, file.id));
    expect(row!.quote).toBe(2);
    // Another topic is another attachment.
    const other = await upload({ file: { name: 'x.png', type: 'image/png', data }, query: '?topic=post' });
    expect(other.body.data!.file.id).not.toBe(file.id);

    const served = await fetch(`${server.url}${file.url}`);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(served.headers.get('x-content-type-options')).toBe('nosniff');
    expect(served.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(served.headers.get('content-disposition')).toBeNull();
    expect(Buffer.from(await served.arrayBuffer()).equals(data)).toBe(true);
    const etag = served.headers.get('etag')!;
    const cached = await fetch(`${server.url}${file.url}`, { headers: { 'if-none-match': etag } });
    expect(cached.status).toBe(304);
    const part = await fetch(`${server.url}${file.url}`, { headers: { range: 'bytes=0-7' } });
    expect(part.status).toBe(206);
    expect(Buffer.from(await part.arrayBuffer()).equals(data.subarray(0, 8))).toBe(true);
  });

  it('a file whose old copy vanished is stored again', async () => {
    const data = png(3, 3, 42);
    const first = (await upload({ file: { name: 'gone.png', type: 'image/png', data } })).body.data!.file;
    const { rmSync } = await import('node:fs');
    rmSync(join(server.dataDir, first.url));
    const second = (await upload({ file: { name: 'gone.png', type: 'image/png', data } })).body.data!.file;
    expect(second.id).not.toBe(first.id);
    expect(existsSync(join(server.dataDir, second.url))).toBe(true);
    expect(await server.runtime.db.select().from(attachment).where(eq(attachment.id, first.id))).toEqual([]);
  });

  it('a file named .png that is not an image has no size, and its type comes from the name', async () => {
    const res = await upload({ file: { name: 'fake.png', type: 'image/png', data: 'not really a png' } });
    expect(res.body.data!.file).toMatchObject({ width: 0, height: 0, suffix: 'png' });
  });

  it('serves SVG (and other active types) as a sandboxed attachment', async () => {
    await server.runtime.site.set('upload_allowed_suffixes', 'jpg,png,svg');
    try {
      const svg = '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.cookie)</script></svg>';
      const res = await upload({ file: { name: 'logo.svg', type: 'image/svg+xml', data: svg } });
      expect(res.body.code).toBe(1);
      const served = await fetch(`${server.url}${res.body.data!.file.url}`);
      expect(served.status).toBe(200);
      expect(served.headers.get('content-type')).toBe('image/svg+xml');
      expect(served.headers.get('content-disposition')).toBe('attachment');
      expect(served.headers.get('content-security-policy')).toBe('sandbox');
      expect(served.headers.get('x-content-type-options')).toBe('nosniff');
    } finally {
      await server.runtime.site.set('upload_allowed_suffixes', 'jpg,png,bmp,jpeg,gif,webp,zip,rar,wav,mp4,mp3');
    }
  });

  it('keeps CJK names and serves them by their encoded URL', async () => {
    const data = png(4, 4, 77);
    const file = (await upload({ file: { name: '我的 照片.png', type: 'image/png', data } })).body.data!.file;
    expect(file.url).toContain('/我的照片');
    const served = await fetch(`${server.url}${encodeURI(file.url)}`);
    expect(served.status).toBe(200);
  });
});

describe('storage URLs', () => {
  it.each([
    '/storage/../package.json',
    '/storage/..%2f..%2fpackage.json',
    '/storage/%2e%2e/%2e%2e/package.json',
    '/storage/%2e%2e%2f%2e%2e%2fpackage.json',
    '/storage/..\\..\\package.json',
    '/storage/a%00.png',
    '/storage/.tmp/',
    '/storage/nothing-here.png',
    '/storage/',
  ])('%s is 404', async (path) => {
    expect((await rawGet(path)).status).toBe(404);
  });
  it('a HEAD gets the headers only; other methods are not served', async () => {
    const file = (await upload({ file: { name: 'head.png', type: 'image/png', data: png(5, 5, 5) } })).body.data!.file;
    const head = await fetch(`${server.url}${file.url}`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(file.size));
  });
});
