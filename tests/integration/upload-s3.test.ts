// The `s3` upload driver against a real object store (Swift + s3api on 127.0.0.1): the server
// presigns, the test plays the browser and sends the parts straight to the store.
import { createHash, randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { startInProcess, type InProcessServer } from '../helpers/in-process';
import { loginAs } from '../helpers/members';
import { startSwift, type SwiftStore } from '../helpers/swift';
import { createUser } from '../../src/lib/server/account/users';
import { attachment } from '../../src/lib/server/db/schema';
import { scaled } from '../helpers/time-scale.mjs';

let swift: SwiftStore;
let server: InProcessServer;
let s3: S3Client;
const members: Record<'alice' | 'bob', { id: number; token: string }> = { alice: { id: 0, token: '' }, bob: { id: 0, token: '' } };

beforeAll(async () => {
  swift = await startSwift({ bucket: 'atrium-s3' });
  vi.stubEnv('S3_ACCESS_KEY_ID', swift.accessKeyId);
  vi.stubEnv('S3_SECRET_ACCESS_KEY', swift.secretAccessKey);
  server = await startInProcess();
  await server.runtime.site.set('upload_mode', 's3');
  await server.runtime.site.set('upload_params', JSON.stringify({ bucket: swift.bucket, region: swift.region, endpoint: swift.endpoint }));
  await server.runtime.site.set('upload_max_size', '20mb');
  for (const name of ['alice', 'bob'] as const) {
    members[name].id = (await createUser(server.runtime.db, { username: name, password: 'secret123' })).id;
    members[name].token = (await loginAs(server.url, server.runtime, name, 'secret123')).token;
  }
  s3 = new S3Client({ region: swift.region, endpoint: swift.endpoint, forcePathStyle: true, credentials: { accessKeyId: swift.accessKeyId, secretAccessKey: swift.secretAccessKey } });
}, scaled(120_000));

afterAll(async () => {
  await server?.stop();
  await swift?.stop();
  vi.unstubAllEnvs();
});

beforeEach(async () => {
  for (const m of Object.values(members)) {
    await server.runtime.limiter.reset(`upload:${m.id}`);
    await server.runtime.limiter.reset(`upload-sign:${m.id}`);
  }
});

interface Envelope<T = Record<string, unknown>> { code: number; msg: string; data: T }

async function call<T = Record<string, unknown>>(path: string, body: unknown, who: 'alice' | 'bob' = 'alice', lang = 'en'): Promise<{ status: number; body: Envelope<T> }> {
  const res = await fetch(server.url + path, {
    method: 'POST', headers: { 'content-type': 'application/json', 'ba-user-token': members[who].token, 'think-lang': lang }, body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Envelope<T> };
}

const sha1 = (b: Buffer): string => createHash('sha1').update(b).digest('hex');

interface Prepared { key: string; uploadId: string; partSize: number; driver: string; file?: { url: string } }

/** Sends `parts` (1-based numbers) of `data` through presigned URLs; returns their ETags. */
async function sendParts(p: Prepared, data: Buffer, parts: number[], who: 'alice' | 'bob' = 'alice'): Promise<Map<number, string>> {
  const signed = await call<{ urls: Record<string, string> }>('/api/upload/sign', { key: p.key, uploadId: p.uploadId, partNumbers: parts }, who);
  expect(signed.body.code).toBe(1);
  const etags = new Map<number, string>();
  for (const n of parts) {
    const res = await fetch(signed.body.data.urls[n]!, { method: 'PUT', body: new Uint8Array(data.subarray((n - 1) * p.partSize, n * p.partSize)) });
    expect(res.status).toBe(200);
    etags.set(n, res.headers.get('etag')!);
  }
  return etags;
}

async function complete(p: Prepared, size: number, who: 'alice' | 'bob' = 'alice'): Promise<Envelope> {
  return (await call('/api/upload/multipart', { op: 'complete', key: p.key, uploadId: p.uploadId, size, partSize: p.partSize }, who)).body;
}

/** The whole flow the browser runs: prepare, parts, complete, callback. */
async function uploadThrough(file: { name: string; type: string; data: Buffer; topic?: string }, who: 'alice' | 'bob' = 'alice') {
  const meta = { name: file.name, size: file.data.length, type: file.type, sha1: sha1(file.data), topic: file.topic ?? 'default' };
  const prepared = await call<Prepared>('/api/upload/prepare', meta, who);
  expect(prepared.body.code, prepared.body.msg).toBe(1);
  if (prepared.body.data.file) return { prepared: prepared.body.data, callback: prepared };
  const p = prepared.body.data;
  const count = Math.ceil(file.data.length / p.partSize);
  await sendParts(p, file.data, Array.from({ length: count }, (_, i) => i + 1), who);
  expect((await complete(p, file.data.length, who)).code).toBe(1);
  const callback = await call<{ file: Record<string, unknown> }>('/api/cos/callback', { url: p.key, ...meta }, who);
  return { prepared: p, callback };
}

describe('s3 driver: a direct multipart upload', () => {
  it('sends the parts straight to the store and records the attachment after checking the object', async () => {
    const data = randomBytes(6 * 1024 * 1024 + 123);
    const { prepared, callback } = await uploadThrough({ name: 'big file.zip', type: 'application/zip', data });
    expect(prepared.driver).toBe('s3');
    expect(prepared.partSize).toBe(5 * 1024 * 1024);
    expect(prepared.key.startsWith(`uploads/${members.alice.id}/default/`)).toBe(true);
    expect(callback.body.code, callback.body.msg).toBe(1);
    const file = (callback.body.data as { file: Record<string, unknown> }).file;
    expect(file).toMatchObject({ name: 'big file.zip', size: data.length, sha1: sha1(data), storage: 's3', url: `/${prepared.key}`, topic: 'default' });
    expect(String(file.full_url)).toBe(`${swift.endpoint}/${swift.bucket}/${prepared.key}`);
    // What the store holds is the file, byte for byte.
    const head = await s3.send(new HeadObjectCommand({ Bucket: swift.bucket, Key: prepared.key }));
    expect(head.ContentLength).toBe(data.length);
    expect(head.Metadata?.sha1).toBe(sha1(data));
    const [row] = await server.runtime.db.select().from(attachment).where(eq(attachment.url, `/${prepared.key}`));
    expect(row).toMatchObject({ userId: members.alice.id, storage: 's3', size: data.length });
  });

  it('answers a second upload of the same content and topic at once (sha1 dedupe), without a new object', async () => {
    const data = randomBytes(300_000);
    const first = await uploadThrough({ name: 'a.zip', type: 'application/zip', data, topic: 'dedupe' });
    const again = await call<{ file?: { url: string; id: number } }>('/api/upload/prepare', { name: 'renamed.zip', size: data.length, type: 'application/zip', sha1: sha1(data), topic: 'dedupe' });
    expect(again.body.code).toBe(1);
    expect(again.body.data.file?.url).toBe(`/${first.prepared.key}`);
    const rows = await server.runtime.db.select().from(attachment).where(eq(attachment.sha1, sha1(data)));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.quote).toBe(2);
    // Another topic is another attachment.
    const other = await call<{ key?: string }>('/api/upload/prepare', { name: 'a.zip', size: data.length, type: 'application/zip', sha1: sha1(data), topic: 'other' });
    expect(other.body.data.key).toBeTruthy();
  });

  it('records image dimensions read from the stored object', async () => {
    // 1×1 PNG
    const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000003000000020806000000b4ac9cd40000000d49444154789c6360000002000001e221bc330000000049454e44ae426082', 'hex');
    const { callback } = await uploadThrough({ name: 'dot.png', type: 'image/png', data: png, topic: 'img' });
    expect(callback.body.code, callback.body.msg).toBe(1);
    expect((callback.body.data as { file: Record<string, unknown> }).file).toMatchObject({ width: 3, height: 2, mimetype: 'image/png' });
  });
});

describe('s3 driver: the rules of local uploads, before any byte moves', () => {
  const meta = (over: Record<string, unknown>) => ({ name: 'x.zip', size: 1000, type: 'application/zip', sha1: 'a'.repeat(40), topic: 'default', ...over });

  it('refuses a type that is not allowed, with the spec message in the member language', async () => {
    const en = await call('/api/upload/prepare', meta({ name: 'evil.exe', type: 'application/x-msdownload' }));
    expect(en.body).toMatchObject({ code: 0, msg: 'The type of uploaded file is not allowed!' });
    const zh = await call('/api/upload/prepare', meta({ name: 'evil.exe', type: 'application/x-msdownload' }), 'alice', 'zh-cn');
    expect(zh.body.msg).toBe('上传文件的类型不被允许！');
  });

  it('refuses a file over the maximum size and an empty one', async () => {
    expect((await call('/api/upload/prepare', meta({ size: 21 * 1024 * 1024 }))).body.msg).toBe('The size of the uploaded file exceeds the allowed range!');
    expect((await call('/api/upload/prepare', meta({ size: 0 }))).body.code).toBe(0);
  });

  it('refuses visitors', async () => {
    const res = await fetch(`${server.url}/api/upload/prepare`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(meta({})) });
    expect(((await res.json()) as Envelope).code).toBe(303);
  });

  it('honours the daily quota', async () => {
    await server.runtime.site.set('upload_daily_quota', '1kb');
    try {
      const res = await call('/api/upload/prepare', meta({ size: 2000, sha1: 'b'.repeat(40) }));
      expect(res.body).toMatchObject({ code: 0, msg: "You reached today's upload quota; please try again tomorrow" });
    } finally {
      await server.runtime.site.set('upload_daily_quota', '0');
    }
  });

  it('charges the daily quota when an upload starts: 3 of 8 files prepared at once fit, and a file started again is charged once', async () => {
    await createUser(server.runtime.db, { username: 'carol', password: 'secret123' });
    const { token } = await loginAs(server.url, server.runtime, 'carol', 'secret123');
    const prepare = async (i: number, lang: string): Promise<Envelope> => {
      const res = await fetch(`${server.url}/api/upload/prepare`, {
        method: 'POST', headers: { 'content-type': 'application/json', 'ba-user-token': token, 'think-lang': lang },
        body: JSON.stringify(meta({ size: 2000, sha1: i.toString(16).padStart(40, '0') })),
      });
      return (await res.json()) as Envelope;
    };
    await server.runtime.site.set('upload_daily_quota', '6000');
    try {
      const replies = await Promise.all(Array.from({ length: 8 }, (_, i) => prepare(i, i % 2 ? 'zh-cn' : 'en')));
      expect(replies.filter((r) => r.code === 1), JSON.stringify(replies.map((r) => r.msg))).toHaveLength(3);
      replies.forEach((r, i) => {
        if (r.code !== 1) expect(r.msg).toBe(i % 2 ? '今日上传已达上限，请明天再试' : "You reached today's upload quota; please try again tomorrow");
      });
      // Nothing is stored yet, and still a ninth file does not fit; a file already started may start again (a resume).
      expect((await prepare(100, 'en')).msg).toBe("You reached today's upload quota; please try again tomorrow");
      expect((await prepare(replies.findIndex((r) => r.code === 1), 'en')).code).toBe(1);
    } finally {
      await server.runtime.site.set('upload_daily_quota', '0');
    }
  });

  it('is refused with the code and message of a numeric upload_params error', async () => {
    const params = await server.runtime.site.get('upload_params');
    await server.runtime.site.set('upload_params', JSON.stringify({ ...JSON.parse(params), error: 7, message: 'Uploads paused' }));
    try {
      expect((await call('/api/upload/prepare', meta({}))).body).toMatchObject({ code: 7, msg: 'Uploads paused' });
    } finally {
      await server.runtime.site.set('upload_params', params);
    }
  });
});

