// Module packages and module images in a cloud upload mode, against a real object store (Swift +
// s3api on 127.0.0.1): packages go to the developer's private prefix, the store refuses their
// unsigned URL, and `/api/modules/download` gives buyers (and the developer) a signed GET URL that
// expires; covers and screenshots go through the cloud driver to the public prefix.
import { createHash, randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { installModule } from '../../src/lib/server/modules/installs';
import { startInProcess, type InProcessServer } from '../helpers/in-process';
import { loginAs } from '../helpers/members';
import { startSwift, type SwiftStore } from '../helpers/swift';
import { modulePackage, signedPackageUrl } from '../helpers/module-package';
import { createUser } from '../../src/lib/server/account/users';
import { adjustMoney } from '../../src/lib/server/account/ledger';
import { attachment, developer, module, moduleVersion } from '../../src/lib/server/db/schema';
import { PACKAGE_URL_TTL } from '../../src/lib/server/upload/cloud-packages';
import { scaled } from '../helpers/time-scale.mjs';

const BUCKET = 'atrium-1250000000';
const REGION = 'ap-guangzhou';
type Who = 'dev' | 'buyer' | 'other' | 'plain';
let swift: SwiftStore;
let server: InProcessServer;
const people = {} as Record<Who, { id: number; token: string }>;

async function setMode(mode: 's3' | 'cos'): Promise<void> {
  await server.runtime.site.set('upload_mode', mode);
  await server.runtime.site.set('upload_params', JSON.stringify({ bucket: BUCKET, region: REGION, endpoint: swift.endpoint }));
}

beforeAll(async () => {
  swift = await startSwift({ bucket: BUCKET, region: REGION });
  for (const [k, v] of Object.entries({
    S3_ACCESS_KEY_ID: swift.accessKeyId, S3_SECRET_ACCESS_KEY: swift.secretAccessKey,
    COS_SECRET_ID: swift.accessKeyId, COS_SECRET_KEY: swift.secretAccessKey, COS_STS: 'local',
  })) vi.stubEnv(k, v);
  server = await startInProcess();
  // The studio's description and changelog are written in the editor module (refused without it).
  await installModule(server.runtime.db, 'editor');
  await setMode('s3');
  await server.runtime.site.set('upload_max_size', '20mb');
  await server.runtime.site.set('market_package_max_size', '3mb');
  const t = Math.floor(Date.now() / 1000);
  for (const name of ['dev', 'buyer', 'other', 'plain'] as const) {
    const row = await createUser(server.runtime.db, { username: name, password: 'secret123' });
    if (name === 'dev') {
      await server.runtime.db.insert(developer).values({
        userId: row.id, realName: '张三', idNumber: '11010519491231002X', mobile: '13800138000', email: 'dev@example.com', province: '110000', status: 'approved', createTime: t, updateTime: t,
      });
    }
    people[name] = { id: row.id, token: (await loginAs(server.url, server.runtime, name, 'secret123')).token };
  }
  await adjustMoney(server.runtime.db, people.buyer.id, 10_000, 'top-up');
}, scaled(120_000));

afterAll(async () => {
  await server?.stop();
  await swift?.stop();
  vi.unstubAllEnvs();
});

beforeEach(async () => {
  for (const m of Object.values(people)) {
    for (const key of [`upload:${m.id}`, `upload-sign:${m.id}`, `market:download:${m.id}`]) await server.runtime.limiter.reset(key);
  }
});

interface Envelope<T = Record<string, unknown>> { code: number; msg: string; data: T }
const headers = (who: Who | null, lang = 'en'): Record<string, string> => ({ 'think-lang': lang, ...(who ? { 'ba-user-token': people[who].token } : {}) });

async function call<T = Record<string, unknown>>(path: string, body: unknown, who: Who | null = 'dev', lang = 'en'): Promise<Envelope<T>> {
  const res = await fetch(server.url + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers(who, lang) }, body: JSON.stringify(body) });
  return (await res.json()) as Envelope<T>;
}

