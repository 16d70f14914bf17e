// The checks every API call goes through, as plain functions: the Astro middleware (src/middleware.ts)
// composes them for the route files under src/pages/api, the Node server (src/server/raw-routes.ts)
// for the few paths it answers before Astro. Each takes what it needs (a header reader, the runtime)
// and answers a value or a refusal; neither side writes its own copy of a check.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Runtime } from '../runtime';
import type { Locale } from '../../i18n';
import { translateAny } from '../../i18n';
import { Code, type Envelope } from '../../shared/codes';
import { declaredRules, type RouteAccess } from '../../shared/access';
import { fromOwnSite, isFormLike, readCookie, SESSION_COOKIE } from '../request-context';
import { envelopeText } from '../http';
import { hasRule } from '../auth/guard';
import { resolveAccessToken, type Resolved } from '../auth/sessions';
import type { SessionRef } from '../auth/session-streams';

/** One request header by its lower-case name (repeated headers joined with `, `; absent: null or undefined). */
export type HeaderOf = (name: string) => string | null | undefined;

/** The header reader of a Node request, giving what the web `Headers.get` gives. */
export function nodeHeaders(req: IncomingMessage): (name: string) => string | null {
  return (name) => {
    const value = req.headers[name];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(', ') : value;
  };
}

// ---------------------------------------------------------------------------------------------
// Session

/** The access token an API client sends in a header: `ba-user-token`, or BuildAdmin's `bausertoken`. */
export function headerToken(header: HeaderOf): string {
  return header('ba-user-token') || header('bausertoken') || '';
}

export interface RequestSession {
  row: (Resolved & { state: 'ok' })['row'] | null;
  ref?: SessionRef;
  tokenExpired: boolean;
  /** The token came from the cookie, not the header: a state-changing call must come from our own pages. */
  viaCookie: boolean;
}

/**
 * The member behind an API call: the header token, else the session cookie. No renewal from the
 * refresh cookie (the middleware does that for page loads only).
 */
export async function resolveRequestSession(runtime: Runtime, header: HeaderOf): Promise<RequestSession> {
  const fromHeader = headerToken(header);
  const value = fromHeader || readCookie(header('cookie'), SESSION_COOKIE) || '';
  if (!value) return { row: null, tokenExpired: false, viaCookie: false };
  const resolved = await resolveAccessToken(runtime.db, runtime.tokenSecret, value, runtime.sessions);
  if (resolved.state === 'ok') return { row: resolved.row, ref: resolved.ref, tokenExpired: false, viaCookie: !fromHeader };
  return { row: null, tokenExpired: resolved.state === 'expired', viaCookie: false };
}

// ---------------------------------------------------------------------------------------------
// Client address (request-context.ts clientAddress), origin

export { clientAddress } from '../request-context';

/**
 * Whether a call that changes state must be refused as cross-site: its session came from the cookie
 * (or, with `formLike`, its body is one a plain HTML form can send) and neither Origin nor Referer
 * names one of the site's hosts. Reads are never refused.
 */
export function crossSite(header: HeaderOf, method: string, viaCookie: boolean, siteDomain: string | null, formLike = true): boolean {
  if (method === 'GET' || method === 'HEAD' || method === 'OPTIONS') return false;
  if (!viaCookie && !(formLike && isFormLike(header('content-type')))) return false;
  return !fromOwnSite(header('origin') ?? header('referer'), header('host'), siteDomain);
}

// ---------------------------------------------------------------------------------------------
// The route's declared rule

/**
 * The rule a route declares (`access.rule`, src/lib/shared/access.ts) is what refuses: a member whose
 * group holds none of them may not call it, whatever the handler checks. Visitors pass (the handler
 * asks them to log in, or serves what visitors may have). False: refuse with `noPermission()`.
 */
export async function holdsDeclaredRule(runtime: Runtime, access: RouteAccess | undefined, groupId: number | null, locale: Locale): Promise<boolean> {
  if (groupId === null) return true;
  const rules = declaredRules(access);
  if (!rules.length) return true;
  for (const rule of rules) if (await hasRule(runtime, groupId, locale, rule)) return true;
  return false;
}

// ---------------------------------------------------------------------------------------------
// Refusals and the envelope

/** A check's refusal: the envelope and its HTTP status (and headers such as `retry-after`). */
export interface Refusal {
  status: number;
  body: Omit<Envelope<unknown>, 'time'>;
  headers?: Record<string, string>;
}

export const noPermission = (locale: Locale): Refusal => ({ status: 200, body: { code: Code.noPermission, msg: translateAny(locale, 'api.noPermission'), data: null } });
export const forbiddenOrigin = (locale: Locale): Refusal => ({ status: 403, body: { code: Code.error, msg: translateAny(locale, 'api.forbiddenOrigin'), data: null } });
/** A call that needs a member: `tokenExpired` when the token ran out (with `expiredData`), else `need login`. */
export const needLogin = (locale: Locale, tokenExpired: boolean, expiredData: unknown = null): Refusal => (tokenExpired
  ? { status: 200, body: { code: Code.tokenExpired, msg: translateAny(locale, 'api.tokenExpired'), data: expiredData } }
  : { status: 200, body: { code: Code.login, msg: translateAny(locale, 'api.needLogin'), data: { type: 'need login' } } });

/**
 * Counts one call on `key` (`limit` per minute): the 429 refusal past it, else null. The same count
 * the middleware's API limit keeps (`api:<address>`), or a route's own (`upload:<member>`).
 */
export async function rateLimited(runtime: Pick<Runtime, 'limiter'>, locale: Locale, key: string, limit: number, windowSeconds = 60): Promise<Refusal | null> {
  const result = await runtime.limiter.hit(key, limit, windowSeconds);
  if (result.allowed) return null;
  return { status: 429, body: { code: Code.error, msg: translateAny(locale, 'api.rateLimited', { seconds: result.retryAfter }), data: null }, headers: { 'retry-after': String(result.retryAfter) } };
}

export { envelopeText };

/** Writes an envelope onto a Node response (the Node server's counterpart of http.ts `envelope()`). */
export function writeEnvelope(res: ServerResponse, status: number, body: Omit<Envelope<unknown>, 'time'>, headers: Record<string, string> = {}): void {
  const text = envelopeText(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'content-length': String(Buffer.byteLength(text)), ...headers });
  res.end(text);
}
