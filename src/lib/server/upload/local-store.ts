// The `local` storage driver: files on this instance's disk, behind the same StorageDriver interface
// as the object stores. Two folders: `<DATA_DIR>/storage` holds public uploads (keys `storage/…`,
// served at `/storage/…` by src/server/upload.ts), `<DATA_DIR>/packages` holds module packages
// (keys `<yyyymm>/<sha1>.zip`, private: only /api/modules/download reads them back). Its extension
// over the interface is how a file the server received gets there: a temporary path on the same
// file system, `put` (never replacing a file) and `remove`.
import { randomBytes } from 'node:crypto';
import { constants as fsConstants, createReadStream } from 'node:fs';
import { copyFile, link, mkdir, open, readFile, stat, unlink } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { Readable } from 'node:stream';
import type { Runtime } from '../runtime';
import { packageFile, packageRoot } from '../market/packages';
import { hostAllowed } from '../seo/sitemap';
import type { Delivery, ObjectHead, StorageDriver } from './storage';

/** Who a public URL is for: the request's Host header and the site's CDN (no trailing slash). */
export interface LocalView { host: string; cdnUrl: string }

/** The file behind a `storage/…` key, or null when it would leave the storage folder. */
function uploadFile(root: string, key: string): string | null {
  if (!key.startsWith('storage/') || key.includes('\\') || key.includes('\0')) return null;
  const segments = key.slice('storage/'.length).split('/');
  if (segments.some((s) => s === '' || s.startsWith('.'))) return null;
  const full = resolve(root, ...segments);
  return full.startsWith(root + sep) ? full : null;
}

/**
 * Where a stored file is shown: under the CDN when one is set, else on the public origin as pages
 * name it (SITE_URL; without it the request's Host only when publicOrigin would use it: ALLOWED_HOSTS,
 * SITE_DOMAIN's hosts, loopback), else the path itself. A forged Host never reaches the reply.
 */
function fullUrl(config: Runtime['config'], view: LocalView, path: string): string {
  if (view.cdnUrl) return view.cdnUrl + path;
  if (config.siteUrl) return config.siteUrl + path;
  const { host } = view;
  return /^[A-Za-z0-9.\-:[\]]+$/.test(host) && hostAllowed(host, config.allowedHosts, config.siteDomain) ? `//${host}${path}` : path;
}

export class LocalStore implements StorageDriver {
  readonly driver = 'local';

  /** `locate` maps a key to its file (null outside `root`); `urlOf` maps a key to its public URL. */
  constructor(readonly root: string, private readonly locate: (key: string) => string | null, private readonly urlOf: (key: string) => string) {}

  publicUrl(key: string): string {
    return this.urlOf(key);
  }

  async head(key: string): Promise<ObjectHead | null> {
    const file = this.locate(key);
    const info = file ? await stat(file).catch(() => null) : null;
    return info?.isFile() ? { size: info.size, contentType: '', sha1: '' } : null;
  }

  async readHead(key: string, bytes: number): Promise<Buffer> {
    const file = this.locate(key);
    if (!file) throw new Error(`storage: key outside ${this.root}: ${key}`);
    const fh = await open(file, 'r');
    try {
      const buf = Buffer.alloc(Math.min(bytes, (await fh.stat()).size));
      const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
      return buf.subarray(0, bytesRead);
    } finally {
      await fh.close();
    }
  }

  /** Read whole: a local package is hashed as it is on disk, whatever size was recorded. */
  async read(key: string, _size?: number): Promise<Buffer | null> {
    const file = this.locate(key);
    return file ? readFile(file).catch(() => null) : null;
  }

  /** Streamed by the server: no URL reaches these files, so a signed URL's name and lifetime do not apply. */
  async deliver(key: string, _fileName?: string, _seconds?: number): Promise<Delivery | null> {
    const file = this.locate(key);
    const info = file ? await stat(file).catch(() => null) : null;
    if (!file || !info?.isFile()) return null;
    return { kind: 'stream', size: info.size, open: () => Readable.toWeb(createReadStream(file)) as ReadableStream<Uint8Array> };
  }

  /** A fresh temporary path in `<root>/.tmp`, on the same file system as the files' final places. */
  async tempPath(): Promise<string> {
    const tmpDir = join(this.root, '.tmp');
    await mkdir(tmpDir, { recursive: true });
    return join(tmpDir, `${Date.now().toString(36)}-${randomBytes(8).toString('hex')}.part`);
  }

  /**
   * Moves the file at `from` to `key` without ever replacing an existing file: false (and `from`
   * left in place) when the key is taken.
   */
  async put(from: string, key: string): Promise<boolean> {
    const to = this.locate(key);
    if (!to) throw new Error(`storage: key outside ${this.root}: ${key}`);
    await mkdir(dirname(to), { recursive: true });
    try {
      await link(from, to);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') return false;
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EXDEV' && code !== 'EMLINK') throw err;
      try {
        await copyFile(from, to, fsConstants.COPYFILE_EXCL);
      } catch (copyErr) {
        if ((copyErr as NodeJS.ErrnoException).code === 'EEXIST') return false;
        throw copyErr;
      }
    }
    await unlink(from).catch(() => undefined);
    return true;
  }

  /** Deletes a stored file; one already gone is no error. */
  async remove(key: string): Promise<void> {
    const file = this.locate(key);
    if (file) await unlink(file).catch(() => undefined);
  }
}

/** The public uploads of this instance (`<DATA_DIR>/storage`); `view` names the public URLs (a reply's `full_url`). */
export function localUploads(runtime: Pick<Runtime, 'config'>, view: LocalView = { host: '', cdnUrl: '' }): LocalStore {
  const root = resolve(runtime.config.dataDir, 'storage');
  return new LocalStore(root, (key) => uploadFile(root, key), (key) => fullUrl(runtime.config, view, `/${key}`));
}

/** The module packages of this instance (`<DATA_DIR>/packages`): private, so no public URL. */
export function localPackages(runtime: Pick<Runtime, 'config'>): LocalStore {
  return new LocalStore(packageRoot(runtime), (key) => packageFile(runtime, key), () => '');
}
