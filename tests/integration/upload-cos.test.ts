// The `cos` upload driver: temporary credentials from /api/Cos/refreshToken (offline STS), used the
// way cos-js-sdk-v5 uses them (q-sign, x-cos-security-token) against the COS-dialect gateway in
// front of Swift; the callback then checks the stored object.
import { createHash, randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { startInProcess, type InProcessServer } from '../helpers/in-process';
import { loginAs } from '../helpers/members';
import { startSwift, type SwiftStore } from '../helpers/swift';
import { startCosGateway, type CosGateway } from '../helpers/cos-gateway';
import { createUser } from '../../src/lib/server/account/users';
import { attachment } from '../../src/lib/server/db/schema';
import { issueLocalCredentials, type CosCredentials } from '../../src/lib/server/upload/cos';
import { cosEncode, qSign } from '../helpers/cos-sign';
import { scaled } from '../helpers/time-scale.mjs';

const BUCKET = 'atrium-1250000000';
const REGION = 'ap-guangzhou';
let swift: SwiftStore;
let gateway: CosGateway;
let server: InProcessServer;
const members: Record<'alice' | 'bob', { id: number; token: string }> = { alice: { id: 0, token: '' }, bob: { id: 0, token: '' } };

beforeAll(async () => {
  swift = await startSwift({ bucket: BUCKET, region: REGION });
  gateway = await startCosGateway({ backend: swift.endpoint, accessKeyId: swift.accessKeyId, secretAccessKey: swift.secretAccessKey, master: swift.secretAccessKey });
  vi.stubEnv('COS_SECRET_ID', swift.accessKeyId);
  vi.stubEnv('COS_SECRET_KEY', swift.secretAccessKey);
  vi.stubEnv('COS_STS', 'local');
  server = await startInProcess();
  await server.runtime.site.set('upload_params', JSON.stringify({ bucket: BUCKET, region: REGION, endpoint: swift.endpoint, domain: `${gateway.url}/{Bucket}` }));
  await server.runtime.site.set('upload_mode', 'cos');
  for (const name of ['alice', 'bob'] as const) {
    members[name].id = (await createUser(server.runtime.db, { username: name, password: 'secret123' })).id;
    members[name].token = (await loginAs(server.url, server.runtime, name, 'secret123')).token;
  }
}, scaled(120_000));

afterAll(async () => {
  await server?.stop();
  await gateway?.close();
  await swift?.stop();
  vi.unstubAllEnvs();
});

beforeEach(async () => {
  for (const m of Object.values(members)) {
    await server.runtime.limiter.reset(`upload:${m.id}`);
    await server.runtime.limiter.reset(`upload-sign:${m.id}`);
    await server.runtime.limiter.reset(`cos-token:${m.id}`);
  }
});

interface Envelope<T = Record<string, unknown>> { code: number; msg: string; data: T }

async function api<T = Record<string, unknown>>(path: string, body: unknown, who: 'alice' | 'bob' = 'alice'): Promise<{ status: number; body: Envelope<T> }> {
  const res = await fetch(server.url + path, {
    method: body === undefined ? 'GET' : 'POST', headers: { 'content-type': 'application/json', 'ba-user-token': members[who].token, 'think-lang': 'en' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Envelope<T> };
}

const credentials = async (who: 'alice' | 'bob' = 'alice'): Promise<CosCredentials> => (await api<CosCredentials>('/api/cos/refreshToken', undefined, who)).body.data;
const sha1 = (b: Buffer): string => createHash('sha1').update(b).digest('hex');

/** A request the way cos-js-sdk-v5 sends it: q-sign over host and the query, the token header. */
async function cos(c: CosCredentials, method: string, key: string, opts: { query?: Record<string, string>; body?: Buffer | string; headers?: Record<string, string>; signKey?: string; keyTime?: string } = {}): Promise<{ status: number; text: string; headers: Headers }> {
  const query = opts.query ?? {};
  const qs = Object.entries(query).map(([k, v]) => (v === '' ? cosEncode(k) : `${cosEncode(k)}=${cosEncode(v)}`)).join('&');
  const url = `${gateway.url}/${BUCKET}/${key.split('/').map(cosEncode).join('/')}${qs ? `?${qs}` : ''}`;
  const now = Math.floor(Date.now() / 1000);
  const signed = { host: `127.0.0.1:${gateway.port}`, ...opts.headers };
  const authorization = qSign({ secretId: c.tmpSecretId, secretKey: c.tmpSecretKey, method, pathname: `/${opts.signKey ?? key}`, query, headers: signed, keyTime: opts.keyTime ?? `${now - 1};${now + 600}` });
  const res = await fetch(url, { method, headers: { ...opts.headers, authorization, 'x-cos-security-token': c.sessionToken }, ...(opts.body !== undefined ? { body: typeof opts.body === 'string' ? opts.body : new Uint8Array(opts.body) } : {}) });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

async function prepare(data: Buffer, name: string, who: 'alice' | 'bob' = 'alice', topic = 'default'): Promise<{ key: string; driver: string; file?: { url: string } }> {
  const r = await api<{ key: string; driver: string; file?: { url: string } }>('/api/upload/prepare', { name, size: data.length, type: 'application/zip', sha1: sha1(data), topic }, who);
  expect(r.body.code, r.body.msg).toBe(1);
  return r.body.data;
}

/** Initiate, parts of 1 MiB, complete: the calls sliceUploadFile makes. */
async function multipart(c: CosCredentials, key: string, data: Buffer, meta: Record<string, string> = {}): Promise<void> {
  const init = await cos(c, 'POST', key, { query: { uploads: '' }, headers: meta });
  expect(init.status, init.text).toBe(200);
  const uploadId = /<UploadId>([^<]+)<\/UploadId>/.exec(init.text)![1]!;
  const parts: string[] = [];
  for (let n = 1, off = 0; off < data.length; n++, off += 1024 * 1024) {
    const put = await cos(c, 'PUT', key, { query: { partNumber: String(n), uploadId }, body: data.subarray(off, off + 1024 * 1024) });
    expect(put.status, put.text).toBe(200);
    parts.push(`<Part><PartNumber>${n}</PartNumber><ETag>${put.headers.get('etag')}</ETag></Part>`);
  }
  const done = await cos(c, 'POST', key, { query: { uploadId }, body: `<CompleteMultipartUpload>${parts.join('')}</CompleteMultipartUpload>`, headers: { 'content-type': 'application/xml' } });
  expect(done.status, done.text).toBe(200);
}

describe('cos driver: temporary credentials', () => {
  it('GET /api/Cos/refreshToken answers the spec fields, valid 900 s, for members only', async () => {
    const r = await api<CosCredentials>('/api/cos/refreshToken', undefined);
    expect(r.body.code).toBe(1);
    expect(Object.keys(r.body.data).sort()).toEqual(['expiredTime', 'sessionToken', 'startTime', 'tmpSecretId', 'tmpSecretKey']);
    expect(r.body.data.expiredTime - r.body.data.startTime).toBe(900);
    const visitor = await fetch(`${server.url}/api/Cos/refreshToken`);
    expect(((await visitor.json()) as Envelope).code).toBe(303);
  });

  it('upload a file in parts through the gateway, and the callback records it', async () => {
    const data = randomBytes(2 * 1024 * 1024 + 99);
    const p = await prepare(data, 'pack.zip');
    expect(p.driver).toBe('cos');
    expect(p.key.startsWith(`uploads/${members.alice.id}/`)).toBe(true);
    await multipart(await credentials(), p.key, data, { 'x-cos-meta-sha1': sha1(data) });
    const cb = await api<{ file: Record<string, unknown> }>('/api/cos/callback', { url: p.key, name: 'pack.zip', size: data.length, type: 'application/zip', sha1: sha1(data), topic: 'default' });
    expect(cb.body.code, cb.body.msg).toBe(1);
    expect(cb.body.data.file).toMatchObject({ storage: 'cos', size: data.length, sha1: sha1(data), url: `/${p.key}` });
    // Read back through the store: the same bytes.
    const { S3Client, GetObjectCommand } = await import('@aws-sdk/client-s3');
    const s3 = new S3Client({ region: REGION, endpoint: swift.endpoint, forcePathStyle: true, credentials: { accessKeyId: swift.accessKeyId, secretAccessKey: swift.secretAccessKey } });
    const got = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: p.key }));
    expect(sha1(Buffer.from(await got.Body!.transformToByteArray()))).toBe(sha1(data));
  });

  it('the store refuses keys outside the member prefix, listings, another bucket, expired and forged credentials, and tampered requests', async () => {
    const c = await credentials();
    const mine = `uploads/${members.alice.id}/default/x.bin`;
    expect((await cos(c, 'PUT', mine, { body: 'ok' })).status).toBe(200);
    const denied = async (r: Promise<{ status: number; text: string }>, code: string): Promise<void> => {
      const res = await r;
      expect(res.status, res.text).toBe(403);
      expect(res.text).toContain(`<Code>${code}</Code>`);
    };
    await denied(cos(c, 'PUT', `uploads/${members.bob.id}/default/x.bin`, { body: 'no' }), 'AccessDenied');
    // Dots in the path: the URL resolves them, so what arrives is not the key that was signed.
    await denied(cos(c, 'PUT', `uploads/${members.alice.id}/../${members.bob.id}/x.bin`, { body: 'no' }), 'SignatureDoesNotMatch');
    await denied(cos(c, 'GET', '', { query: { prefix: '' } }), 'AccessDenied');
    await denied(cos(c, 'GET', '', { query: { uploads: '', prefix: 'uploads/' } }), 'AccessDenied');
    expect((await cos(c, 'GET', '', { query: { uploads: '', prefix: mine } })).status).toBe(200);
    // Signed for one key, sent to another; a query parameter added after signing.
    await denied(cos(c, 'PUT', `uploads/${members.alice.id}/default/y.bin`, { body: 'no', signKey: mine }), 'SignatureDoesNotMatch');
    const keyTime = `${Math.floor(Date.now() / 1000) - 1000};${Math.floor(Date.now() / 1000) - 10}`;
    await denied(cos(c, 'PUT', mine, { body: 'late', keyTime }), 'AccessDenied');
    const expired = issueLocalCredentials(swift.secretAccessKey, BUCKET, `uploads/${members.alice.id}/`, Math.floor(Date.now() / 1000) - 2000);
    await denied(cos(expired, 'PUT', mine, { body: 'old' }), 'ExpiredToken');
    const forged = issueLocalCredentials('not-the-site-key', BUCKET, 'uploads/', Math.floor(Date.now() / 1000));
    await denied(cos(forged, 'PUT', mine, { body: 'forged' }), 'InvalidToken');
    const other = issueLocalCredentials(swift.secretAccessKey, 'other-1250000000', `uploads/${members.alice.id}/`);
    await denied(cos(other, 'PUT', mine, { body: 'bucket' }), 'AccessDenied');
  });
});

describe('cos driver: the callback', () => {
  it('refuses another member key, a missing object and a size mismatch; dedupes by sha1 + topic', async () => {
    const data = randomBytes(3000);
    const bobKey = (await prepare(data, 'b.zip', 'bob', 'cb')).key;
    expect((await cos(await credentials('bob'), 'PUT', bobKey, { body: data })).status).toBe(200);
    expect((await api('/api/cos/callback', { url: bobKey, name: 'b.zip', size: data.length, type: 'application/zip', sha1: sha1(data), topic: 'cb' }, 'bob')).body.code).toBe(1);
    const foreign = await api('/api/cos/callback', { url: bobKey, name: 'b.zip', size: data.length, type: 'application/zip', sha1: sha1(data), topic: 'cb' });
    expect(foreign.status).toBe(403);
    const missing = await api('/api/cos/callback', { url: `uploads/${members.alice.id}/cb/none.zip`, name: 'none.zip', size: 5, type: 'application/zip', sha1: 'f'.repeat(40), topic: 'cb' });
    expect(missing.body.msg).toBe('The uploaded file is not in the store; please upload it again');
    const key = (await prepare(data, 'a.zip', 'alice', 'cb')).key;
    expect((await cos(await credentials(), 'PUT', key, { body: data })).status).toBe(200);
    const lying = await api('/api/cos/callback', { url: key, name: 'a.zip', size: data.length - 1, type: 'application/zip', sha1: sha1(data), topic: 'cb' });
    expect(lying.body.msg).toBe("The stored file's size differs from the declared size; please upload it again");
    expect((await api('/api/cos/callback', { url: key, name: 'a.zip', size: data.length, type: 'application/zip', sha1: sha1(data), topic: 'cb' })).body.code).toBe(1);
    // The same content under the same topic: answered by prepare at once.
    const again = await prepare(data, 'again.zip', 'alice', 'cb');
    expect(again.file?.url).toBe(`/${key}`);
    const rows = await server.runtime.db.select().from(attachment).where(eq(attachment.userId, members.alice.id));
    expect(rows.filter((r) => r.sha1 === sha1(data))).toHaveLength(1);
  });
});