const sha1 = (b: Buffer | Uint8Array): string => createHash('sha1').update(b).digest('hex');
/** Bytes that start like a zip archive (a local file header), as the callback checks. */
const zipLike = (size: number): Buffer => Buffer.concat([Buffer.from('PK\x03\x04', 'latin1'), randomBytes(size - 4)]);
/** A real module package of about `size` bytes (its manifest and random bytes). */
const packageOf = (uid: string, size: number): Buffer => modulePackage(uid, '1.0.0', [{ name: 'payload.bin', data: randomBytes(size) }]);

interface Prepared { key: string; uploadId: string; partSize: number; driver: string; file?: UploadedRow }
interface UploadedRow { id: number; url: string; full_url: string; storage: string; name: string; size: number; sha1: string }

/** What the browser's queue does for one file: prepare, presigned parts straight to the store, complete, callback. */
async function upload(file: { name: string; type: string; data: Buffer; topic: string }, who: Who = 'dev', lang = 'en') {
  const meta = { name: file.name, size: file.data.length, type: file.type, sha1: sha1(file.data), topic: file.topic };
  const prepared = await call<Prepared>('/api/upload/prepare', meta, who, lang);
  if (prepared.code !== 1 || prepared.data.file) return { prepared, callback: null };
  const p = prepared.data;
  const count = Math.ceil(file.data.length / p.partSize);
  const numbers = Array.from({ length: count }, (_, i) => i + 1);
  const signed = await call<{ urls: Record<string, string> }>('/api/upload/sign', { key: p.key, uploadId: p.uploadId, partNumbers: numbers }, who);
  expect(signed.code, signed.msg).toBe(1);
  for (const n of numbers) {
    const res = await fetch(signed.data.urls[n]!, { method: 'PUT', body: new Uint8Array(file.data.subarray((n - 1) * p.partSize, n * p.partSize)) });
    expect(res.status).toBe(200);
  }
  const done = await call('/api/upload/multipart', { op: 'complete', key: p.key, uploadId: p.uploadId, size: file.data.length, partSize: p.partSize }, who);
  expect(done.code, done.msg).toBe(1);
  const callback = await call<{ file: UploadedRow }>('/api/s3/callback', { url: p.key, ...meta }, who, lang);
  return { prepared, callback };
}

/** A paid, published module whose one version is the given package attachment. */
async function publishPaid(uid: string, packageId: number): Promise<void> {
  const saved = await call<{ id: number }>('/api/developer/save', {
    uid, name: `Module ${uid}`, summary: 'Private package', description: 'Sold, not shared.', category: 'tools', tags: [], price: '19.90', score_price: 0,
  });
  expect(saved.code, saved.msg).toBe(1);
  const version = await call('/api/developer/version', { module_id: saved.data.id, version: '1.0.0', changelog: 'First', package_id: packageId });
  expect(version.code, version.msg).toBe(1);
  const t = Math.floor(Date.now() / 1000) - 5;
  await server.runtime.db.update(module).set({ status: 'published', latestVersion: '1.0.0', publishTime: t }).where(eq(module.id, saved.data.id));
  await server.runtime.db.update(moduleVersion).set({ status: 'published', publishTime: t }).where(eq(moduleVersion.moduleId, saved.data.id));
}

async function download(who: Who | null, uid: string, envelope = false) {
  const res = await fetch(`${server.url}/api/modules/download?uid=${uid}${envelope ? '&envelope=1' : ''}`, { headers: headers(who), redirect: 'manual' });
  return res;
}

