// Local uploads, the service behind `POST /api/ajax/upload` and `POST /api/developer/package`: the
// Node server receives the body to a temporary file (src/server/multipart.ts) in the local driver's
// folder and hands it here. This module reads the upload settings, finds the member's earlier copy,
// names the file, has the local driver (local-store.ts) place it, reads its first bytes back for
// image dimensions, and records it. Like finishCloudUpload (cloud-store.ts), it answers the row.
import { and, asc, eq, notLike, sql } from 'drizzle-orm';
import type { Runtime } from '../runtime';
import { attachment } from '../db/schema';
import { parseSize } from '../site/config';
import { fileSuffix, normalizeMime } from './check';
import { IMAGE_HEAD, imageOfBytes, type ImageInfo } from './image-info';
import { buildSaveName, DEFAULT_SAVE_NAME, randomAlnum } from './save-name';
import type { LocalStore } from './local-store';
import { keyOf, type AttachmentRow } from './storage';
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

/** `/storage/a/b.png` → `/storage/a/b_Xy12Ab3C.png` for a name that is already taken. */
function withRandomTail(url: string): string {
  const slash = url.lastIndexOf('/');
  const dot = url.lastIndexOf('.');
  const tail = `_${randomAlnum(8)}`;
  return dot > slash + 1 ? url.slice(0, dot) + tail + url.slice(dot) : url + tail;
}

/** The image a stored file is (null for anything else), from its first bytes. */
async function imageOf(store: LocalStore, key: string): Promise<ImageInfo | null> {
  return imageOfBytes(await store.readHead(key, IMAGE_HEAD));
}

/** The earlier row of this content when its file is still there, its count bumped; a row that outlived its file is deleted. */
async function reuse(runtime: Runtime, store: LocalStore, existing: AttachmentRow | undefined, now: number): Promise<AttachmentRow | null> {
  if (!existing) return null;
  if (await store.head(keyOf(existing.url))) {
    const [bumped] = await runtime.db.update(attachment)
      .set({ quote: sql`${attachment.quote} + 1`, lastUploadTime: now })
      .where(eq(attachment.id, existing.id)).returning();
    return bumped ?? existing;
  }
  await runtime.db.delete(attachment).where(eq(attachment.id, existing.id));
  return null;
}

/**
 * Stores a member's received upload in `store` (the local driver's public folder): the same
 * content again from the same member is the same attachment (its count bumped); otherwise the file
 * gets its save name (a random tail when taken), is placed without replacing anything and
 * recorded. The temporary file is moved, or left for the caller to remove.
 */
export async function storeUpload(runtime: Runtime, store: LocalStore, input: { userId: number; topic: string; file: ReceivedFile; settings: LocalSettings }): Promise<AttachmentRow> {
  const { userId, topic, file: received, settings } = input;
  const driver = store.driver;
  const now = Math.floor(Date.now() / 1000);
  const suffix = fileSuffix(received.name);
  // The same content again from the same member is the same attachment. Another member's copy
  // stays theirs: an attachment row says who uploaded it (the market checks module images by it).
  const [existing] = await runtime.db.select().from(attachment)
    .where(and(eq(attachment.sha1, received.sha1), eq(attachment.topic, topic), eq(attachment.storage, driver), eq(attachment.userId, userId)))
    .orderBy(asc(attachment.id)).limit(1);
  const reused = await reuse(runtime, store, existing, now);
  if (reused) return reused;

  let url = buildSaveName(settings.saveName, { topic, originalName: received.name, sha1: received.sha1, now: new Date(now * 1000), timeZone: settings.timeZone });
  let placed = false;
  for (let attempt = 0; attempt < 5 && !placed; attempt++) {
    if (await store.put(received.tmpPath, keyOf(url))) placed = true;
    else url = withRandomTail(url);
  }
  if (!placed) throw new Error('upload: could not find a free save name');

  try {
    const image = await imageOf(store, keyOf(url));
    const [row] = await runtime.db.insert(attachment).values({
      topic, adminId: 0, userId, url, width: image?.width ?? 0, height: image?.height ?? 0,
      name: storedName(received.name, suffix), size: received.size, mimetype: storedMime(received.mimetype, image),
      quote: 1, storage: driver, sha1: received.sha1, createTime: now, lastUploadTime: now,
    }).returning();
    return row!;
  } catch (err) {
    await store.remove(keyOf(url));
    throw err;
  }
}

/**
 * Stores an approved developer's received module package at `<yyyymm>/<sha1>.zip` in `store` (the
 * local driver's package folder), recorded as a private attachment; the developer's earlier copy of
 * the same content is that attachment again. The temporary file is moved, or left for the caller to remove.
 */
export async function storePackage(runtime: Runtime, store: LocalStore, userId: number, received: ReceivedFile): Promise<AttachmentRow> {
  const now = Math.floor(Date.now() / 1000);
  const key = `${formatDate(new Date(now * 1000), 'yyyymm', await runtime.site.get('time_zone', 'UTC'))}/${received.sha1}.zip`;
  const [existing] = await runtime.db.select().from(attachment).where(and(
    eq(attachment.sha1, received.sha1), eq(attachment.topic, 'package'), eq(attachment.storage, 'private'), eq(attachment.userId, userId),
    // A package stored in the cloud (`/private/<id>/…`) is not this folder's file.
    notLike(attachment.url, '/%'),
  )).orderBy(asc(attachment.id)).limit(1);
  const reused = await reuse(runtime, store, existing, now);
  if (reused) return reused;

  // The name is the content's hash: a file already there is this very package (another developer's copy, say).
  const placed = await store.put(received.tmpPath, key);
  try {
    const [row] = await runtime.db.insert(attachment).values({
      topic: 'package', adminId: 0, userId, url: key, width: 0, height: 0, name: storedName(received.name, 'zip'),
      size: received.size, mimetype: 'application/zip', quote: 1, storage: 'private', sha1: received.sha1, createTime: now, lastUploadTime: now,
    }).returning();
    return row!;
  } catch (err) {
    if (placed) await store.remove(key);
    throw err;
  }
}
