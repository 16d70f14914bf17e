// The request handler of Atrium's HTTP server: answers what needs no rendering (health, static
// files, cached pages) itself and hands the rest to Astro.
import { createServer, maxHeaderSize, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { join } from 'node:path';
import type { Runtime } from '../lib/server/runtime';
import { PageCache, type CachedPage } from '../lib/server/page-cache';
import { pickEncoding } from '../lib/server/compress';
import { areaOfHostCached, negotiateLocale, negotiateTheme, newRequestId, requestBasics, readCookie, REFRESH_COOKIE, SESSION_COOKIE, USER_INFO_COOKIE } from '../lib/server/request-context';
import { normalizeApiPath, toAppPath } from '../lib/shared/hosts';
import { translator } from '../lib/i18n';
import { apiLocale } from '../lib/server/http';
import { loadStaticFiles, type StaticFile } from './static';
import { serveModuleAsset } from './module-assets';
import { MODULE_ASSETS } from '../lib/server/modules/assets';
import { serveStorage } from './upload';
import { appLocals } from '../lib/server/app-locals';
import { replyAfterBody } from './drain';
import { createMetrics } from '../lib/server/metrics';
import { closeStreams } from './stream';
import { answerRaw, rawRoute } from './raw-routes';
import { envelopeText, writeEnvelope } from '../lib/server/pipeline/checks';
import { useBuiltChatWorker } from '../lib/server/chat/provider';
import { startMessageJob } from '../lib/server/messages/mail-job';
import { hubFor } from '../lib/server/messages/live';

export type AstroHandler = (req: IncomingMessage, res: ServerResponse, next: undefined, locals: object) => Promise<void>;

const SECURITY_HEADERS: Record<string, string> = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'strict-origin-when-cross-origin',
  'x-frame-options': 'SAMEORIGIN',
};

/** A response ready to write: headers and body per encoding, computed once per file or page. */
interface Variant {
  headers: Record<string, string | number>;
  /**
   * The same headers as a flat [name, value, …] list ending in `x-request-id` and a slot for its
   * value: writeHead takes it as is. It reads the list before it returns, so one list serves every
   * request (its last slot rewritten each time) and nothing is copied.
   */
  flat: (string | number)[];
  body: Buffer;
}

interface Prepared {
  status: number;
  etag: string;
  notModified: Record<string, string>;
  identity: Variant;
  br: Variant | null;
  gzip: Variant | null;
}

function prepare(status: number, headers: Record<string, string>, variants: { body: Buffer; br?: Buffer | null; gzip?: Buffer | null }, etag: string): Prepared {
  const base: Record<string, string> = { ...headers, etag };
  delete base['content-encoding'];
  delete base['content-length'];
  if ((variants.br || variants.gzip) && !/accept-encoding/i.test(base.vary ?? '')) base.vary = base.vary ? `${base.vary}, Accept-Encoding` : 'Accept-Encoding';
  const variant = (body: Buffer, encoding?: string): Variant => {
    const headers = { ...base, ...(encoding ? { 'content-encoding': encoding } : {}), 'content-length': body.length };
    return { headers, flat: [...Object.entries(headers).flat(), 'x-request-id', ''], body };
  };
  return {
    status,
    etag,
    notModified: { etag, 'cache-control': base['cache-control'] ?? 'no-cache', vary: base.vary ?? 'Accept-Encoding' },
    identity: variant(variants.body),
    br: variants.br ? variant(variants.br, 'br') : null,
    gzip: variants.gzip ? variant(variants.gzip, 'gzip') : null,
  };
}

/**
 * The hot path of cached pages and static files: a lookup and one write, nothing allocated per
 * request but the reply. With `requestId`, the headers go to writeHead as one flat list with
 * `x-request-id` appended (no setHeader before it: that turns writeHead into a header-by-header merge).
 */
function sendPrepared(req: IncomingMessage, res: ServerResponse, p: Prepared, requestId?: string): void {
  if (req.headers['if-none-match'] === p.etag) {
    res.writeHead(304, requestId ? { ...p.notModified, 'x-request-id': requestId } : p.notModified);
    res.end();
    return;
  }
  const accept = req.headers['accept-encoding'];
  const encoding = accept ? pickEncoding(accept, p.br && p.gzip ? ['br', 'gzip'] : p.br ? ['br'] : p.gzip ? ['gzip'] : []) : 'identity';
  const chosen = (encoding !== 'identity' && p[encoding]) || p.identity;
  if (requestId) {
    const { flat } = chosen;
    flat[flat.length - 1] = requestId;
    res.writeHead(p.status, flat as unknown as Record<string, string>);
  } else {
    res.writeHead(p.status, chosen.headers);
  }
  res.end(req.method === 'HEAD' ? undefined : chosen.body);
}

