// Local uploads (`POST /api/ajax/upload`) and the files they produce (`GET /storage/...`), as raw
// Node handlers: Astro's adapter buffers request bodies, an upload is streamed to disk instead, so
// memory stays flat whatever the file size.
import { randomBytes } from 'node:crypto';
import { createReadStream, constants as fsConstants, type Stats } from 'node:fs';
import { copyFile, link, mkdir, open, realpath, stat, unlink, type FileHandle } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dirname, join, resolve, sep } from 'node:path';
import { and, asc, eq, notLike, sql } from 'drizzle-orm';
import type { Runtime } from '../lib/server/runtime';
import { attachment } from '../lib/server/db/schema';
import { parseSize } from '../lib/server/site/config';
import { crossSite, forbiddenOrigin, needLogin, rateLimited, writeEnvelope, type Refusal } from '../lib/server/pipeline/checks';
import { checkUpload, fileSuffix, isTypeAllowed, normalizeMime } from '../lib/server/upload/check';
import { readImageInfo, type ImageInfo, type ReadAt } from '../lib/server/upload/image-info';
import { buildSaveName, DEFAULT_SAVE_NAME, randomAlnum } from '../lib/server/upload/save-name';
import { isApprovedDeveloper } from '../lib/server/market/developers';
import { packageFile, packageRoot } from '../lib/server/market/packages';
import { checkZip } from '../lib/server/market/zip';
import { hostAllowed } from '../lib/server/seo/sitemap';
import { translateAny, type Locale } from '../lib/i18n';
import { Code } from '../lib/shared/codes';
import { formatDate } from '../lib/shared/date';
import { replyAfterBody } from './drain';
import type { RawCall } from './raw-call';
import { ClientGone, FORM_OVERHEAD, isMultipart, MultipartError, receiveFile, Rejection, type Received, type ReceiveRules } from './multipart';

interface UploadContext {
  locale: Locale;
  requestId: string;
  user: { id: number } | null;
}

function uploadContext(call: RawCall): UploadContext {
  const row = call.session.row;
  return { locale: call.locale, requestId: call.basics.requestId, user: row ? { id: row.id } : null };
}

const UPLOADS_PER_MINUTE = 30;
const PACKAGES_PER_MINUTE = 10;
/** Used when `market_package_max_size` cannot be read. */
const DEFAULT_PACKAGE_SIZE = 20 * 1024 * 1024;
const DRIVERS = new Set(['local']);
const ALPHA_DASH = /^[A-Za-z0-9_-]+$/;

function fileReader(fh: FileHandle): ReadAt {
  return async (offset, length) => {
    const buf = Buffer.alloc(length);
    const { bytesRead } = await fh.read(buf, 0, length, offset);
    return buf.subarray(0, bytesRead);
  };
}

// ---------------------------------------------------------------------------------------------
// Replies

function sendJson(res: ServerResponse, status: number, code: number, msg: string, data: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) { res.destroy(); return; }
  writeEnvelope(res, status, { code, msg, data }, { 'x-content-type-options': 'nosniff', ...headers });
}

/**
 * Replies before the body was read to the end: the rest of the body is read and dropped first
 * (within bounds: drain.ts), so a client still sending gets the reply rather than a reset.
 */
function sendEarly(req: IncomingMessage, res: ServerResponse, status: number, code: number, msg: string, data: unknown, headers: Record<string, string> = {}): void {
  replyAfterBody(req, (close) => sendJson(res, status, code, msg, data, close ? { ...headers, connection: 'close' } : headers));
}

const refuse = (req: IncomingMessage, res: ServerResponse, r: Refusal): void => sendEarly(req, res, r.status, r.body.code, r.body.msg, r.body.data, r.headers);


// ---------------------------------------------------------------------------------------------
// The upload itself

interface Settings {
  maxSize: number;
  allowedSuffixes: string;
  allowedMimeTypes: string;
  saveName: string;
  mode: string;
  timeZone: string;
  cdnUrl: string;
  paramsError: { code: number; message: string } | null;
}

