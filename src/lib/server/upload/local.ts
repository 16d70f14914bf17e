// The local storage driver, beside the cloud ones (s3.ts, cos.ts): files under `<DATA_DIR>/storage`
// (public, served at `/storage/...` by src/server/upload.ts serveStorage) and module packages under
// `<DATA_DIR>/packages` (private: only /api/modules/download reads them back). The Node server
// receives the body to a temporary file (src/server/multipart.ts) and hands it here: this module
// reads the upload settings, recognises the image, finds the member's earlier copy, names, places
// and records the file. Like finishCloudUpload, it answers the attachment row.
import { randomBytes } from 'node:crypto';
import { constants as fsConstants } from 'node:fs';
import { copyFile, link, mkdir, open, stat, unlink, type FileHandle } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { and, asc, eq, notLike, sql } from 'drizzle-orm';
import type { Runtime } from '../runtime';
import { attachment } from '../db/schema';
import { parseSize } from '../site/config';
import { fileSuffix, normalizeMime } from './check';
import { readImageInfo, type ImageInfo, type ReadAt } from './image-info';
import { buildSaveName, DEFAULT_SAVE_NAME, randomAlnum } from './save-name';
import { packageFile } from '../market/packages';
import { hostAllowed } from '../seo/sitemap';
import { formatDate } from '../../shared/date';

/** The drivers this one stores for (`?driver=` of a local upload). */
export const LOCAL_DRIVERS = new Set(['local']);

/** A file the server received to a temporary path (src/server/multipart.ts `Received`). */
export interface ReceivedFile {
  tmpPath: string;
  name: string;
  mimetype: string;
  size: number;
  sha1: string;
}

export type AttachmentRow = typeof attachment.$inferSelect;

function fileReader(fh: FileHandle): ReadAt {
  return async (offset, length) => {
    const buf = Buffer.alloc(length);
    const { bytesRead } = await fh.read(buf, 0, length, offset);
    return buf.subarray(0, bytesRead);
  };
}

export interface LocalSettings {
  maxSize: number;
  allowedSuffixes: string;
  allowedMimeTypes: string;
  saveName: string;
  mode: string;
  timeZone: string;
  cdnUrl: string;
  paramsError: { code: number; message: string } | null;
}

/** The upload settings a local upload follows (what the site's console sets). */
export async function readLocalSettings(runtime: Runtime): Promise<LocalSettings> {
  const all = await runtime.site.all();
  const get = (name: string, fallback = ''): string => all.get(name) ?? fallback;
  let paramsError: LocalSettings['paramsError'] = null;
  try {
    const params = JSON.parse(get('upload_params', '{}') || '{}') as { error?: unknown; message?: unknown } | null;
    const raw = params && typeof params === 'object' ? params.error : undefined;
    const code = typeof raw === 'number' ? raw : typeof raw === 'string' && /^-?\d+$/.test(raw.trim()) ? Number(raw) : NaN;
    if (Number.isInteger(code)) paramsError = { code, message: typeof params?.message === 'string' ? params.message : String(params?.message ?? '') };
  } catch { /* not JSON: no params */ }
  return {
    maxSize: parseSize(get('upload_max_size') || '10mb'),
    allowedSuffixes: get('upload_allowed_suffixes'),
    allowedMimeTypes: get('upload_allowed_mime_types'),
    saveName: get('upload_save_name') || DEFAULT_SAVE_NAME,
    mode: get('upload_mode', 'local') || 'local',
    timeZone: get('time_zone', 'UTC'),
    cdnUrl: get('cdn_url').trim().replace(/\/+$/, ''),
    paramsError,
  };
}

/** The folder uploads live in: `<DATA_DIR>/storage`. */
export function storageRoot(runtime: Runtime): string {
  return resolve(runtime.config.dataDir, 'storage');
}

/** The file behind an attachment url (`/storage/...`), or null when it would leave the storage folder. */
function fileOfUrl(runtime: Runtime, url: string): string | null {
  const root = storageRoot(runtime);
  if (!url.startsWith('/storage/') || url.includes('\\') || url.includes('\0')) return null;
  const segments = url.slice('/storage/'.length).split('/');
  if (segments.some((s) => s === '' || s.startsWith('.'))) return null;
  const full = resolve(root, ...segments);
  return full.startsWith(root + sep) ? full : null;
}