const preparedStatic = new WeakMap<StaticFile, Prepared>();
const preparedPages = new WeakMap<CachedPage, Prepared>();

function sendStatic(req: IncomingMessage, res: ServerResponse, file: StaticFile): void {
  let p = preparedStatic.get(file);
  if (!p) {
    p = prepare(200, { 'content-type': file.type, 'cache-control': file.cacheControl, 'x-content-type-options': 'nosniff' }, file, file.etag);
    preparedStatic.set(file, p);
  }
  sendPrepared(req, res, p);
}

function sendCached(req: IncomingMessage, res: ServerResponse, page: CachedPage, requestId?: string): void {
  let p = preparedPages.get(page);
  if (!p) {
    p = prepare(page.status, { ...page.headers, ...SECURITY_HEADERS, 'x-atrium-cache': 'hit' }, page, page.etag);
    preparedPages.set(page, p);
  }
  sendPrepared(req, res, p, requestId);
}

/** Whether a Cookie header carries a session (or the user info of one): such a request is not served from the visitors' cache. */
function hasSessionCookie(cookie: string | undefined): boolean {
  return !!cookie && !!(readCookie(cookie, SESSION_COOKIE) || readCookie(cookie, REFRESH_COOKIE) || readCookie(cookie, USER_INFO_COOKIE));
}

function humanBytes(n: number): string {
  return n >= 1024 * 1024 ? `${Math.round(n / 1024 / 1024)} MB` : `${Math.round(n / 1024)} KB`;
}

/**
 * The methods Atrium answers. Any other is refused before routing: the Request Astro builds cannot
 * even hold TRACE, TRACK or CONNECT (it threw, and every such request was a 500 with a stack logged).
 */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const ALLOW = [...METHODS].join(', ');