async function readSettings(runtime: Runtime): Promise<Settings> {
  const all = await runtime.site.all();
  const get = (name: string, fallback = ''): string => all.get(name) ?? fallback;
  let paramsError: Settings['paramsError'] = null;
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
function fullUrl(req: IncomingMessage, config: Runtime['config'], cdnUrl: string, url: string): string {
  if (cdnUrl) return cdnUrl + url;
  if (config.siteUrl) return config.siteUrl + url;
  const host = req.headers.host ?? '';
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

type AttachmentRow = typeof attachment.$inferSelect;

function fileReply(row: AttachmentRow, req: IncomingMessage, config: Runtime['config'], cdnUrl: string) {
  return {
    id: row.id, topic: row.topic, admin_id: row.adminId, user_id: row.userId, url: row.url,
    width: row.width, height: row.height, name: row.name, size: row.size, mimetype: row.mimetype,
    storage: row.storage, sha1: row.sha1, last_upload_time: row.lastUploadTime,
    suffix: fileSuffix(row.name), full_url: fullUrl(req, config, cdnUrl, row.url),
  };
}

type Translate = (key: string, values?: Record<string, string | number>) => string;

/**
 * What every upload passes before its body is read: a member, a request from our own pages when
 * the session came from the cookie, and the per-minute limit. False when it already replied.
 */
async function admitted(req: IncomingMessage, res: ServerResponse, call: RawCall, kind: string, perMinute: number): Promise<boolean> {
  const { row, tokenExpired, viaCookie } = call.session;
  if (!row) { refuse(req, res, needLogin(call.locale, tokenExpired, [])); return false; }
  if (crossSite(call.header, 'POST', viaCookie, call.runtime.config.siteDomain, false)) { refuse(req, res, forbiddenOrigin(call.locale)); return false; }
  const limited = await rateLimited(call.runtime, call.locale, `${kind}:${row.id}`, perMinute);
  if (limited) { refuse(req, res, limited); return false; }
  return true;
}

/** A fresh temporary path in `<root>/.tmp`, on the same file system as the file's final place. */
async function tempPathIn(root: string): Promise<string> {
  const tmpDir = join(root, '.tmp');
  await mkdir(tmpDir, { recursive: true });
  return join(tmpDir, `${Date.now().toString(36)}-${randomBytes(8).toString('hex')}.part`);
}

/** `receiveFile()` that answers the refusals itself: null when it replied (or nobody is left to reply to). */
async function receiveOrReply(req: IncomingMessage, res: ServerResponse, tmpPath: string, rules: ReceiveRules, fail: (key: string) => void): Promise<Received | null> {
  try {
    return await receiveFile(req, req.headers, tmpPath, rules);
  } catch (err) {
    if (err instanceof Rejection) { fail(err.key); return null; }
    if (err instanceof MultipartError) { fail('upload.incomplete'); return null; }
    if (err instanceof ClientGone) { res.destroy(); return null; }
    throw err;
  }
}

/**
 * `POST /api/ajax/upload?driver=local&topic=…` with a multipart body whose `file` part is the
 * upload. Replies with the `{code, msg, data, time}` envelope; never buffers the file in memory.
 */
export async function handleUpload(req: IncomingMessage, res: ServerResponse, call: RawCall): Promise<void> {
  const { runtime } = call;
  const ctx = uploadContext(call);
  const t: Translate = (key, values) => translateAny(ctx.locale, key, values);
  const fail = (key: string, values?: Record<string, string | number>): void => sendEarly(req, res, 200, Code.error, t(key, values), null);
  let tmpPath: string | null = null;
  try {
    if (!(await admitted(req, res, call, 'upload', UPLOADS_PER_MINUTE)) || !ctx.user) return;

    const settings = await readSettings(runtime);
    if (settings.paramsError) return sendEarly(req, res, 200, settings.paramsError.code, settings.paramsError.message, null);
    const query = new URL(req.url ?? '/', 'http://x').searchParams;
    const driver = query.get('driver') || settings.mode;
    if (!DRIVERS.has(driver)) return fail('upload.driverNotSupported', { driver: Array.from(driver).slice(0, 30).join('') });
    const topic = query.get('topic') || 'default';
    if (!ALPHA_DASH.test(topic) || topic.length > 20) return fail('upload.topicInvalid');

    if (!isMultipart(req.headers['content-type'])) return fail('upload.incomplete');
    const declared = Number(req.headers['content-length'] ?? NaN);
    if (Number.isFinite(declared) && declared > settings.maxSize + FORM_OVERHEAD) return fail('upload.tooLarge');

    tmpPath = await tempPathIn(storageRoot(runtime));
    const received = await receiveOrReply(req, res, tmpPath, {
      maxSize: settings.maxSize,
      refuse: (name, type) => (isTypeAllowed(name, type, settings) ? null : 'upload.typeNotAllowed'),
      tooLarge: 'upload.tooLarge',
    }, fail);
    if (!received) return;
    const problem = checkUpload({ name: received.name, size: received.size, mimetype: received.mimetype }, settings);
    if (problem) return fail(problem);

    const fh = await open(received.tmpPath, 'r');
    let image: ImageInfo | null;
    try { image = await readImageInfo(fileReader(fh)); } finally { await fh.close(); }

    const now = Math.floor(Date.now() / 1000);
    const suffix = fileSuffix(received.name);
    // The same content again from the same member is the same attachment. Another member's copy
    // stays theirs: an attachment row says who uploaded it (the market checks module images by it).
    const [existing] = await runtime.db.select().from(attachment)
      .where(and(eq(attachment.sha1, received.sha1), eq(attachment.topic, topic), eq(attachment.storage, driver), eq(attachment.userId, ctx.user.id)))
      .orderBy(asc(attachment.id)).limit(1);
    if (existing) {
      const existingFile = fileOfUrl(runtime, existing.url);
      const present = existingFile ? await stat(existingFile).then((s) => s.isFile(), () => false) : false;
      if (present) {
        const [bumped] = await runtime.db.update(attachment)
          .set({ quote: sql`${attachment.quote} + 1`, lastUploadTime: now })
          .where(eq(attachment.id, existing.id)).returning();
        return sendJson(res, 200, Code.ok, t('upload.success'), { file: fileReply(bumped ?? existing, req, runtime.config, settings.cdnUrl) });
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
    tmpPath = null;

    let row: AttachmentRow | undefined;
    try {
      [row] = await runtime.db.insert(attachment).values({
        topic, adminId: 0, userId: ctx.user.id, url, width: image?.width ?? 0, height: image?.height ?? 0,
        name: storedName(received.name, suffix), size: received.size, mimetype: storedMime(received.mimetype, image),
        quote: 1, storage: driver, sha1: received.sha1, createTime: now, lastUploadTime: now,
      }).returning();
    } catch (err) {
      await unlink(placed).catch(() => undefined);
      throw err;
    }
    sendJson(res, 200, Code.ok, t('upload.success'), { file: fileReply(row!, req, runtime.config, settings.cdnUrl) });
  } catch (err) {
    runtime.log.error('upload failed', { requestId: ctx.requestId, err: err instanceof Error ? err.stack ?? err.message : String(err) });
    if (res.headersSent) res.destroy();
    else sendEarly(req, res, 500, Code.error, t('api.internal', { requestId: ctx.requestId }), null);
  } finally {
    // Whatever happened, a received file that was not placed does not stay behind.
    if (tmpPath) await unlink(tmpPath).catch(() => undefined);
  }
}

// ---------------------------------------------------------------------------------------------
// Module packages: private, never under /storage

function sizeLabel(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB` : `${Math.ceil(bytes / 1024)} KB`;
}

/**
 * `POST /api/developer/package`: an approved developer's module package, a `.zip` of at most
 * `market_package_max_size`, streamed to `<DATA_DIR>/packages/<yyyymm>/<sha1>.zip` and recorded as
 * a private attachment. Only `/api/modules/download` ever reads it back, after checking who asks.
 */
export async function handlePackageUpload(req: IncomingMessage, res: ServerResponse, call: RawCall): Promise<void> {
  const { runtime } = call;
  const ctx = uploadContext(call);
  const t: Translate = (key, values) => translateAny(ctx.locale, key, values);
  let limitText = '';
  const fail = (key: string): void => sendEarly(req, res, 200, Code.error, t(key, { limit: limitText }), null);
  let tmpPath: string | null = null;
  try {
    if (!(await admitted(req, res, call, 'package', PACKAGES_PER_MINUTE)) || !ctx.user) return;
    const userId = ctx.user.id;
    if (!(await isApprovedDeveloper(runtime.db, userId))) return sendEarly(req, res, 200, Code.noPermission, t('devstudio.notDeveloper'), null);
    const maxSize = parseSize(await runtime.site.get('market_package_max_size', '20mb')) || DEFAULT_PACKAGE_SIZE;
    limitText = sizeLabel(maxSize);

    if (!isMultipart(req.headers['content-type'])) return fail('upload.incomplete');
    const declared = Number(req.headers['content-length'] ?? NaN);
    if (Number.isFinite(declared) && declared > maxSize + FORM_OVERHEAD) return fail('devstudio.package.tooLarge');

    const root = packageRoot(runtime);
    tmpPath = await tempPathIn(root);
    const received = await receiveOrReply(req, res, tmpPath, {
      maxSize,
      refuse: (name) => (/\.zip$/i.test(name.trim()) ? null : 'devstudio.package.notZipName'),
      tooLarge: 'devstudio.package.tooLarge',
    }, fail);
    if (!received) return;

    const verdict = await checkZip(received.tmpPath);
    if (verdict !== 'ok') return fail(verdict === 'empty' ? 'devstudio.package.empty' : 'devstudio.package.notZip');

    const now = Math.floor(Date.now() / 1000);
    const relative = `${formatDate(new Date(now * 1000), 'yyyymm', await runtime.site.get('time_zone', 'UTC'))}/${received.sha1}.zip`;
    const reply = (row: AttachmentRow): void => sendJson(res, 200, Code.ok, t('devstudio.package.uploaded'), { file: { id: row.id, name: row.name, size: row.size, sha1: row.sha1 } });
    const [existing] = await runtime.db.select().from(attachment).where(and(
      eq(attachment.sha1, received.sha1), eq(attachment.topic, 'package'), eq(attachment.storage, 'private'), eq(attachment.userId, userId),
      // A package stored in the cloud (`/private/<id>/…`) is not this folder's file.
      notLike(attachment.url, '/%'),
    )).orderBy(asc(attachment.id)).limit(1);
    const existingFile = existing ? packageFile(runtime, existing.url) : null;
    if (existing && existingFile && (await stat(existingFile).then((s) => s.isFile(), () => false))) {
      const [bumped] = await runtime.db.update(attachment).set({ quote: sql`${attachment.quote} + 1`, lastUploadTime: now })
        .where(eq(attachment.id, existing.id)).returning();
      return reply(bumped ?? existing);
    }
    if (existing) await runtime.db.delete(attachment).where(eq(attachment.id, existing.id));

    const target = packageFile(runtime, relative);
    if (!target) throw new Error(`package: path outside the package root: ${relative}`);
    await mkdir(dirname(target), { recursive: true });
    // The name is the content's hash: a file already there is this very package (another developer's copy, say).
    const placed = await placeExclusive(received.tmpPath, target);
    let row: AttachmentRow | undefined;
    try {
      [row] = await runtime.db.insert(attachment).values({
        topic: 'package', adminId: 0, userId, url: relative, width: 0, height: 0, name: storedName(received.name, 'zip'),
        size: received.size, mimetype: 'application/zip', quote: 1, storage: 'private', sha1: received.sha1, createTime: now, lastUploadTime: now,
      }).returning();
    } catch (err) {
      if (placed) await unlink(target).catch(() => undefined);
      throw err;
    }
    reply(row!);
  } catch (err) {
    runtime.log.error('package upload failed', { requestId: ctx.requestId, err: err instanceof Error ? err.stack ?? err.message : String(err) });
    if (res.headersSent) res.destroy();
    else sendEarly(req, res, 500, Code.error, t('api.internal', { requestId: ctx.requestId }), null);
  } finally {
    if (tmpPath) await unlink(tmpPath).catch(() => undefined);
  }
}

// ---------------------------------------------------------------------------------------------
// Serving stored files

const STORAGE_TYPES: Record<string, string> = {
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', bmp: 'image/bmp',
  avif: 'image/avif', ico: 'image/x-icon', svg: 'image/svg+xml',
  mp3: 'audio/mpeg', wav: 'audio/wav', ogg: 'audio/ogg', m4a: 'audio/mp4', flac: 'audio/flac',
  mp4: 'video/mp4', webm: 'video/webm', mov: 'video/quicktime',
  pdf: 'application/pdf', zip: 'application/zip', rar: 'application/vnd.rar', '7z': 'application/x-7z-compressed',
  gz: 'application/gzip', txt: 'text/plain; charset=utf-8', md: 'text/markdown; charset=utf-8', csv: 'text/csv; charset=utf-8',
  json: 'application/json', xml: 'application/xml', html: 'text/html; charset=utf-8', htm: 'text/html; charset=utf-8',
  doc: 'application/msword', docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xls: 'application/vnd.ms-excel', xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

/**
 * Types a browser may show inline: raster images, audio, video and ZIP. SVG, HTML, XML, PDF (its
 * viewer runs scripts and browsers refuse to show it under a sandbox) and the rest download.
 */
function servedInline(type: string): boolean {
  if (type === 'image/svg+xml') return false;
  return /^(image|audio|video)\//.test(type) || type === 'application/zip';
}

/**
 * The absolute file for a `/storage/...` request path, or null for anything that could leave the
 * storage folder: `..` or `.` segments (plain or percent-encoded), hidden names (such as the
 * `.tmp` folder), backslashes, NUL, empty segments, malformed escapes.
 */
export function storagePath(root: string, pathname: string): string | null {
  if (!pathname.startsWith('/storage/')) return null;
  let decoded: string;
  try { decoded = decodeURIComponent(pathname.slice('/storage/'.length)); } catch { return null; }
  if (!decoded || /[\\\0]/.test(decoded) || /%(?:2e|2f|5c|00)/i.test(decoded)) return null;
  const segments = decoded.split('/');
  if (segments.some((s) => s === '' || s.startsWith('.'))) return null;
  const full = resolve(root, ...segments);
  return full.startsWith(root + sep) ? full : null;
}

function notFound(res: ServerResponse): void {
  res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' });
  res.end('Not Found');
}

/**
 * Answers `GET`/`HEAD /storage/...` from `<DATA_DIR>/storage`, streamed from disk with ETag/304
 * and single byte ranges. Returns false (not handled) for other paths and methods.
 */
export function serveStorage(req: IncomingMessage, res: ServerResponse, runtime: Runtime): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const pathname = (req.url ?? '/').split('?')[0]!;
  if (!pathname.startsWith('/storage/')) return false;
  void sendStorageFile(req, res, runtime, pathname).catch((err: unknown) => {
    runtime.log.error('storage read failed', { url: req.url, err: err instanceof Error ? err.message : String(err) });
    if (!res.headersSent) notFound(res);
    else res.destroy();
  });
  return true;
}

async function sendStorageFile(req: IncomingMessage, res: ServerResponse, runtime: Runtime, pathname: string): Promise<void> {
  const root = storageRoot(runtime);
  const candidate = storagePath(root, pathname);
  if (!candidate) return notFound(res);
  // Symbolic links must not lead out of the storage folder either.
  let real: string;
  let info: Stats;
  try {
    const realRoot = await realpath(root);
    real = await realpath(candidate);
    if (!real.startsWith(realRoot + sep)) return notFound(res);
    info = await stat(real);
  } catch {
    return notFound(res);
  }
  if (!info.isFile()) return notFound(res);

  const ext = real.slice(real.lastIndexOf('.') + 1).toLowerCase();
  const type = STORAGE_TYPES[ext] ?? 'application/octet-stream';
  const etag = `"${info.size.toString(36)}-${Math.floor(info.mtimeMs).toString(36)}"`;
  const headers: Record<string, string> = {
    'content-type': type,
    'x-content-type-options': 'nosniff',
    'cache-control': 'public, max-age=31536000, immutable',
    etag,
    'last-modified': info.mtime.toUTCString(),
    'accept-ranges': 'bytes',
    // Whatever a member uploaded runs nothing on our origin, even opened on its own.
    'content-security-policy': 'sandbox',
  };
  if (!servedInline(type)) {
    headers['content-disposition'] = 'attachment';
  }
  const inm = req.headers['if-none-match'];
  if (inm && inm.split(',').some((v) => v.trim().replace(/^W\//, '') === etag)) {
    res.writeHead(304, { etag, 'cache-control': headers['cache-control']! });
    res.end();
    return;
  }

  let start = 0;
  let end = info.size - 1;
  let status = 200;
  const range = req.headers.range;
  const ifRange = req.headers['if-range'];
  if (range && (!ifRange || ifRange === etag) && info.size > 0) {
    const m = /^bytes=(\d*)-(\d*)$/.exec(range.trim());
    if (m && (m[1] || m[2])) {
      if (m[1]) {
        start = Number(m[1]);
        end = m[2] ? Math.min(Number(m[2]), info.size - 1) : info.size - 1;
      } else {
        start = Math.max(0, info.size - Number(m[2]));
      }
      if (start > end || start >= info.size) {
        res.writeHead(416, { 'content-range': `bytes */${info.size}`, 'x-content-type-options': 'nosniff' });
        res.end();
        return;
      }
      status = 206;
      headers['content-range'] = `bytes ${start}-${end}/${info.size}`;
    }
  }
  headers['content-length'] = String(info.size === 0 ? 0 : end - start + 1);
  res.writeHead(status, headers);
  if (req.method === 'HEAD' || info.size === 0) { res.end(); return; }
  const stream = createReadStream(real, { start, end });
  stream.on('error', () => res.destroy());
  res.on('close', () => stream.destroy());
  stream.pipe(res);
}
