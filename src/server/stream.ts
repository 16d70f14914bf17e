// `GET /api/interaction/stream`: the member's unread count and message events as server-sent
// events. A raw Node handler, like uploads: an idle stream must cost a few kilobytes, not a web
// stream and an Astro render. The count comes first, then every new message, read and delete
// of this member on any instance (through the bus); `id:` on every event lets a reconnect with
// `Last-Event-ID` replay what it missed; a comment every 15 s keeps proxies from closing it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { hubFor, type Delivery } from '../lib/server/messages/live';
import { pollingInterval } from '../lib/server/messages/settings';
import { writeEnvelope } from '../lib/server/pipeline/checks';
import { Code } from '../lib/shared/codes';
import type { RawCall } from './raw-call';
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

function frame(d: Delivery): string {
  return `id: ${d.id}\nevent: ${d.kind}\ndata: ${JSON.stringify({ ...d.data, count: d.count })}\n\n`;
}

/**
 * The last event of a stream the server ends: its session ended (logout, password change, blocked),
 * its token expired, or a newer stream of the member or address took its place (the caps). The
 * page stops reconnecting and polls the count, which tells a logged-out page so.
 */
function endFrame(reason: CloseReason): string {
  return `event: end\ndata: ${JSON.stringify({ reason })}\n\n`;
}

/** `GET /api/interaction/stream` (src/server/raw-routes.ts). */
export async function handleStream(req: IncomingMessage, res: ServerResponse, call: RawCall): Promise<void> {
  const { runtime, session: auth, address } = call;
  // A member within the API rate limit: checked before (raw-routes.ts).
  if (!auth.row || !auth.ref) return;
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

/**
 * The badge's poll, `GET /api/interaction/count`, answered here without Astro when it is the
 * common case (a valid token, no or a plain `push` parameter, within the rate limit): the count
 * comes from memory, so the request costs a token lookup and a write. Returns false to let the
 * Astro route answer everything else (login required, expired token, bad input, 429), so every
 * reply is the same as the route's.
 */
export async function answerCount(req: IncomingMessage, res: ServerResponse, call: RawCall): Promise<boolean> {
  const { runtime, session } = call;
  if (!session.row) return false;
  const limited = await runtime.limiter.hit(`api:${call.address}`, runtime.config.apiRateLimit, 60);
  if (!limited.allowed) return false;
  const url = req.url ?? '';
  const query = url.includes('?') ? url.slice(url.indexOf('?')) : '';
  const push = query === '?push=1' || query === '?push=true';
  const [count, interval] = await Promise.all([hubFor(runtime.bus, runtime.db).count(session.row.id), pollingInterval(runtime.site, push)]);
  writeEnvelope(res, 200, { code: Code.ok, msg: '', data: { count, pollingInterval: interval } });
  return true;
}
