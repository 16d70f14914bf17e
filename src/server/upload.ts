// Local uploads (`POST /api/ajax/upload`, `POST /api/developer/package`) and the files they
// produce (`GET /storage/...`), as raw Node handlers: Astro's adapter buffers request bodies, an
// upload is streamed to disk instead, so memory stays flat whatever the file size. The requests
// are answered here (admission, receiving the body, replies). Where a file goes is the local storage
// driver's (src/lib/server/upload/local-store.ts, the StorageDriver beside s3 and cos): the body is
// received to its temporary path, the local upload service (local.ts) has the driver place it, and
// `/storage/...` is served from the driver's folder.
import { createReadStream, type Stats } from 'node:fs';
import { realpath, stat, unlink } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { resolve, sep } from 'node:path';
import type { Runtime } from '../lib/server/runtime';
import { parseSize } from '../lib/server/site/config';
import { writeEnvelope } from '../lib/server/pipeline/checks';
import { checkUpload, isTypeAllowed } from '../lib/server/upload/check';
import { LOCAL_DRIVERS, readLocalSettings, storePackage, storeUpload } from '../lib/server/upload/local';
import { localPackages, localUploads } from '../lib/server/upload/local-store';
import { fileReply, type AttachmentRow } from '../lib/server/upload/storage';
import { isApprovedDeveloper } from '../lib/server/market/developers';
import { inspectPackage, refusalOf } from '../lib/server/modules/inspect';
import { translateAny, type Locale } from '../lib/i18n';
import { Code } from '../lib/shared/codes';
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

/** Each member's allowance a minute (checked before the handler: raw-routes.ts). */
export const UPLOADS_PER_MINUTE = 30;
export const PACKAGES_PER_MINUTE = 10;
/** Used when `market_package_max_size` cannot be read. */
const DEFAULT_PACKAGE_SIZE = 20 * 1024 * 1024;
const ALPHA_DASH = /^[A-Za-z0-9_-]+$/;

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



// ---------------------------------------------------------------------------------------------
// The upload itself

type Translate = (key: string, values?: Record<string, string | number>) => string;

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
    // A member, from our own pages, within the per-minute limit: checked before (raw-routes.ts).
    if (!ctx.user) return;

    const settings = await readLocalSettings(runtime);
    if (settings.paramsError) return sendEarly(req, res, 200, settings.paramsError.code, settings.paramsError.message, null);
    const query = new URL(req.url ?? '/', 'http://x').searchParams;
    const driver = query.get('driver') || settings.mode;
    if (!LOCAL_DRIVERS.has(driver)) return fail('upload.driverNotSupported', { driver: Array.from(driver).slice(0, 30).join('') });
    const topic = query.get('topic') || 'default';
    if (!ALPHA_DASH.test(topic) || topic.length > 20) return fail('upload.topicInvalid');

    if (!isMultipart(req.headers['content-type'])) return fail('upload.incomplete');
    const declared = Number(req.headers['content-length'] ?? NaN);
    if (Number.isFinite(declared) && declared > settings.maxSize + FORM_OVERHEAD) return fail('upload.tooLarge');

    const store = localUploads(runtime, { host: req.headers.host ?? '', cdnUrl: settings.cdnUrl });
    tmpPath = await store.tempPath();
    const received = await receiveOrReply(req, res, tmpPath, {
      maxSize: settings.maxSize,
      refuse: (name, type) => (isTypeAllowed(name, type, settings) ? null : 'upload.typeNotAllowed'),
      tooLarge: 'upload.tooLarge',
    }, fail);
    if (!received) return;
    const problem = checkUpload({ name: received.name, size: received.size, mimetype: received.mimetype }, settings);
    if (problem) return fail(problem);

    const row = await storeUpload(runtime, store, { userId: ctx.user.id, topic, file: received, settings });
    sendJson(res, 200, Code.ok, t('upload.success'), { file: fileReply(row, store) });
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
 * `market_package_max_size`, streamed to the local driver's package folder
 * (`<DATA_DIR>/packages/<yyyymm>/<sha1>.zip`) and recorded as a private attachment. Only `/api/modules/download` ever reads it back, after checking who asks.
 */
export async function handlePackageUpload(req: IncomingMessage, res: ServerResponse, call: RawCall): Promise<void> {
  const { runtime } = call;
  const ctx = uploadContext(call);
  const t: Translate = (key, values) => translateAny(ctx.locale, key, values);
  let limitText = '';
  const fail = (key: string): void => sendEarly(req, res, 200, Code.error, t(key, { limit: limitText }), null);
  let tmpPath: string | null = null;
  try {
    if (!ctx.user) return;
    const userId = ctx.user.id;
    if (!(await isApprovedDeveloper(runtime.db, userId))) return sendEarly(req, res, 200, Code.noPermission, t('devstudio.notDeveloper'), null);
    const maxSize = parseSize(await runtime.site.get('market_package_max_size', '20mb')) || DEFAULT_PACKAGE_SIZE;
    limitText = sizeLabel(maxSize);

    if (!isMultipart(req.headers['content-type'])) return fail('upload.incomplete');
    const declared = Number(req.headers['content-length'] ?? NaN);
    if (Number.isFinite(declared) && declared > maxSize + FORM_OVERHEAD) return fail('devstudio.package.tooLarge');

    const store = localPackages(runtime);
    tmpPath = await store.tempPath();
    const received = await receiveOrReply(req, res, tmpPath, {
      maxSize,
      refuse: (name) => (/\.zip$/i.test(name.trim()) ? null : 'devstudio.package.notZipName'),
      tooLarge: 'devstudio.package.tooLarge',
    }, fail);
    if (!received) return;

    const inspected = await inspectPackage(received.tmpPath);
    if (!inspected.ok) { const refusal = refusalOf(inspected.problems, ctx.locale); return sendEarly(req, res, 200, Code.error, refusal.msg, refusal.data); }

    const row: AttachmentRow = await storePackage(runtime, store, userId, received);
    sendJson(res, 200, Code.ok, t('devstudio.package.uploaded'), { file: { id: row.id, name: row.name, size: row.size, sha1: row.sha1 } });
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
  const { root } = localUploads(runtime);
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