describe('s3 driver: presigned calls stay in the member prefix', () => {
  it('never signs a key of another member', async () => {
    const bobs = await call<Prepared>('/api/upload/prepare', { name: 'b.zip', size: 2000, type: 'application/zip', sha1: 'c'.repeat(40) }, 'bob');
    const signed = await call('/api/upload/sign', { key: bobs.body.data.key, uploadId: bobs.body.data.uploadId, partNumbers: [1] }, 'alice');
    expect(signed.status).toBe(403);
    expect(signed.body).toMatchObject({ code: 0, msg: 'You may not operate on this file' });
    for (const key of [`uploads/${members.alice.id}/../${members.bob.id}/x.zip`, `uploads/${members.alice.id}/`, 'uploads/', `private/${members.alice.id}/x.zip`]) {
      const r = await call('/api/upload/multipart', { key, uploadId: 'x', op: 'abort' });
      expect(r.status, key).toBe(403);
      expect((await call('/api/upload/sign', { key, uploadId: 'x', partNumbers: [1] })).status, key).toBe(403);
    }
  });

  it('the store refuses a presigned URL used for another key, or for a listing of the bucket', async () => {
    const data = randomBytes(2000);
    const p = (await call<Prepared>('/api/upload/prepare', { name: 'p.zip', size: data.length, type: 'application/zip', sha1: sha1(data) })).body.data;
    const url = new URL((await call<{ urls: Record<string, string> }>('/api/upload/sign', { key: p.key, uploadId: p.uploadId, partNumbers: [1] })).body.data.urls[1]!);
    const otherKey = new URL(url);
    otherKey.pathname = `/${swift.bucket}/uploads/${members.bob.id}/stolen.zip`;
    expect((await fetch(otherKey, { method: 'PUT', body: new Uint8Array(data) })).status).toBe(403);
    const listing = new URL(url);
    listing.pathname = `/${swift.bucket}`;
    listing.searchParams.delete('partNumber');
    listing.searchParams.delete('uploadId');
    expect((await fetch(listing)).status).toBe(403);
    // Signed for PUT: the same URL does not read the object.
    expect((await fetch(url)).ok).toBe(false);
  });

  it('lists the parts already sent (resume) and aborts an upload on the store', async () => {
    const data = randomBytes(5 * 1024 * 1024 * 2 + 10);
    const p = (await call<Prepared>('/api/upload/prepare', { name: 'r.zip', size: data.length, type: 'application/zip', sha1: sha1(data), topic: 'resume' })).body.data;
    const etags = await sendParts(p, data, [1, 3]);
    const listed = await call<{ parts: { partNumber: number; size: number; etag: string }[] }>('/api/upload/multipart', { op: 'list', key: p.key, uploadId: p.uploadId });
    expect(listed.body.data.parts.map((x) => x.partNumber)).toEqual([1, 3]);
    expect(listed.body.data.parts[1]!.etag).toBe(etags.get(3));
    // Completing before every part is there is refused; another member cannot list, complete or abort it.
    expect((await complete(p, data.length)).msg).toBe('Some parts have not been uploaded yet; please resume the upload');
    for (const op of ['list', 'abort'] as const) expect((await call('/api/upload/multipart', { op, key: p.key, uploadId: p.uploadId }, 'bob')).status).toBe(403);
    // Only the missing part is sent, then the upload completes.
    await sendParts(p, data, [2]);
    expect((await complete(p, data.length)).code).toBe(1);
    const cb = await call('/api/cos/callback', { url: p.key, name: 'r.zip', size: data.length, type: 'application/zip', sha1: sha1(data), topic: 'resume' });
    expect(cb.body.code, cb.body.msg).toBe(1);

    const q = (await call<Prepared>('/api/upload/prepare', { name: 'q.zip', size: 3000, type: 'application/zip', sha1: 'd'.repeat(40) })).body.data;
    await sendParts(q, randomBytes(3000), [1]);
    expect((await call('/api/upload/multipart', { op: 'abort', key: q.key, uploadId: q.uploadId })).body.code).toBe(1);
    const after = await call('/api/upload/multipart', { op: 'list', key: q.key, uploadId: q.uploadId });
    expect(after.body).toMatchObject({ code: 0, msg: 'This multipart upload no longer exists; please upload the file again', data: { missing: true } });
  });
});

