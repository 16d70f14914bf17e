// `POST /api/chat/send`, answered by the Node server without Astro: when a hundred questions arrive
// together, each one's start (Astro's Request with its headers, the middleware, the route, the
// response read back out of a web stream) queued every later reply behind it. The steps are the
// middleware's and the route's, in the same order and with the same functions (session, origin
// check, API rate limit, then src/lib/server/chat/api.ts sendChat), so every reply is the one the
// Astro route (src/pages/api/chat/send.ts, which still answers under `astro dev`) would give.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Runtime } from '../lib/server/runtime';
import { fromOwnSite, isFormLike, type RequestBasics } from '../lib/server/request-context';
import { resolveRequestSession } from './upload';
import { apiLocale, envelope, errorResponse, limitReply, parseJsonBody } from '../lib/server/http';
import { forwardedClientIp } from '../lib/server/proxy';
import { compressResponse } from '../lib/server/compress';
import { withOutbox } from '../lib/server/messages/live';
import { askerFrom, sendChat } from '../lib/server/chat/api';
import type { ReplyStream } from '../lib/server/chat/reply';
import { translator } from '../lib/i18n';
import { CHAT_KEY_HEADER } from '../lib/shared/chat';
import { Code } from '../lib/shared/codes';

export const CHAT_SEND_PATH = '/api/chat/send';

/** One request header as the web Headers object gives it (repeated headers joined, absent: null). */
function header(req: IncomingMessage, name: string): string | null {
  const value = req.headers[name];
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(', ') : value;
}

/** The request body as text, decoded as `Request.text()` decodes it (UTF-8, a leading BOM dropped). */
function bodyText(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(new TextDecoder().decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks))));
    req.on('error', reject);
  });
}

/**
 * A body onto the Node response chunk by chunk, after the head; a client that goes away cancels
 * this reader only (a reply keeps running for a reload to resume it).
 */
async function writeBody(res: ServerResponse, status: number, headers: Record<string, string | string[]>, body: ReadableStream<string | Uint8Array> | null): Promise<void> {
  res.writeHead(status, headers);
  if (!body) { res.end(); return; }
  const reader = body.getReader();
  res.on('close', () => { reader.cancel().catch(() => undefined); });
  try {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) res.write(chunk.value);
    res.end();
  } catch (err) {
    res.write('Internal server error', () => (err instanceof Error ? res.destroy(err) : res.destroy()));
  }
}

/** A web Response onto the Node response, as Astro's adapter writes one. */
function writeResponse(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string | string[]> = Object.fromEntries(response.headers.entries());
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 1) headers['set-cookie'] = cookies;
  return writeBody(res, response.status, headers, response.body);
}

/** A reply's SSE text as it comes, one socket write per chunk (the reply joins what it writes in one tick). */
const writeReply = (res: ServerResponse, reply: ReplyStream, sse = reply.sse): Promise<void> => writeBody(res, 200, reply.headers, sse);

/** Answers `POST /api/chat/send`; `basics` are the request's (app.ts), already its locals. */
export async function handleChatSend(req: IncomingMessage, res: ServerResponse, runtime: Runtime, basics: RequestBasics): Promise<void> {
  const { config } = runtime;
  const locale = apiLocale((name) => header(req, name), basics.locale);
  const { row, ref, viaCookie } = await resolveRequestSession(req, runtime);

  // A session carried by cookie, or a body a plain HTML form can send, must come from our own pages.
  if ((viaCookie || isFormLike(header(req, 'content-type'))) && !fromOwnSite(header(req, 'origin') ?? header(req, 'referer'), header(req, 'host'), config.siteDomain)) {
    return writeResponse(res, envelope({ code: Code.error, msg: translator(locale, 'api')('api.forbiddenOrigin'), data: null }, 403));
  }
  const ip = forwardedClientIp(header(req, 'x-forwarded-for'), req.socket.remoteAddress ?? '', config.proxy ?? config.trustProxy ?? null);
  const limited = await limitReply(runtime.limiter, locale, `api:${ip}`, config.apiRateLimit, 60);
  if (limited) return writeResponse(res, limited);
  let response: Response;
  try {
    const reply = await withOutbox(runtime.bus, () => sendChat(runtime, askerFrom(row, ip, locale, basics.host, header(req, CHAT_KEY_HEADER)), async () => parseJsonBody(await bodyText(req))));
    // A member's reply stream ends with their session (logout, password change, blocked); the reply runs on.
    if (!(reply instanceof Response)) return writeReply(res, reply, ref ? runtime.sessions.streams.tieStream(ref, ip, reply.sse) : reply.sse);
    response = reply;
  } catch (err) {
    response = errorResponse(err, locale, basics.requestId, runtime.log.error);
  }
  // What the route answers is compressed as the middleware compresses it (the stream never is).
  return writeResponse(res, compressResponse({ headers: { get: (name: string) => header(req, name) } } as unknown as Request, response));
}