/**
 * Where a stored file is shown: under the CDN when one is set, else on the public origin as pages
 * name it (SITE_URL; without it the request's Host only when publicOrigin would use it: ALLOWED_HOSTS,
 * SITE_DOMAIN's hosts, loopback), else the path itself. A forged Host never reaches the reply.
 */
function fullUrl(host: string, config: Runtime['config'], cdnUrl: string, url: string): string {
  if (cdnUrl) return cdnUrl + url;
  if (config.siteUrl) return config.siteUrl + url;
  return /^[A-Za-z0-9.\-:[\]]+$/.test(host) && hostAllowed(host, config.allowedHosts, config.siteDomain) ? `//${host}${url}` : url;
}

/** The name kept in the row: no folders or control characters, at most 120 characters with the suffix. */
function storedName(original: string, suffix: string): string {
  const base = original.normalize('NFC').replace(/^.*[\\/]/, '').replace(/[\p{Cc}\p{Cf}]/gu, '').trim();
  const dot = base.lastIndexOf('.');
  const stem = dot > 0 ? base.slice(0, dot) : dot === 0 ? '' : base;
  return `${Array.from(stem).slice(0, Math.min(100, 119 - suffix.length)).join('')}.${suffix}`;
}

function storedMime(declared: string, image: ImageInfo | null): string {
  if (image) return image.mime;
  const mime = normalizeMime(declared);
  return mime.length <= 100 && /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(mime) ? mime : 'application/octet-stream';
}