describe('s3 driver: the callback checks the object before recording it', () => {
  it('refuses another member key, a missing object, a size mismatch and a refused type', async () => {
    const data = randomBytes(4000);
    const bob = await uploadThrough({ name: 'bob.zip', type: 'application/zip', data, topic: 'cb' }, 'bob');
    expect(bob.callback.body.code).toBe(1);
    const foreign = await call('/api/cos/callback', { url: bob.prepared.key, name: 'bob.zip', size: data.length, type: 'application/zip', sha1: sha1(data), topic: 'cb' });
    expect(foreign.status).toBe(403);
    expect(foreign.body.code).toBe(0);

    const missing = await call('/api/cos/callback', { url: `uploads/${members.alice.id}/default/none.zip`, name: 'none.zip', size: 10, type: 'application/zip', sha1: 'e'.repeat(40), topic: 'cb' });
    expect(missing.body).toMatchObject({ code: 0, msg: 'The uploaded file is not in the store; please upload it again' });

    // An object put there outside the prepare step (no sha1 recorded), and a lying size.
    const key = `uploads/${members.alice.id}/cb/put.zip`;
    await s3.send(new PutObjectCommand({ Bucket: swift.bucket, Key: key, Body: data }));
    const lying = await call('/api/cos/callback', { url: key, name: 'put.zip', size: data.length + 1, type: 'application/zip', sha1: sha1(data), topic: 'cb' });
    expect(lying.body).toMatchObject({ code: 0, msg: "The stored file's size differs from the declared size; please upload it again" });
    const badType = await call('/api/cos/callback', { url: key, name: 'put.exe', size: data.length, type: 'application/x-msdownload', sha1: sha1(data), topic: 'cb' });
    expect(badType.body.msg).toBe('The type of uploaded file is not allowed!');

    const rows = await server.runtime.db.select().from(attachment).where(eq(attachment.userId, members.alice.id));
    expect(rows.some((r) => r.url === `/${key}` || r.url === `/${bob.prepared.key}`)).toBe(false);
  });
});
