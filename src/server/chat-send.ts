// `POST /api/chat/send`, answered by the Node server without Astro: when a hundred questions arrive
// together, each one's start (Astro's Request with its headers, the middleware, the route, the
// response read back out of a web stream) queued every later reply behind it. The route file,
// src/pages/api/chat/send.ts, declares who may call it (src/server/raw-routes.ts takes that
// declaration) and still answers under `astro dev`. The steps are the middleware's, with the same
// functions (lib/server/pipeline/checks.ts: session, declared rule, origin, API rate limit), then
// the route's (src/lib/server/chat/api.ts sendChat), so every reply is the one the route would give.
// The checks before the question (origin, rate limit) are the route's declared `checks` (raw-routes.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorResponse, parseJsonBody } from '../lib/server/http';
import { compressResponse } from '../lib/server/compress';
import { withOutbox } from '../lib/server/messages/live';
import { askerFrom, sendChat } from '../lib/server/chat/api';
import type { ReplyStream } from '../lib/server/chat/reply';
import { CHAT_KEY_HEADER } from '../lib/shared/chat';
import type { RawCall } from './raw-call';

export const CHAT_SEND_PATH = '/api/chat/send';


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

/** Answers `POST /api/chat/send`; the request's basics (app.ts) are already its locals. */
export async function handleChatSend(req: IncomingMessage, res: ServerResponse, call: RawCall): Promise<void> {
  const { runtime, basics, header, locale, address: ip } = call;
  const { row, ref } = call.session;

  // From our own pages (a cookie session or a body a plain form can send), within the API rate limit: checked before (raw-routes.ts).
  let response: Response;
  try {
    const reply = await withOutbox(runtime.bus, () => sendChat(runtime, askerFrom(row, ip, locale, basics.host, header(CHAT_KEY_HEADER)), async () => parseJsonBody(await bodyText(req))));
    // A member's reply stream ends with their session (logout, password change, blocked); the reply runs on.
    if (!(reply instanceof Response)) return writeReply(res, reply, ref ? runtime.sessions.streams.tieStream(ref, ip, reply.sse) : reply.sse);
    response = reply;
  } catch (err) {
    response = errorResponse(err, locale, basics.requestId, runtime.log.error);
  }
  // What the route answers is compressed as the middleware compresses it (the stream never is).
  return writeResponse(res, compressResponse({ headers: { get: header } } as unknown as Request, response));
}