describe('module packages in a cloud mode', () => {
  let pkg: UploadedRow;
  let data: Buffer;

  it('go to the developer\'s private prefix, never under the public base URL', async () => {
    data = packageOf('cloud-paid', 1_300_000);
    const { prepared, callback } = await upload({ name: 'tool.zip', type: 'application/zip', data, topic: 'package' });
    expect(prepared.code, prepared.msg).toBe(1);
    expect(prepared.data.key.startsWith(`private/${people.dev.id}/`)).toBe(true);
    expect(callback?.code, callback?.msg).toBe(1);
    expect(callback!.msg).toBe('Package uploaded');
    pkg = callback!.data.file;
    expect(pkg).toMatchObject({ storage: 'private', url: `/${prepared.data.key}`, full_url: '', size: data.length, sha1: sha1(data) });
    // The object's plain URL (what a public base URL would give) gives nothing: Swift's s3api reads no
    // anonymous request (it answers 400 where a private S3 bucket answers 403), and a signature made
    // for another object (a public upload's signed URL with the key swapped) is refused with 403.
    const plain = await fetch(`${swift.endpoint}/${BUCKET}/${prepared.data.key}`);
    expect([400, 403]).toContain(plain.status);
    expect(Buffer.from(await plain.arrayBuffer()).includes(data.subarray(0, 64))).toBe(false);
    const other = await upload({ name: 'public.zip', type: 'application/zip', data: zipLike(3000), topic: 'files' });
    const signedPublic = new URL(await signedPackageUrl(server.runtime, other.callback!.data.file.url, 'public.zip'));
    signedPublic.pathname = `/${BUCKET}/${prepared.data.key}`;
    const swapped = await fetch(signedPublic);
    expect(swapped.status).toBe(403);
    expect(await swapped.text()).toMatch(/SignatureDoesNotMatch|AccessDenied/);
    // The same content again is the same attachment (sha1 dedupe, as locally).
    const again = await call<Prepared>('/api/upload/prepare', { name: 'tool-again.zip', size: data.length, type: 'application/zip', sha1: sha1(data), topic: 'package' });
    expect(again.data.file?.id).toBe(pkg.id);
  });

  it('are refused to members who are not approved developers, and when they are no zip or too big', async () => {
    const plain = await upload({ name: 'x.zip', type: 'application/zip', data: zipLike(2000), topic: 'package' }, 'plain', 'zh-cn');
    expect(plain.prepared.code).not.toBe(1);
    expect(plain.prepared.msg).toBe('只有通过认证的开发者才能进行此操作');
    const notZipName = await upload({ name: 'x.rar', type: 'application/x-rar', data: zipLike(2000), topic: 'package' });
    expect(notZipName.prepared.msg).toBe('The package must be a .zip file');
    const big = await upload({ name: 'big.zip', type: 'application/zip', data: zipLike(3 * 1024 * 1024 + 1), topic: 'package' });
    expect(big.prepared.msg).toBe('The package is larger than the 3 MB limit');
    const fake = await upload({ name: 'fake.zip', type: 'application/zip', data: randomBytes(5000), topic: 'package' }, 'dev', 'zh-cn');
    expect(fake.callback?.code).toBe(0);
    expect(fake.callback?.msg).toBe('这个文件不是有效的 zip 压缩包');
    expect(await server.runtime.db.select().from(attachment).where(eq(attachment.name, 'fake.zip'))).toHaveLength(0);
    // A zip whose manifest is wrong: every problem, in the message the upload queue shows, in both languages.
    const broken = modulePackage('Bad Uid', '1.0', [], { colour: 'red' });
    const brokenEn = await upload({ name: 'broken.zip', type: 'application/zip', data: broken, topic: 'package' });
    expect(brokenEn.callback?.code).toBe(0);
    expect(brokenEn.callback?.msg).toBe('The package has 3 problems: 1) atrium.json: uid is not in the expected format 2) atrium.json: version is not in the expected format 3) atrium.json: colour is not a known field');
    expect((brokenEn.callback?.data as unknown as { problems: string[] }).problems).toHaveLength(3);
    const brokenZh = await call('/api/s3/callback', { url: brokenEn.prepared.data.key, name: 'broken.zip', size: broken.length, type: 'application/zip', sha1: sha1(broken), topic: 'package' }, 'dev', 'zh-cn');
    expect(brokenZh.msg).toBe('安装包有 3 个问题：1) atrium.json：uid 的格式不对 2) atrium.json：version 的格式不对 3) atrium.json：colour 不是可识别的字段');
    expect(await server.runtime.db.select().from(attachment).where(eq(attachment.name, 'broken.zip'))).toHaveLength(0);
    // A package callback for a public key, or a public callback for a private key, is refused.
    const pub = await upload({ name: 'pub.zip', type: 'application/zip', data: zipLike(4000), topic: 'files' });
    expect(pub.callback?.code).toBe(1);
    const swapped = await call('/api/s3/callback', { url: pub.prepared.data.key, name: 'pub.zip', size: 4000, type: 'application/zip', sha1: pub.callback!.data.file.sha1, topic: 'package' });
    expect(swapped.code).toBe(0);
    const reverse = await call('/api/s3/callback', { url: pkg.url.slice(1), name: 'tool.zip', size: data.length, type: 'application/zip', sha1: pkg.sha1, topic: 'files' });
    expect(reverse.code).toBe(0);
  });

  it('download for a buyer through a signed URL with the same bytes; others, visitors refused', async () => {
    await publishPaid('cloud-paid', pkg.id);
    const [version] = await server.runtime.db.select().from(moduleVersion).where(eq(moduleVersion.packagePath, pkg.url));
    expect(version).toBeTruthy();
    // Not bought yet: the spec's refusal, in both languages; visitors are sent to log in.
    expect(((await (await download('other', 'cloud-paid')).json()) as Envelope).msg).toBe('Please buy this module first');
    expect(((await (await download('buyer', 'cloud-paid')).json()) as Envelope).msg).toBe('Please buy this module first');
    expect(((await (await download(null, 'cloud-paid')).json()) as Envelope).code).toBe(303);

    const bought = await call('/api/modules/buy', { uid: 'cloud-paid', pay_type: 'balance', nonce: `n${Date.now()}` }, 'buyer');
    expect(bought.code, bought.msg).toBe(1);
    const res = await download('buyer', 'cloud-paid');
    expect(res.status).toBe(302);
    expect(res.headers.get('cache-control')).toContain('no-store');
    const url = res.headers.get('location')!;
    expect(url.startsWith(`${swift.endpoint}/${BUCKET}/private/${people.dev.id}/`)).toBe(true);
    expect(new URL(url).searchParams.get('X-Amz-Expires')).toBe(String(PACKAGE_URL_TTL));
    const got = await fetch(url);
    expect(got.status).toBe(200);
    expect(got.headers.get('content-disposition')).toContain('cloud-paid-1.0.0.zip');
    expect(sha1(new Uint8Array(await got.arrayBuffer()))).toBe(sha1(data));
    // The envelope form, for clients that cannot follow a redirect.
    const env = (await (await download('buyer', 'cloud-paid', true)).json()) as Envelope<{ url: string; expires: number }>;
    expect(env.code).toBe(1);
    expect(env.data.expires - Math.floor(Date.now() / 1000)).toBeGreaterThan(PACKAGE_URL_TTL - 10);
    expect((await fetch(env.data.url)).status).toBe(200);
    // The developer may always download (not counted as a public download); another member still may not.
    expect((await download('dev', 'cloud-paid')).status).toBe(302);
    expect(((await (await download('other', 'cloud-paid')).json()) as Envelope).msg).toBe('Please buy this module first');
    const [m] = await server.runtime.db.select({ downloads: module.downloads }).from(module).where(eq(module.uid, 'cloud-paid'));
    expect(m!.downloads).toBe(2);
  });

  it('a signed URL stops working when it expires (the store answers 403)', async () => {
    const url = await signedPackageUrl(server.runtime, pkg.url, 'cloud-paid-1.0.0.zip', 1);
    await new Promise((r) => setTimeout(r, 2_200));
    const res = await fetch(url);
    expect(res.status).toBe(403);
    expect(await res.text()).toMatch(/AccessDenied|expired/i);
    // A tampered signature is refused too.
    const good = await signedPackageUrl(server.runtime, pkg.url, 'cloud-paid-1.0.0.zip');
    const bad = new URL(good);
    bad.searchParams.set('X-Amz-Signature', '0'.repeat(64));
    expect((await fetch(bad)).status).toBe(403);
  });

  it('in cos mode too: the private prefix through presigned parts, downloads by signed URL', async () => {
    await setMode('cos');
    try {
      const cosData = packageOf('cos-tool', 700_000);
      const { prepared, callback } = await upload({ name: 'cos-tool.zip', type: 'application/zip', data: cosData, topic: 'package' });
      expect(prepared.data.driver).toBe('s3');
      expect(callback?.code, callback?.msg).toBe(1);
      expect(callback!.data.file.url.startsWith(`/private/${people.dev.id}/`)).toBe(true);
      const url = await signedPackageUrl(server.runtime, callback!.data.file.url, 'x.zip');
      expect(sha1(new Uint8Array(await (await fetch(url)).arrayBuffer()))).toBe(sha1(cosData));
      // The browser's COS credentials never cover the private prefix.
      const creds = await fetch(`${server.url}/api/cos/refreshToken`, { headers: headers('dev') });
      const token = ((await creds.json()) as Envelope<{ sessionToken: string }>).data.sessionToken;
      const claim = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString('utf8')) as { prefix: string };
      expect(claim.prefix).toBe(`uploads/${people.dev.id}/`);
    } finally {
      await setMode('s3');
    }
  });
});

