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
import { clientAddress, crossSite, forbiddenOrigin, holdsDeclaredRule, needLogin, nodeHeaders, noPermission, rateLimited, resolveRequestSession, writeEnvelope, type Refusal } from '../lib/server/pipeline/checks';
import type { RawCall } from './raw-call';
import { DEVELOPERS, MEMBERS, routeAccess, type RouteAccess } from '../lib/shared/access';
import { access as chatSendAccess } from '../pages/api/chat/send';
import { access as countAccess } from '../pages/api/interaction/count';
import { handlePackageUpload, handleUpload, PACKAGES_PER_MINUTE, UPLOADS_PER_MINUTE } from './upload';
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
  /** What the call must pass after the declared rule, checked by `answerRaw` in one order before the handler runs. */
  checks?: RawChecks;
  /** Answers the call; false leaves it to the Astro route of the same path. */
  answer: (req: IncomingMessage, res: ServerResponse, call: RawCall) => Promise<void | boolean>;
}

/** The checks a raw route needs, run in this order (the middleware's order for Astro routes). */
export interface RawChecks {
  /** A member: a visitor gets "need login", an expired token 409. */
  login?: true;
  /**
   * A session carried by cookie must come from our own pages; with `forms`, so must a body a plain
   * HTML form can send (JSON bodies only: an upload is multipart by nature, and needs a session).
   */
  origin?: { forms: boolean };
  /** The call counts on this key, `perMinute` a minute (429 past it). */
  limit?: (call: RawCall) => { key: string; perMinute: number };
}

/** The API rate limit every call shares, per address (the middleware's). */
const apiLimit = (call: RawCall): { key: string; perMinute: number } => ({ key: `api:${call.address}`, perMinute: call.runtime.config.apiRateLimit });
/** A member's own allowance of `kind` calls a minute (uploads). */
const memberLimit = (kind: string, perMinute: number) => (call: RawCall): { key: string; perMinute: number } => ({ key: `${kind}:${call.session.row?.id ?? 0}`, perMinute });

const COUNT_QUERY = /^(?:\?(?:push=(?:0|1|true|false))?)?$/;

export const RAW_ROUTES: ReadonlyMap<string, RawRoute> = new Map<string, RawRoute>([
  /** src/server/upload.ts handleUpload: a member's file, streamed to disk. */
  ['/api/ajax/upload', {
    method: 'POST', early: true, access: routeAccess({ POST: { ...MEMBERS } }),
    checks: { login: true, origin: { forms: false }, limit: memberLimit('upload', UPLOADS_PER_MINUTE) }, answer: handleUpload,
  }],
  /** src/server/upload.ts handlePackageUpload: an approved developer's module package. */
  ['/api/developer/package', {
    method: 'POST', early: true, access: routeAccess({ POST: { ...DEVELOPERS } }),
    checks: { login: true, origin: { forms: false }, limit: memberLimit('package', PACKAGES_PER_MINUTE) }, answer: handlePackageUpload,
  }],
  /** src/server/stream.ts handleStream: the member's own message events (server-sent). Opening one counts as a call, so reconnect storms stay bounded. */
  ['/api/interaction/stream', { method: 'GET', early: true, access: routeAccess({ GET: { ...MEMBERS } }), checks: { login: true, limit: apiLimit }, answer: handleStream }],
  /** src/server/stream.ts answerCount: the badge's poll in its common case (src/pages/api/interaction/count.ts answers the rest). */
  ['/api/interaction/count', { method: 'GET', early: true, access: countAccess, takes: (query) => COUNT_QUERY.test(query), answer: answerCount }],
  /** src/server/chat-send.ts handleChatSend: a question (src/pages/api/chat/send.ts serves `astro dev`). */
  ['/api/chat/send', { method: 'POST', early: false, access: chatSendAccess, checks: { origin: { forms: true }, limit: apiLimit }, answer: handleChatSend }],
]);

/** The raw route for a request, if the Node server answers it itself. */
export function rawRoute(pathname: string, method: string | undefined, query: string): RawRoute | undefined {
  const route = RAW_ROUTES.get(pathname);
  if (!route || route.method !== method || (route.takes && !route.takes(query))) return undefined;
  return route;
}

/** The first check of `checks` the call fails, or null. */
async function refusalOf(checks: RawChecks, call: RawCall, method: string): Promise<Refusal | null> {
  const { session, locale, runtime } = call;
  if (checks.login && !session.row) return needLogin(locale, session.tokenExpired, []);
  if (checks.origin && crossSite(call.header, method, session.viaCookie, runtime.config.siteDomain, checks.origin.forms)) return forbiddenOrigin(locale);
  if (checks.limit) {
    const { key, perMinute } = checks.limit(call);
    return rateLimited(runtime, locale, key, perMinute);
  }
  return null;
}

/**
 * Runs the checks of a raw route in one order (session, the declared rule, then its `checks`:
 * login, origin, rate limit), then its handler, which adds only its own (body size, input).
 * False: not answered here.
 */
export async function answerRaw(route: RawRoute, req: IncomingMessage, res: ServerResponse, runtime: Runtime, basics: RequestBasics): Promise<boolean> {
  const header = nodeHeaders(req);
  const locale = apiLocale(header, basics.locale);
  const session = await resolveRequestSession(runtime, header);
  const address = clientAddress(header, req.socket.remoteAddress ?? '', runtime.config);
  const call: RawCall = { runtime, basics, header, locale, session, address };
  const refusal = (await holdsDeclaredRule(runtime, route.access, session.row?.groupId ?? null, basics.locale))
    ? route.checks && await refusalOf(route.checks, call, req.method ?? 'GET')
    : noPermission(locale);
  if (refusal) {
    // An upload still sending is read to its end (bounded) so that it gets the reply.
    replyAfterBody(req, (close) => writeEnvelope(res, refusal.status, refusal.body, { 'x-content-type-options': 'nosniff', ...refusal.headers, ...(close ? { connection: 'close' } : {}) }));
    return true;
  }
  return (await route.answer(req, res, call)) !== false;
}
