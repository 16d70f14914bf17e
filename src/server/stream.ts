// `GET /api/interaction/stream`: the member's unread count and message events as server-sent
// events. A raw Node handler, like uploads: an idle stream must cost a few kilobytes, not a web
// stream and an Astro render. The count comes first, then every new message, read and delete
// of this member on any instance (through the bus); `id:` on every event lets a reconnect with
// `Last-Event-ID` replay what it missed; a comment every 15 s keeps proxies from closing it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Runtime } from '../lib/server/runtime';
import { hubFor, type Delivery } from '../lib/server/messages/live';
import { pollingInterval } from '../lib/server/messages/settings';
import { resolveRequestSession, resolveUploadUser } from './upload';
import { forwardedClientIp } from '../lib/server/proxy';
import { translateAny, type Locale } from '../lib/i18n';
import { Code } from '../lib/shared/codes';
import { STREAM_HEARTBEAT } from '../lib/shared/messages';
import type { CloseReason } from '../lib/server/auth/session-streams';

export const STREAM_PATH = '/api/interaction/stream';
export const COUNT_PATH = '/api/interaction/count';

/** Every open stream of the process, for the shared heartbeat and for closing at shutdown. */
const open = new Set<ServerResponse>();
let heartbeat: NodeJS.Timeout | null = null;
const PING = ':\n\n';

function startHeartbeat(): void {
  if (heartbeat) return;
  heartbeat = setInterval(() => {
    for (const res of open) res.write(PING);
    if (!open.size && heartbeat) { clearInterval(heartbeat); heartbeat = null; }
  }, STREAM_HEARTBEAT * 1000);
  heartbeat.unref();
}

/** Ends every open stream (shutdown): browsers reconnect to another instance with their last id. */
export function closeStreams(): void {
  for (const res of open) res.end();
  open.clear();
}

export function openStreamCount(): number {
  return open.size;
}

/**
 * The caller's address, as the API rate limit keys it everywhere else (middleware.ts): behind a
 * trusted proxy the entry that proxy added (the right-most), never one the client wrote itself.
 */
function clientAddress(req: IncomingMessage, runtime: Runtime): string {
  const forwarded = req.headers['x-forwarded-for'];
  return forwardedClientIp(Array.isArray(forwarded) ? forwarded.join(',') : forwarded, req.socket.remoteAddress ?? '', runtime.config.proxy ?? runtime.config.trustProxy);
}

function frame(d: Delivery): string {
  return `id: ${d.id}\nevent: ${d.kind}\ndata: ${JSON.stringify({ ...d.data, count: d.count })}\n\n`;
}

function refuse(res: ServerResponse, code: number, msg: string, data: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(JSON.stringify({ code, msg, data, time: Math.floor(Date.now() / 1000) }));
}

/**
 * The last event of a stream the server ends: its session ended (logout, password change, blocked),
 * its token expired, or a newer stream of the member or address took its place (the caps). The
 * page stops reconnecting and polls the count, which tells a logged-out page so.
 */
function endFrame(reason: CloseReason): string {
  return `event: end\ndata: ${JSON.stringify({ reason })}\n\n`;
}

export async function handleStream(req: IncomingMessage, res: ServerResponse, runtime: Runtime, locale: Locale): Promise<void> {
  const auth = await resolveRequestSession(req, runtime);
  if (!auth.row || !auth.ref) {
    if (auth.tokenExpired) return refuse(res, Code.tokenExpired, translateAny(locale, 'api.tokenExpired'), null);
    return refuse(res, Code.login, translateAny(locale, 'api.needLogin'), { type: 'need login' });
  }
  const address = clientAddress(req, runtime);
  // Opening a stream counts against the API rate limit like any call, so reconnect storms stay bounded.
  const limited = await runtime.limiter.hit(`api:${address}`, runtime.config.apiRateLimit, 60);
  if (!limited.allowed) {
    res.writeHead(429, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'retry-after': String(limited.retryAfter) });
    res.end(JSON.stringify({ code: Code.error, msg: translateAny(locale, 'api.rateLimited', { seconds: limited.retryAfter }), data: null, time: Math.floor(Date.now() / 1000) }));
    return;
  }
  const userId = auth.row.id;
  const rawLast = String(req.headers['last-event-id'] ?? new URL(req.url ?? '/', 'http://x').searchParams.get('lastEventId') ?? '');
  const last = /^\d{1,10}$/.test(rawLast) ? Number(rawLast) : null;
  const hub = hubFor(runtime.bus, runtime.db);
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store, no-transform',
    'x-accel-buffering': 'no',
    connection: 'keep-alive',
  });
  res.socket?.setNoDelay(true);
  res.socket?.setTimeout(0);
  // Events that arrive while the backlog is read wait, so nothing is sent twice or out of order.
  let pending: Delivery[] | null = [];
  let sentUpTo = 0;
  let closed = false;
  const send = (d: Delivery): void => {
    if (d.id <= sentUpTo || closed) return;
    sentUpTo = d.id;
    res.write(frame(d));
  };
  const unsubscribe = hub.subscribe(userId, (d) => { if (pending) pending.push(d); else send(d); });
  let release: () => void = () => undefined;
  res.once('close', () => { closed = true; unsubscribe(); release(); open.delete(res); });
  // Held until the session ends (on any instance) or the token expires; past the caps the oldest goes.
  release = runtime.sessions.streams.register({
    ref: auth.ref, address, capped: true,
    close: (reason) => {
      if (closed) return;
      closed = true;
      unsubscribe();
      open.delete(res);
      res.end(endFrame(reason));
    },
  });
  try {
    const { events, lastId } = await hub.replay(userId, last);
    const count = await hub.count(userId);
    if (closed) return;
    res.write('retry: 2000\n\n');
    for (const e of events) res.write(`id: ${e.id}\nevent: ${e.kind}\ndata: ${JSON.stringify(e.data)}\n\n`);
    sentUpTo = lastId;
    res.write(`id: ${lastId}\nevent: count\ndata: ${JSON.stringify({ count })}\n\n`);
    const waiting = pending;
    pending = null;
    for (const d of waiting) send(d);
    open.add(res);
    startHeartbeat();
  } catch (err) {
    runtime.log.warn('message stream failed', { err: String(err) });
    res.end();
  }
}

const COUNT_QUERY = /^(?:\?(?:push=(?:0|1|true|false))?)?$/;

/**
 * The badge's poll, `GET /api/interaction/count`, answered here without Astro when it is the
 * common case (a valid token, no or a plain `push` parameter, within the rate limit): the count
 * comes from memory, so the request costs a token lookup and a write. Returns false to let the
 * Astro route answer everything else (login required, expired token, bad input, 429), so every
 * reply is the same as the route's.
 */
export async function answerCount(req: IncomingMessage, res: ServerResponse, runtime: Runtime, query: string): Promise<boolean> {
  if (!COUNT_QUERY.test(query)) return false;
  const auth = await resolveUploadUser(req, runtime);
  if (!auth.user) return false;
  const limited = await runtime.limiter.hit(`api:${clientAddress(req, runtime)}`, runtime.config.apiRateLimit, 60);
  if (!limited.allowed) return false;
  const push = query === '?push=1' || query === '?push=true';
  const [count, interval] = await Promise.all([hubFor(runtime.bus, runtime.db).count(auth.user.id), pollingInterval(runtime.site, push)]);
  const body = JSON.stringify({ code: Code.ok, msg: '', data: { count, pollingInterval: interval }, time: Math.floor(Date.now() / 1000) });
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'content-length': Buffer.byteLength(body) });
  res.end(body);
  return true;
}