describe('module covers and screenshots in a cloud mode', () => {
  // 3×2 PNG
  const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000003000000020806000000b4ac9cd40000000d49444154789c6360000002000001e221bc330000000049454e44ae426082', 'hex');

  it('go through the cloud driver to the public prefix, and the market accepts their public URL', async () => {
    const { callback } = await upload({ name: 'cover.png', type: 'image/png', data: png, topic: 'module' });
    expect(callback?.code, callback?.msg).toBe(1);
    const cover = callback!.data.file;
    expect(cover.storage).toBe('s3');
    expect(cover.url.startsWith(`/uploads/${people.dev.id}/`)).toBe(true);
    expect(cover.full_url).toBe(`${swift.endpoint}/${BUCKET}${cover.url}`);
    const body = { uid: 'cloud-cover', name: 'Cloud cover', summary: 'Has a cover', description: 'Pictured.', category: 'tools', tags: [], price: '0', score_price: 0 };
    const saved = await call<{ id: number }>('/api/developer/save', { ...body, cover: cover.full_url, screenshots: [cover.full_url] });
    expect(saved.code, saved.msg).toBe(1);
    const [row] = await server.runtime.db.select({ cover: module.cover, screenshots: module.screenshots }).from(module).where(eq(module.id, saved.data.id));
    expect(row).toMatchObject({ cover: cover.full_url, screenshots: [cover.full_url] });
    // Someone else's image, or a URL of the store outside anyone's upload, is refused.
    const mine = await upload({ name: 'other.png', type: 'image/png', data: Buffer.concat([png, Buffer.from([0])]), topic: 'module' }, 'other');
    expect(mine.callback?.code, mine.callback?.msg).toBe(1);
    for (const url of [mine.callback!.data.file.full_url, `${swift.endpoint}/${BUCKET}/uploads/${people.dev.id}/module/nothing.png`, `https://elsewhere.example/${cover.url}`]) {
      const refused = await call('/api/developer/save', { ...body, id: saved.data.id, cover: url });
      expect(refused.code, url).toBe(0);
    }
  });
});