/** Puts `from` at `to` without ever replacing an existing file; false when `to` exists. */
async function placeExclusive(from: string, to: string): Promise<boolean> {
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

/** `/storage/a/b.png` → `/storage/a/b_Xy12Ab3C.png` for a name that is already taken. */
function withRandomTail(url: string): string {
  const slash = url.lastIndexOf('/');
  const dot = url.lastIndexOf('.');
  const tail = `_${randomAlnum(8)}`;
  return dot > slash + 1 ? url.slice(0, dot) + tail + url.slice(dot) : url + tail;
}

/** An attachment as the upload reply shows it; `host` is the request's Host header. */
export function localFileReply(row: AttachmentRow, host: string, config: Runtime['config'], cdnUrl: string) {
  return {
    id: row.id, topic: row.topic, admin_id: row.adminId, user_id: row.userId, url: row.url,
    width: row.width, height: row.height, name: row.name, size: row.size, mimetype: row.mimetype,
    storage: row.storage, sha1: row.sha1, last_upload_time: row.lastUploadTime,
    suffix: fileSuffix(row.name), full_url: fullUrl(host, config, cdnUrl, row.url),
  };
}

/** A fresh temporary path in `<root>/.tmp`, on the same file system as the file's final place. */
export async function tempPathIn(root: string): Promise<string> {
  const tmpDir = join(root, '.tmp');
  await mkdir(tmpDir, { recursive: true });
  return join(tmpDir, `${Date.now().toString(36)}-${randomBytes(8).toString('hex')}.part`);
}

/** Width, height and type of an image file (null for anything else), read from its first bytes. */
async function imageOf(path: string): Promise<ImageInfo | null> {
  const fh = await open(path, 'r');
  try { return await readImageInfo(fileReader(fh)); } finally { await fh.close(); }
}

/**
 * Stores a member's received upload: the same content again from the same member is the same
 * attachment (its count bumped); otherwise the file gets its save name (a random tail when taken),
 * is placed without replacing anything and recorded. The temporary file is moved, or left for the
 * caller to remove.
 */
export async function storeUpload(runtime: Runtime, input: { userId: number; topic: string; driver: string; file: ReceivedFile; settings: LocalSettings }): Promise<AttachmentRow> {
  const { userId, topic, driver, file: received, settings } = input;
  const image = await imageOf(received.tmpPath);
  const now = Math.floor(Date.now() / 1000);
  const suffix = fileSuffix(received.name);
  // The same content again from the same member is the same attachment. Another member's copy
  // stays theirs: an attachment row says who uploaded it (the market checks module images by it).
  const [existing] = await runtime.db.select().from(attachment)
    .where(and(eq(attachment.sha1, received.sha1), eq(attachment.topic, topic), eq(attachment.storage, driver), eq(attachment.userId, userId)))
    .orderBy(asc(attachment.id)).limit(1);
  if (existing) {
    const existingFile = fileOfUrl(runtime, existing.url);
    const present = existingFile ? await stat(existingFile).then((s) => s.isFile(), () => false) : false;
    if (present) {
      const [bumped] = await runtime.db.update(attachment)
        .set({ quote: sql`${attachment.quote} + 1`, lastUploadTime: now })
        .where(eq(attachment.id, existing.id)).returning();
      return bumped ?? existing;
    }
    // The row outlived its file: forget it and store the upload afresh.
    await runtime.db.delete(attachment).where(eq(attachment.id, existing.id));
  }

  let url = buildSaveName(settings.saveName, { topic, originalName: received.name, sha1: received.sha1, now: new Date(now * 1000), timeZone: settings.timeZone });
  let placed: string | null = null;
  for (let attempt = 0; attempt < 5 && !placed; attempt++) {
    const target = fileOfUrl(runtime, url);
    if (!target) throw new Error(`upload: save name outside storage: ${url}`);
    await mkdir(dirname(target), { recursive: true });
    if (await placeExclusive(received.tmpPath, target)) placed = target;
    else url = withRandomTail(url);
  }
  if (!placed) throw new Error('upload: could not find a free save name');

  try {
    const [row] = await runtime.db.insert(attachment).values({
      topic, adminId: 0, userId, url, width: image?.width ?? 0, height: image?.height ?? 0,
      name: storedName(received.name, suffix), size: received.size, mimetype: storedMime(received.mimetype, image),
      quote: 1, storage: driver, sha1: received.sha1, createTime: now, lastUploadTime: now,
    }).returning();
    return row!;
  } catch (err) {
    await unlink(placed).catch(() => undefined);
    throw err;
  }
}

/**
 * Stores an approved developer's received module package at `<yyyymm>/<sha1>.zip` under the
 * package root, recorded as a private attachment; the developer's earlier copy of the same content
 * is that attachment again. The temporary file is moved, or left for the caller to remove.
 */
export async function storePackage(runtime: Runtime, userId: number, received: ReceivedFile): Promise<AttachmentRow> {
  const now = Math.floor(Date.now() / 1000);
  const relative = `${formatDate(new Date(now * 1000), 'yyyymm', await runtime.site.get('time_zone', 'UTC'))}/${received.sha1}.zip`;
  const [existing] = await runtime.db.select().from(attachment).where(and(
    eq(attachment.sha1, received.sha1), eq(attachment.topic, 'package'), eq(attachment.storage, 'private'), eq(attachment.userId, userId),
    // A package stored in the cloud (`/private/<id>/…`) is not this folder's file.
    notLike(attachment.url, '/%'),
  )).orderBy(asc(attachment.id)).limit(1);
  const existingFile = existing ? packageFile(runtime, existing.url) : null;
  if (existing && existingFile && (await stat(existingFile).then((s) => s.isFile(), () => false))) {
    const [bumped] = await runtime.db.update(attachment).set({ quote: sql`${attachment.quote} + 1`, lastUploadTime: now })
      .where(eq(attachment.id, existing.id)).returning();
    return bumped ?? existing;
  }
  if (existing) await runtime.db.delete(attachment).where(eq(attachment.id, existing.id));

  const target = packageFile(runtime, relative);
  if (!target) throw new Error(`package: path outside the package root: ${relative}`);
  await mkdir(dirname(target), { recursive: true });
  // The name is the content's hash: a file already there is this very package (another developer's copy, say).
  const placed = await placeExclusive(received.tmpPath, target);
  try {
    const [row] = await runtime.db.insert(attachment).values({
      topic: 'package', adminId: 0, userId, url: relative, width: 0, height: 0, name: storedName(received.name, 'zip'),
      size: received.size, mimetype: 'application/zip', quote: 1, storage: 'private', sha1: received.sha1, createTime: now, lastUploadTime: now,
    }).returning();
    return row!;
  } catch (err) {
    if (placed) await unlink(target).catch(() => undefined);
    throw err;
  }
}