/** The `501 Not Implemented` reply to a method Atrium does not answer: the envelope on /api, a plain line elsewhere. */
function unsupportedMethod(method: string, path: string, header: (name: string) => string | undefined): { type: string; body: string } {
  const locale = apiLocale(header, negotiateLocale(header('cookie'), header('accept-language')));
  // What the client sent, shown back only as printable token characters and never at length.
  const msg = translator(locale, 'api')('api.methodNotImplemented', { method: method.replace(/[^!#$%&'*+.^_`|~0-9A-Za-z-]/g, '').slice(0, 32) });
  if (path.startsWith('/api/')) return { type: 'application/json; charset=utf-8', body: envelopeText({ code: 0, msg, data: null }) };
  return { type: 'text/plain; charset=utf-8', body: `${msg}\n` };
}

/** Ends a connection Node handed over (a parse error, CONNECT) with one complete reply. */
function endSocket(socket: Duplex, status: string, reply: { type: string; body: string }, extra = ''): void {
  socket.end(`HTTP/1.1 ${status}\r\ncontent-type: ${reply.type}\r\ncontent-length: ${Buffer.byteLength(reply.body)}\r\ncache-control: no-store\r\n${extra}connection: close\r\n\r\n${reply.body}`);
}

/**
 * A request Node could not parse (headers or address over its limit, a method it does not know,
 * malformed): answered before any handler runs. On /api the reply is still the envelope, in the
 * language the raw headers ask for.
 */
export function answerClientError(err: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Duplex): void {
  if (!socket.writable || (err.code === 'ECONNRESET')) { socket.destroy(); return; }
  const head = err.rawPacket?.toString('latin1') ?? '';
  const header = (name: string): string | undefined => new RegExp(`\r\n${name}:[ \t]*([^\r\n]*)`, 'i').exec(head)?.[1];
  const [, method = '', path = ''] = /^(\S*) (\S*)/.exec(head) ?? [];
  if (err.code === 'HPE_INVALID_METHOD') {
    endSocket(socket, '501 Not Implemented', unsupportedMethod(method, path, header), `allow: ${ALLOW}\r\n`);
    return;
  }
  const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
  const status = tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request';
  if (path.startsWith('/api/')) {
    const locale = apiLocale(header, negotiateLocale(header('cookie'), header('accept-language')));
    const t = translator(locale, 'api');
    const body = envelopeText({ code: 0, msg: tooLarge ? t('api.headersTooLarge', { limit: humanBytes(maxHeaderSize) }) : t('api.badRequest'), data: null });
    endSocket(socket, status, { type: 'application/json; charset=utf-8', body });
  } else {
    endSocket(socket, status, { type: 'text/plain; charset=utf-8', body: tooLarge ? 'Request Header Fields Too Large' : 'Bad Request' });
  }
}

export interface AtriumApp {
  server: Server;
  /** Requests being answered right now. */
  inFlight(): number;
  /** Makes /healthz answer 503 so load balancers stop sending traffic. */
  drain(): void;
}

/** The HTTP server for one runtime, not yet listening. */
export function createApp(runtime: Runtime, handler: AstroHandler, clientDir: string): AtriumApp {
  const { config, log } = runtime;
  const statics = loadStaticFiles(clientDir);
  // The chat worker is built beside the client files' folder (dist/chat-worker.mjs).
  useBuiltChatWorker(join(clientDir, '..', 'chat-worker.mjs'));
  let inFlight = 0;
  let shuttingDown = false;
  const metrics = createMetrics(runtime, () => inFlight);

  /**
   * A visitor's cached page, answered synchronously in the request event, before anything else is
   * set up for the request (no promise, no listeners): the same answer the full path below gives
   * (same key, headers, x-request-id, the same paths excluded), at a fraction of the cost. False
   * sends the request the full way.
   */
  const answerCached = (req: IncomingMessage, res: ServerResponse): boolean => {
    const method = req.method;
    if (method !== 'GET' && method !== 'HEAD') return false;
    const started = performance.now();
    const { headers } = req;
    const cookie = headers.cookie;
    // A member's cookies (or a user-info cookie left without them, which the full way clears) are not a visitor's.
    if (hasSessionCookie(cookie)) return false;
    const rawUrl = req.url ?? '/';
    if (rawUrl.startsWith('/healthz')) return false;
    const url = normalizeApiPath(toAppPath(areaOfHostCached(headers.host, config.siteDomain).area, rawUrl));
    const q = url.indexOf('?');
    const pathname = q < 0 ? url : url.slice(0, q);
    // What the full path answers before its cache lookup: API, metrics, health, uploads, static files.
    if (pathname.startsWith('/api/') || pathname.startsWith('/storage/') || pathname === '/metrics' || statics.has(pathname)) return false;
    const hit = runtime.pageCache.get(PageCache.key(headers.host ?? '', url, negotiateLocale(cookie, headers['accept-language']), negotiateTheme(cookie)));
    if (!hit) return false;
    req.url = url;
    sendCached(req, res, hit, newRequestId());
    metrics.cachedPage(hit, pathname, method, res.statusCode, (performance.now() - started) / 1000);
    return true;
  };

  const server = createServer((req, res) => {
    try {
      if (answerCached(req, res)) return;
    } catch (err) {
      // The full path below answers (or, past the headers, ends the response).
      log.error('cached answer failed', { url: req.url, err: err instanceof Error ? err.stack : String(err) });
      if (res.headersSent) { res.destroy(); return; }
    }
    void handle(req, res);
  });

  /** Everything but a cached page's hit. */
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    inFlight++;
    res.once('close', () => { inFlight--; });
    try {
      const rawUrl = req.url ?? '/';
      if (!METHODS.has(req.method ?? '')) {
        const reply = unsupportedMethod(req.method ?? '', normalizeApiPath(rawUrl), (name) => req.headers[name] as string | undefined);
        // Whatever body came with it is not read: the connection ends with the reply.
        res.writeHead(501, { 'content-type': reply.type, 'content-length': Buffer.byteLength(reply.body), 'cache-control': 'no-store', allow: ALLOW, connection: 'close' });
        res.end(req.method === 'HEAD' ? undefined : reply.body);
        return;
      }
      if (rawUrl === '/healthz' || rawUrl.startsWith('/healthz?')) {
        // Every dependency this instance needs to answer: the database, and Redis when configured
        // (rate limits, sessions and the bus between instances go through it).
        const [database, redis] = await Promise.all([runtime.database.ping(), config.redisUrl ? (runtime.pingRedis?.() ?? false) : null]);
        const ok = database && redis !== false && !shuttingDown;
        res.writeHead(ok ? 200 : 503, { 'content-type': 'application/json', 'cache-control': 'no-store' });
        res.end(JSON.stringify({
          status: ok ? 'ok' : 'unavailable',
          ...(shuttingDown ? { stopping: true } : {}),
          database: database ? 'up' : 'down',
          ...(redis === null ? {} : { redis: redis ? 'up' : 'down' }),
          instance: runtime.bus.instanceId,
        }));
        return;
      }
      const basics = requestBasics({ cookie: req.headers.cookie, acceptLanguage: req.headers['accept-language'], host: req.headers.host }, config.siteDomain);
      req.url = normalizeApiPath(toAppPath(basics.host.area, rawUrl));
      const pathname = req.url.split('?')[0] ?? '/';
      res.setHeader('x-request-id', basics.requestId);
      metrics.observe(req, res, pathname, basics.requestId);
      if (await metrics.serve(req, res, pathname)) return;
      const isRead = req.method === 'GET' || req.method === 'HEAD';

      // The API paths answered here, not by Astro (raw-routes.ts): uploads stream to disk with their
      // own size limit, streams stay open, so these come before the body-size check and Astro.
      const raw = rawRoute(pathname, req.method, req.url.slice(pathname.length));
      if (raw?.early && await answerRaw(raw, req, res, runtime, basics)) return;
      if (isRead && serveStorage(req, res, runtime)) return;
      if (isRead) {
        const file = statics.get(pathname);
        if (file) return sendStatic(req, res, file);
        if (pathname.startsWith(MODULE_ASSETS)) return serveModuleAsset(req, res, runtime, pathname);
      }
      const isApi = pathname.startsWith('/api/');
      if (!isRead) {
        const length = Number(req.headers['content-length'] ?? 0);
        if (length > config.maxBodyBytes || (req.headers['transfer-encoding'] && !req.headers['content-length'])) {
          const locale = apiLocale((name) => req.headers[name] as string | undefined, basics.locale);
          const t = translator(locale, 'api');
          const tooLarge = length > config.maxBodyBytes;
          const msg = tooLarge ? t('api.tooLarge', { limit: humanBytes(config.maxBodyBytes) }) : t('api.lengthRequired');
          // Read and drop what the client is still sending (bounded), so the reply reaches it.
          replyAfterBody(req, (close) => {
            if (close) res.setHeader('connection', 'close');
            writeEnvelope(res, tooLarge ? 413 : 411, { code: 0, msg, data: null });
          });
          return;
        }
      }
      if (isRead && !isApi && !hasSessionCookie(req.headers.cookie)) {
        const hit = runtime.pageCache.get(PageCache.key(req.headers.host ?? '', req.url, basics.locale, basics.theme));
        if (hit) { metrics.cacheHit(); return sendCached(req, res, hit); }
      }
      for (const [k, v] of Object.entries(SECURITY_HEADERS)) res.setHeader(k, v);
      // `pathname` lets work deep in the request (a slow query's log line) name its route.
      const locals = { runtime, ...basics, pathname };
      // A chat question starts a reply without Astro (chat-send.ts: its start cost queued bursts).
      if (raw && !raw.early && await appLocals.run(locals, () => answerRaw(raw, req, res, runtime, basics))) return;
      await appLocals.run(locals, () => handler(req, res, undefined, locals));
    } catch (err) {
      const requestId = newRequestId();
      log.error('request failed', { requestId, url: req.url, err: err instanceof Error ? err.stack : String(err) });
      const locale = apiLocale((name) => req.headers[name] as string | undefined, negotiateLocale(req.headers.cookie, req.headers['accept-language']));
      if (!res.headersSent) writeEnvelope(res, 500, { code: 0, msg: translator(locale, 'api')('api.internal', { requestId }), data: null });
      else res.destroy();
    }
  };
  server.keepAliveTimeout = 65_000;
  server.on('clientError', (err: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket) => answerClientError(err, socket));
  // Node hands CONNECT over as a raw socket (a tunnel request): Atrium is no proxy.
  server.on('connect', (req: IncomingMessage, socket: Duplex) => {
    endSocket(socket, '501 Not Implemented', unsupportedMethod('CONNECT', req.url ?? '', (name) => req.headers[name] as string | undefined), `allow: ${ALLOW}\r\n`);
  });
  // The message center's e-mail and retention job runs on every instance (rows are claimed with SKIP LOCKED).
  const stopMessageJob = startMessageJob(runtime);
  // The message hub subscribes to the bus now, not at the first count: no drop may be missed.
  const hub = hubFor(runtime.bus, runtime.db);
  server.once('close', () => { stopMessageJob(); hub.close(); });
  return { server, inFlight: () => inFlight, drain: () => { shuttingDown = true; closeStreams(); } };
}
