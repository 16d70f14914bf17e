// Direct uploads to an object store, whatever the driver: the rules a file must pass before an
// upload starts (the same as local uploads), the member's key, presigned calls limited to that
// key, and the callback that records the attachment only after the store shows the object.
// ObjectStore is the common StorageDriver (storage.ts) plus the calls of a browser's direct upload.
import { and, asc, eq, gte, like, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { serialised, type Tx } from '../db/serialise';
import type { RateLimiter } from '../rate-limit';
import { attachment } from '../db/schema';
import { AppError } from '../http';
import { checkUpload, fileSuffix, normalizeMime, type UploadRules } from './check';
import { keyOf, type AttachmentRow, type StorageDriver } from './storage';
import { buildSaveName } from './save-name';
import { keyInPrefix, memberPrefix, type CloudSettings } from './cloud-settings';
import { partSizeFor } from '../../shared/upload-queue';

/** Only parts are presigned: listing, completing and aborting run on the server (no bytes, and no CORS rule beyond PUT). */
export interface PresignOp { op: 'part'; key: string; uploadId: string; partNumber: number }

export interface StoredPart { partNumber: number; size: number; etag: string }

export interface Presigned { method: string; url: string; expires: number }

/**
 * One object store as the upload services use it (S3 API; COS goes through the same calls server
 * side): the common driver, plus the multipart upload a browser sends its parts to.
 */
export interface ObjectStore extends StorageDriver {
  createMultipart(key: string, meta: { contentType: string; sha1: string }): Promise<string>;
  presign(op: PresignOp): Promise<Presigned>;
  /** The parts on the store, or null when the upload does not exist (completed, aborted, unknown). */
  listParts(key: string, uploadId: string): Promise<StoredPart[] | null>;
  complete(key: string, uploadId: string, parts: StoredPart[]): Promise<void>;
  /** A GET URL of the object valid `seconds`, downloading as `fileName`. */
  signedGet(key: string, seconds: number, fileName: string): Promise<string>;
  abort(key: string, uploadId: string): Promise<void>;
}

export interface CloudFileInput { name: string; size: number; type: string; sha1: string; topic: string }

export interface UploadSettings extends UploadRules {
  saveName: string;
  timeZone: string;
}

/** The object store failed a call its settings should allow: answered "not fully configured". */
export class StoreRefused extends AppError {
  constructor(readonly reason: unknown) {
    super('upload.notConfigured');
  }
}

/** Start of the current UTC day, in seconds. */
function dayStart(now: number): number {
  return now - (now % 86_400);
}

/** Bytes the member stored today (new attachments only: a deduplicated upload costs nothing). */
export async function uploadedToday(db: Db | Tx, userId: number, now = Math.floor(Date.now() / 1000)): Promise<number> {
  const [row] = await db.select({ total: sql<string>`coalesce(sum(${attachment.size}), 0)` }).from(attachment)
    .where(and(eq(attachment.userId, userId), gte(attachment.createTime, dayStart(now))));
  return Number(row?.total ?? 0);
}

/**
 * Charges a new upload to the member's daily quota before any byte moves. The bytes are stored
 * only at the callback, so the uploads started today are held in the shared limiter (Redis when
 * instances share it) and counted with what is stored: max(stored, started) + size. The member's
 * prepares take turns (serialised), so parallel ones each see the others' holds. The same file
 * (sha1 + topic) started again the same day, as the COS SDK's resume does, is charged once.
 */
async function chargeDailyQuota(db: Db, holds: Pick<RateLimiter, 'hit' | 'count'>, userId: number, input: CloudFileInput, quota: number, now: number): Promise<void> {
  const day = dayStart(now);
  const ttl = day + 86_400 - now + 60;
  const startedKey = `upload-bytes:${userId}:${day}`;
  const fileKey = `upload-file:${userId}:${day}:${input.topic}:${input.sha1}`;
  await serialised(db, 'upload-quota', userId, async (tx) => {
    if ((await holds.count(fileKey)) > 0) return;
    const used = Math.max(await uploadedToday(tx, userId, now), await holds.count(startedKey));
    if (used + input.size > quota) throw new AppError('upload.quotaExceeded');
    await holds.hit(startedKey, quota, ttl, input.size);
    await holds.hit(fileKey, 1, ttl);
  });
}

/** The row an earlier upload of the same content by the same member left (sha1 + topic + driver). */
async function findDuplicate(db: Db, userId: number, sha1: string, topic: string, storage: string): Promise<AttachmentRow | null> {
  const [row] = await db.select().from(attachment)
    .where(and(
      eq(attachment.sha1, sha1), eq(attachment.topic, topic), eq(attachment.storage, storage), eq(attachment.userId, userId),
      // Private rows of local mode are package-root paths; the store's are `/private/<id>/…` keys.
      storage === 'private' ? like(attachment.url, '/private/%') : undefined,
    ))
    .orderBy(asc(attachment.id)).limit(1);
  return row ?? null;
}

/** The storage key of a new upload: the save-name template under the member's prefix. */
export function cloudKey(userId: number, input: CloudFileInput, settings: UploadSettings, now: Date, area: 'uploads' | 'private' = 'uploads'): string {
  const url = buildSaveName(settings.saveName, { topic: input.topic, originalName: input.name, sha1: input.sha1, now, timeZone: settings.timeZone });
  return memberPrefix(userId, area) + url.replace(/^\/storage\//, '');
}

export type CloudPlan =
  | { kind: 'done'; row: AttachmentRow }
  | { kind: 'upload'; key: string; uploadId: string; partSize: number };

/**
 * Before any byte moves: the file passes the local rules (spec §5 messages), is charged to the daily quota, and
 * either is already stored (same sha1 + topic from this member: answered at once) or gets a key
 * in the member's prefix and a multipart upload on the store.
 */
export async function planCloudUpload(db: Db, store: ObjectStore, userId: number, input: CloudFileInput, settings: UploadSettings & Pick<CloudSettings, 'dailyQuota'>, options: { storage?: string; browserStarts?: boolean; holds: Pick<RateLimiter, 'hit' | 'count'> }): Promise<CloudPlan> {
  const storage = options.storage ?? store.driver;
  const problem = checkUpload({ name: input.name, size: input.size, mimetype: input.type }, settings);
  if (problem) throw new AppError(problem);
  const now = Math.floor(Date.now() / 1000);
  const existing = await findDuplicate(db, userId, input.sha1, input.topic, storage);
  if (existing) {
    const head = await store.head(keyOf(existing.url));
    if (head && head.size === existing.size) {
      const [bumped] = await db.update(attachment).set({ quote: sql`${attachment.quote} + 1`, lastUploadTime: now })
        .where(eq(attachment.id, existing.id)).returning();
      return { kind: 'done', row: bumped ?? existing };
    }
    // The row outlived its object: forget it, the file is stored afresh.
    await db.delete(attachment).where(eq(attachment.id, existing.id));
  }
  if (settings.dailyQuota > 0) await chargeDailyQuota(db, options.holds, userId, input, settings.dailyQuota, now);
  const key = cloudKey(userId, input, settings, new Date(now * 1000), storage === 'private' ? 'private' : 'uploads');
  // The COS SDK starts (and finds again, to resume) its multipart upload itself.
  const uploadId = options.browserStarts ? '' : await store.createMultipart(key, { contentType: storedType(input.type), sha1: input.sha1 });
  return { kind: 'upload', key, uploadId, partSize: partSizeFor(input.size) };
}

/** A declared MIME type fit to store, else `application/octet-stream`. */
export function storedType(declared: string): string {
  const mime = normalizeMime(declared);
  return mime.length <= 100 && /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(mime) ? mime : 'application/octet-stream';
}

/** The area a key lies in: `private/…` (module packages) or `uploads/…` (everything public). */
export function areaOfKey(key: string): 'uploads' | 'private' {
  return key.startsWith('private/') ? 'private' : 'uploads';
}

function ownKey(userId: number, key: string, area: 'uploads' | 'private'): void {
  if (!keyInPrefix(key, memberPrefix(userId, area))) throw new AppError('upload.foreignKey', { status: 403 });
}

/** Presigned PUT URLs for parts of an upload in the member's own prefix (a window of parts per call). */
export async function presignParts(store: ObjectStore, userId: number, key: string, uploadId: string, partNumbers: number[], area: 'uploads' | 'private' = 'uploads'): Promise<Record<number, string>> {
  ownKey(userId, key, area);
  const out: Record<number, string> = {};
  for (const partNumber of partNumbers) out[partNumber] = (await store.presign({ op: 'part', key, uploadId, partNumber })).url;
  return out;
}

/** The parts already on the store (resume after a reload); refused for another member's key. */
export async function listUploadedParts(store: ObjectStore, userId: number, key: string, uploadId: string, area: 'uploads' | 'private' = 'uploads'): Promise<StoredPart[]> {
  ownKey(userId, key, area);
  const parts = await store.listParts(key, uploadId);
  if (!parts) throw new AppError('upload.noSuchUpload', { data: { missing: true } });
  return parts;
}

/**
 * Completes an upload once every part of a file of `size` bytes in parts of `partSize` is on the
 * store with the right size; the parts are the store's own list, not the browser's word.
 */
export async function completeUpload(store: ObjectStore, userId: number, input: { key: string; uploadId: string; size: number; partSize: number }, area: 'uploads' | 'private' = 'uploads'): Promise<void> {
  const parts = await listUploadedParts(store, userId, input.key, input.uploadId, area);
  const total = Math.max(1, Math.ceil(input.size / input.partSize));
  const byNumber = new Map(parts.map((p) => [p.partNumber, p]));
  const chosen: StoredPart[] = [];
  for (let n = 1; n <= total; n++) {
    const p = byNumber.get(n);
    const expected = n < total ? input.partSize : input.size - (total - 1) * input.partSize;
    if (!p || p.size !== expected) throw new AppError('upload.partsMissing', { data: { partNumber: n } });
    chosen.push(p);
  }
  await store.complete(input.key, input.uploadId, chosen);
}

/** Cancel: the upload and its parts are deleted from the store. */
export async function abortUpload(store: ObjectStore, userId: number, key: string, uploadId: string, area: 'uploads' | 'private' = 'uploads'): Promise<void> {
  ownKey(userId, key, area);
  await store.abort(key, uploadId);
}

/** Image type and size from the object's first bytes, when it is one. */
export type ImageProbe = (head: Buffer) => Promise<{ mime: string; width: number; height: number } | null>;

/**
 * The callback: records the attachment only when the object exists under the member's prefix,
 * has the declared size (and the sha1 declared when the upload started), and passes the rules
 * (and `verify`, a check of the stored bytes such as a package's zip signature).
 */
export async function finishCloudUpload(db: Db, store: ObjectStore, userId: number, input: CloudFileInput & { url: string }, settings: UploadSettings, probe: ImageProbe, storage = store.driver, verify?: (key: string) => Promise<void>): Promise<AttachmentRow> {
  const key = keyOf(input.url);
  ownKey(userId, key, storage === 'private' ? 'private' : 'uploads');
  const problem = checkUpload({ name: input.name, size: input.size, mimetype: input.type }, settings);
  if (problem) throw new AppError(problem);
  // Settings that looked complete but the store refuses them (wrong region, endpoint, key): the
  // member hears the store is not set up, the operator finds the store's own words in the log.
  const head = await store.head(key).catch((err: unknown) => { throw new StoreRefused(err); });
  if (!head) throw new AppError('upload.objectMissing');
  if (head.size !== input.size) throw new AppError('upload.sizeMismatch');
  if (head.sha1 && head.sha1 !== input.sha1) throw new AppError('upload.sha1Mismatch');
  if (verify) await verify(key);
  const now = Math.floor(Date.now() / 1000);
  const existing = await findDuplicate(db, userId, input.sha1, input.topic, storage);
  if (existing && existing.url === `/${key}`) {
    const [bumped] = await db.update(attachment).set({ quote: sql`${attachment.quote} + 1`, lastUploadTime: now }).where(eq(attachment.id, existing.id)).returning();
    return bumped ?? existing;
  }
  let image: Awaited<ReturnType<ImageProbe>> = null;
  if (storage !== 'private' && (/^image\//.test(normalizeMime(input.type)) || /\.(png|jpe?g|gif|webp|bmp)$/i.test(input.name))) {
    image = await probe(await store.readHead(key, 256 * 1024).catch(() => Buffer.alloc(0)));
  }
  const suffix = fileSuffix(input.name);
  const [row] = await db.insert(attachment).values({
    topic: input.topic, adminId: 0, userId, url: `/${key}`, width: image?.width ?? 0, height: image?.height ?? 0,
    name: storedName(input.name, suffix), size: input.size, mimetype: image?.mime ?? storedType(input.type),
    quote: 1, storage, sha1: input.sha1, createTime: now, lastUploadTime: now,
  }).returning();
  return row!;
}

function storedName(original: string, suffix: string): string {
  const base = original.normalize('NFC').replace(/^.*[\\/]/, '').replace(/[\p{Cc}\p{Cf}]/gu, '').trim();
  const dot = base.lastIndexOf('.');
  const stem = dot > 0 ? base.slice(0, dot) : dot === 0 ? '' : base;
  return `${Array.from(stem).slice(0, Math.min(100, 119 - suffix.length)).join('')}.${suffix}`;
}
