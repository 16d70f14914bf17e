import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { localPackages, localUploads, type LocalStore } from '../../src/lib/server/upload/local-store';
import { fileReply, keyOf, type AttachmentRow, type StorageDriver } from '../../src/lib/server/upload/storage';
import { imageOfBytes } from '../../src/lib/server/upload/image-info';
import type { Runtime } from '../../src/lib/server/runtime';

const dataDir = mkdtempSync(join(tmpdir(), 'atrium-storage-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
const runtime = (config: Partial<Runtime['config']> = {}): Pick<Runtime, 'config'> =>
  ({ config: { dataDir, siteDomain: null, siteUrl: null, allowedHosts: [], ...config } }) as unknown as Pick<Runtime, 'config'>;

/** The PNG signature and IHDR chunk of a `width`×`height` image: what image-size reads. */
function pngHead(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(25);
  ihdr.writeUInt32BE(13, 0);
  ihdr.write('IHDR', 4, 'latin1');
  ihdr.writeUInt32BE(width, 8);
  ihdr.writeUInt32BE(height, 12);
  ihdr.set([8, 6, 0, 0, 0], 16);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), ihdr, Buffer.alloc(64, 7)]);
}

/** A file received to the driver's temporary path, as src/server/upload.ts receives one. */
async function received(store: LocalStore, bytes: Buffer): Promise<string> {
  const tmp = await store.tempPath();
  writeFileSync(tmp, bytes);
  return tmp;
}

describe('the local driver through the common storage interface', () => {
  const png = pngHead(40, 30);

  it('puts a received file at its key, then heads it, reads its first bytes and names its public URL', async () => {
    const store = localUploads(runtime(), { host: 'localhost:4321', cdnUrl: '' });
    const driver: StorageDriver = store;
    expect(driver.driver).toBe('local');
    const key = keyOf('/storage/default/20261128/a.png');
    const tmp = await received(store, png);
    expect(await store.put(tmp, key)).toBe(true);
    expect(readFileSync(join(dataDir, 'storage/default/20261128/a.png')).equals(png)).toBe(true);
    expect(await driver.head(key)).toEqual({ size: png.length, contentType: '', sha1: '' });
    expect((await driver.readHead(key, 8)).equals(png.subarray(0, 8))).toBe(true);
    // Fewer bytes at the end of the file, never padding.
    expect((await driver.readHead(key, 1 << 20)).equals(png)).toBe(true);
    expect(await imageOfBytes(await driver.readHead(key, 1 << 20))).toEqual({ mime: 'image/png', width: 40, height: 30 });
    expect((await driver.read(key, png.length))?.equals(png)).toBe(true);
    expect(driver.publicUrl(key)).toBe('//localhost:4321/storage/default/20261128/a.png');
  });

  it('never replaces a stored file: a taken key is refused and the received file stays', async () => {
    const store = localUploads(runtime());
    const key = 'storage/default/taken.bin';
    expect(await store.put(await received(store, Buffer.from('first')), key)).toBe(true);
    const second = await received(store, Buffer.from('second'));
    expect(await store.put(second, key)).toBe(false);
    expect(readFileSync(second, 'utf8')).toBe('second');
    expect((await store.read(key, 0))?.toString()).toBe('first');
  });

  it('knows nothing outside its folder: hidden names, dot segments and other prefixes', async () => {
    const store = localUploads(runtime());
    for (const key of ['storage/../escape.png', 'storage/.tmp/x.part', 'storage//a.png', 'other/a.png', 'storage/a\\b.png']) {
      expect(await store.head(key)).toBeNull();
      await expect(store.put(await received(store, png), key)).rejects.toThrow(/outside/);
    }
    expect(await store.head('storage/default/missing.png')).toBeNull();
    await expect(store.readHead('storage/default/missing.png', 8)).rejects.toThrow();
    expect(await store.read('storage/default/missing.png', 8)).toBeNull();
  });

  it('removes a file; removing it again is no error', async () => {
    const store = localUploads(runtime());
    const key = 'storage/default/gone.png';
    await store.put(await received(store, png), key);
    await store.remove(key);
    await store.remove(key);
    expect(await store.head(key)).toBeNull();
  });

  it('shows files under the CDN, else SITE_URL, else an allowed Host, else the bare path', () => {
    const key = 'storage/a b/x.png';
    expect(localUploads(runtime({ siteUrl: 'https://site.example' }), { host: 'localhost', cdnUrl: 'https://cdn.example' }).publicUrl(key)).toBe('https://cdn.example/storage/a b/x.png');
    expect(localUploads(runtime({ siteUrl: 'https://site.example' }), { host: 'localhost', cdnUrl: '' }).publicUrl(key)).toBe('https://site.example/storage/a b/x.png');
    expect(localUploads(runtime(), { host: 'evil.example', cdnUrl: '' }).publicUrl(key)).toBe('/storage/a b/x.png');
    expect(localUploads(runtime({ allowedHosts: ['forum.example'] }), { host: 'forum.example', cdnUrl: '' }).publicUrl(key)).toBe('//forum.example/storage/a b/x.png');
  });

  it('answers an upload reply with the same full_url as publicUrl, and none for a private row', () => {
    const store = localUploads(runtime(), { host: '', cdnUrl: 'https://cdn.example' });
    const row = { id: 1, topic: 'default', adminId: 0, userId: 7, url: '/storage/default/a.png', width: 40, height: 30, name: 'a.png', size: 89, mimetype: 'image/png', storage: 'local', sha1: 'f'.repeat(40), lastUploadTime: 1 } as AttachmentRow;
    expect(fileReply(row, store)).toMatchObject({ url: '/storage/default/a.png', full_url: 'https://cdn.example/storage/default/a.png', suffix: 'png', user_id: 7 });
    expect(fileReply({ ...row, storage: 'private' }, store).full_url).toBe('');
  });

  it('keeps packages private: no public URL, delivered as a stream of the whole file', async () => {
    const store = localPackages(runtime());
    const key = '202611/' + 'a'.repeat(40) + '.zip';
    const zip = Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(100_000, 1)]);
    expect(await store.put(await received(store, zip), key)).toBe(true);
    expect(readFileSync(join(dataDir, 'packages', key)).equals(zip)).toBe(true);
    expect(store.publicUrl(key)).toBe('');
    expect((await store.head(key))?.size).toBe(zip.length);
    const delivery = await store.deliver(key, 'x.zip', 300);
    expect(delivery?.kind).toBe('stream');
    if (delivery?.kind !== 'stream') return;
    expect(delivery.size).toBe(zip.length);
    expect(Buffer.from(await new Response(delivery.open()).arrayBuffer()).equals(zip)).toBe(true);
    expect(await store.deliver('202611/missing.zip', 'x.zip', 300)).toBeNull();
    // A package is read whole for hashing, whatever size was recorded.
    expect((await store.read(key, 4))?.length).toBe(zip.length);
  });
});
