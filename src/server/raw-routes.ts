// The API paths the Node server answers itself, before Astro (uploads stream to disk, message
// streams stay open, the badge's poll and chat questions skip Astro's start cost), each declared
// once with its access rule. The declaration is what refuses: `answerRaw` checks the declared rule
// with the middleware's own function (lib/server/pipeline/checks.ts) before the handler runs, and
// tests/integration/authz-matrix.test.ts and fuzz.test.ts call every route as this table declares.
// A path with a route file under src/pages/api (chat/send, interaction/count) takes that file's
// declaration: the file is where a reader starts, and it names the handler here.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Runtime } from '../lib/server/runtime';
import type { RequestBasics } from '../lib/server/request-context';
import { apiLocale } from '../lib/server/http';
import { clientAddress, holdsDeclaredRule, nodeHeaders, noPermission, resolveRequestSession, writeEnvelope } from '../lib/server/pipeline/checks';
import type { RawCall } from './raw-call';
import { DEVELOPERS, MEMBERS, routeAccess, type RouteAccess } from '../lib/shared/access';
import { access as chatSendAccess } from '../pages/api/chat/send';
import { access as countAccess } from '../pages/api/interaction/count';
import { handlePackageUpload, handleUpload } from './upload';
import { answerCount, handleStream } from './stream';
import { handleChatSend } from './chat-send';
import { replyAfterBody } from './drain';

export interface RawRoute {
  method: 'GET' | 'POST';
  access: RouteAccess;
  /**
   * Answered before the server's request-body limit and page headers: the handler reads its own
   * body with its own limit (uploads), or has none (streams, the count).
   */
  early: boolean;
  /** Only requests with this query string; the others go to the Astro route of the same path. */
  takes?: (query: string) => boolean;
  /** Answers the call; false leaves it to the Astro route of the same path. */
  answer: (req: IncomingMessage, res: ServerResponse, call: RawCall) => Promise<void | boolean>;
}

const COUNT_QUERY = /^(?:\?(?:push=(?:0|1|true|false))?)?$/;

export const RAW_ROUTES: ReadonlyMap<string, RawRoute> = new Map<string, RawRoute>([
  /** src/server/upload.ts handleUpload: a member's file, streamed to disk. */
  ['/api/ajax/upload', { method: 'POST', early: true, access: routeAccess({ POST: { ...MEMBERS } }), answer: handleUpload }],
  /** src/server/upload.ts handlePackageUpload: an approved developer's module package. */
  ['/api/developer/package', { method: 'POST', early: true, access: routeAccess({ POST: { ...DEVELOPERS } }), answer: handlePackageUpload }],
  /** src/server/stream.ts handleStream: the member's own message events (server-sent). */
  ['/api/interaction/stream', { method: 'GET', early: true, access: routeAccess({ GET: { ...MEMBERS } }), answer: handleStream }],
  /** src/server/stream.ts answerCount: the badge's poll in its common case (src/pages/api/interaction/count.ts answers the rest). */
  ['/api/interaction/count', { method: 'GET', early: true, access: countAccess, takes: (query) => COUNT_QUERY.test(query), answer: answerCount }],
  /** src/server/chat-send.ts handleChatSend: a question (src/pages/api/chat/send.ts serves `astro dev`). */
  ['/api/chat/send', { method: 'POST', early: false, access: chatSendAccess, answer: handleChatSend }],
]);

/** The raw route for a request, if the Node server answers it itself. */
export function rawRoute(pathname: string, method: string | undefined, query: string): RawRoute | undefined {
  const route = RAW_ROUTES.get(pathname);
  if (!route || route.method !== method || (route.takes && !route.takes(query))) return undefined;
  return route;
}

/**
 * Runs the checks every raw route shares (session, the declared rule), then its handler, which runs
 * the ones it needs in its own order (origin, rate limit, body limit). False: not answered here.
 */
export async function answerRaw(route: RawRoute, req: IncomingMessage, res: ServerResponse, runtime: Runtime, basics: RequestBasics): Promise<boolean> {
  const header = nodeHeaders(req);
  const locale = apiLocale(header, basics.locale);
  const session = await resolveRequestSession(runtime, header);
  if (!(await holdsDeclaredRule(runtime, route.access, session.row?.groupId ?? null, basics.locale))) {
    const refusal = noPermission(locale);
    // An upload still sending is read to its end (bounded) so that it gets the reply.
    replyAfterBody(req, (close) => writeEnvelope(res, refusal.status, refusal.body, close ? { connection: 'close' } : {}));
    return true;
  }
  const address = clientAddress(header, req.socket.remoteAddress ?? '', runtime.config);
  return (await route.answer(req, res, { runtime, basics, header, locale, session, address })) !== false;
}
