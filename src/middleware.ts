import type { APIContext } from 'astro';
import { defineMiddleware } from 'astro:middleware';
import { REFRESH_COOKIE, SESSION_COOKIE, USER_INFO_COOKIE, requestBasics } from './lib/server/request-context';
import { Code } from './lib/shared/codes';
import { RefreshRaceError, refreshSession, resolveAccessToken, type Resolved } from './lib/server/auth/sessions';
import { clearSessionCookie, cookieScope, setSessionCookies, setUserInfoCookie, userInfoCookieValue } from './lib/server/auth/guard';
import { assertRouteMiddleware, matchRoute } from './lib/shared/routes';
import { normalizeApiPath } from './lib/shared/hosts';
import { apiLocale, envelope, errorResponse, isBadInputError, rateLimitReply, requestIp } from './lib/server/http';
import { crossSite, forbiddenOrigin, headerToken, holdsDeclaredRule, noPermission } from './lib/server/pipeline/checks';
import { CONTROL_CHARS } from './lib/shared/validation/common';
import { translator } from './lib/i18n';
import { ROUTE_MIDDLEWARE } from './lib/server/route-middleware';
import { getDevRuntime } from './lib/server/boot/dev-runtime';
import { appLocals } from './lib/server/app-locals';
import { PageCache } from './lib/server/page-cache';
import { compressResponse, pickEncoding } from './lib/server/compress';
import type { RouteAccess } from './lib/shared/access';

// Fail at start, not at the first request to a page, when a route names an unknown middleware.
assertRouteMiddleware(Object.keys(ROUTE_MIDDLEWARE));

export const onRequest = defineMiddleware(async (ctx, next) => {
  const { locals, request, url } = ctx;
  // The Atrium server passes its runtime in `locals`, or, for the 404 page of an unmatched URL that
  // the adapter renders without them, in the request's async context. Only under `astro dev`, with
  // no Atrium server in front, is a runtime built here.
  if (!locals.runtime) {
    const passed = appLocals.getStore();
    if (passed) Object.assign(locals, passed);
    else if (import.meta.env.DEV) locals.runtime = await getDevRuntime();
    else throw new Error('no runtime: requests must come through the Atrium server (src/server/app.ts)');
  }
  if (!locals.requestId) {
    Object.assign(locals, requestBasics({
      cookie: request.headers.get('cookie'),
      acceptLanguage: request.headers.get('accept-language'),
      host: request.headers.get('host'),
    }, locals.runtime.config.siteDomain));
  }
  locals.cacheTags ??= null;
  locals.apiLocale = apiLocale((name) => request.headers.get(name), locals.locale);
  if (locals.user === undefined) await resolveSession(ctx);

  if (url.pathname.startsWith('/api/')) {
    // Controllers are case-insensitive (`/api/Cos/callback`); the server lower-cases them, `astro dev` here.
    const normal = normalizeApiPath(url.pathname);
    if (normal !== url.pathname) return ctx.rewrite(normal + url.search);
    // A session carried by cookie must come from our own pages for anything that changes state, and
    // so must a body a plain HTML form can send cross-site (Astro's own check is off: it answered text).
    if (crossSite((name) => request.headers.get(name), request.method, !!locals.session?.viaCookie, locals.runtime.config.siteDomain)) {
      const refusal = forbiddenOrigin(locals.apiLocale);
      return envelope(refusal.body, refusal.status);
    }
    const limited = await rateLimitReply(ctx, `api:${requestIp(ctx)}`, locals.runtime.config.apiRateLimit, 60);
    if (limited) return limited;
    let response: Response;
    try {
      response = (await refusedByDeclaredRule(ctx)) ?? await next();
      // An endpoint without a handler for this method: Astro answers its HTML 404 page.
      if (response.status === 404 && !(response.headers.get('content-type') ?? '').includes('json')) response = await wrongMethod(ctx, response);
    } catch (err) {
      response = errorResponse(err, locals.apiLocale, locals.requestId, locals.runtime.log.error);
    }
    return compressResponse(request, response);
  }

  // No page takes a form post: one from another site is refused, as Astro's origin check did.
  if (crossSite((name) => request.headers.get(name), request.method, false, locals.runtime.config.siteDomain)) {
    return new Response('Cross-site form submissions are forbidden', { status: 403, headers: { 'content-type': 'text/plain; charset=utf-8' } });
  }

  // Pages: the route table decides parameters and route middleware before the page renders.
  if (locals.route === undefined) {
    locals.route = matchRoute(url.pathname);
    if (locals.route && !locals.route.valid) return new Response(null, { status: 404 });
    // A control character (NUL…) in the query is nothing any page can look up.
    if (url.search && hasControlChars(url.searchParams)) return new Response(null, { status: 404 });
    for (const name of locals.route?.route.middleware ?? []) {
      const stop = await ROUTE_MIDDLEWARE[name as keyof typeof ROUTE_MIDDLEWARE](ctx);
      if (stop) return stop;
    }
  }
  const generation = locals.runtime.pageCache.generation;
  let rendered: Response;
  try {
    rendered = await next();
  } catch (err) {
    // Input the database refused (a number beyond its column): nothing to show, not a server fault.
    if (isBadInputError(err)) return new Response(null, { status: 404 });
    throw err;
  }
  const response = await maybeCache(request, locals, rendered, generation);
  return compressResponse(request, response);
});

/** Stores a page every visitor sees alike; the server answers the next identical request from memory. */
async function maybeCache(request: Request, locals: App.Locals, response: Response, generation: number): Promise<Response> {
  if (!locals.cacheTags || locals.user || request.method !== 'GET' || response.status !== 200 || response.headers.has('set-cookie')) return response;
  const body = Buffer.from(await response.arrayBuffer());
  const headers: Record<string, string> = {};
  response.headers.forEach((value, key) => { headers[key] = value; });
  headers['cache-control'] = 'no-cache';
  headers.vary = 'Cookie, Accept-Language, Accept-Encoding';
  const url = new URL(request.url);
  const key = PageCache.key(request.headers.get('host') ?? '', url.pathname + url.search, locals.locale, locals.theme);
  const entry = await locals.runtime.pageCache.set(key, { status: 200, headers, body, tags: locals.cacheTags }, generation);
  if (!entry) return new Response(new Uint8Array(body), { status: 200, headers });
  const encoding = pickEncoding(request.headers.get('accept-encoding') ?? undefined);
  const out: Record<string, string> = { ...headers, etag: entry.etag };
  delete out['content-length'];
  if (encoding !== 'identity') out['content-encoding'] = encoding;
  const chosen = encoding === 'identity' ? body : entry[encoding];
  return new Response(new Uint8Array(chosen.buffer as ArrayBuffer, chosen.byteOffset, chosen.byteLength), { status: 200, headers: out });
}

// Every API module, loaded only to learn which methods a path answers when a request used another.
const API_MODULES = import.meta.glob<Record<string, unknown>>('./pages/api/**/*.ts');
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/**
 * The rule an API route declares (`export const access`, src/lib/shared/access.ts) is what refuses:
 * a member whose group holds none of them gets 401 before the handler runs, whatever the handler
 * checks (the same check the Node server runs for the paths it answers: src/server/raw-routes.ts).
 */
async function refusedByDeclaredRule(ctx: APIContext): Promise<Response | null> {
  const session = ctx.locals.session;
  if (!session) return null;
  const load = apiModule(ctx.url.pathname);
  if (!load) return null;
  const access = (await load()).access as RouteAccess | undefined;
  if (await holdsDeclaredRule(ctx.locals.runtime, access, session.row.groupId, ctx.locals.locale)) return null;
  const refusal = noPermission(ctx.locals.apiLocale);
  return envelope(refusal.body, refusal.status);
}

function apiModule(pathname: string): (() => Promise<Record<string, unknown>>) | undefined {
  const path = pathname.replace(/\/+$/, '');
  return API_MODULES[`./pages${path}.ts`] ?? API_MODULES[`./pages${path}/index.ts`];
}

/**
 * 405 with `Allow` when the path has handlers for other methods only; the API's 404 envelope when
 * it has none; the handler's own 404 (a file not found, say) when it does answer this method.
 */
async function wrongMethod(ctx: APIContext, response: Response): Promise<Response> {
  const t = translator(ctx.locals.apiLocale, 'api');
  const load = apiModule(ctx.url.pathname);
  const mod = load ? await load() : null;
  const method = ctx.request.method === 'HEAD' && typeof mod?.GET === 'function' ? 'GET' : ctx.request.method;
  if (mod && (typeof mod[method] === 'function' || typeof mod.ALL === 'function')) return response;
  const allowed = mod ? METHODS.filter((m) => typeof mod[m] === 'function' || (m === 'HEAD' && typeof mod.GET === 'function')) : [];
  if (!allowed.length) return envelope({ code: Code.error, msg: t('api.notFound', { path: ctx.url.pathname }), data: null }, 404);
  return envelope({ code: Code.error, msg: t('api.methodNotAllowed', { method: ctx.request.method }), data: null }, 405, { allow: allowed.join(', ') });
}

function hasControlChars(params: URLSearchParams): boolean {
  for (const [k, v] of params) if (CONTROL_CHARS.test(k) || CONTROL_CHARS.test(v)) return true;
  return false;
}

/**
 * Finds the member behind the request: header `ba-user-token` (API clients) or the HttpOnly cookie
 * (pages). A page request whose access token expired is renewed from the refresh cookie, so "keep
 * me logged in" survives the 3-day access token.
 */
async function resolveSession(ctx: APIContext): Promise<void> {
  const { locals, request, cookies } = ctx;
  locals.user = null;
  const header = headerToken((name) => request.headers.get(name));
  const cookie = cookies.get(SESSION_COOKIE)?.value ?? '';
  const refresh = header ? '' : cookies.get(REFRESH_COOKIE)?.value ?? '';
  const value = header || cookie;
  const page = request.method === 'GET' && !ctx.url.pathname.startsWith('/api/');
  if (!value && !refresh) {
    // A user-info cookie outlived its session (the browser kept it, the tokens are gone): a page
    // load drops it, so the site's scripts do not take the reader for a member.
    if (page && cookies.has(USER_INFO_COOKIE)) clearSessionCookie(cookies, cookieScope(ctx));
    return;
  }
  const { runtime } = locals;
  let resolved: Resolved = value ? await resolveAccessToken(runtime.db, runtime.tokenSecret, value, runtime.sessions) : { state: 'none' };
  let renewedNow = false;
  let raced = false;
  if (resolved.state !== 'ok' && refresh && page) {
    try {
      const renewed = await refreshSession(runtime.db, runtime.tokenSecret, refresh, cookie, runtime.sessions);
      setSessionCookies(cookies, renewed.token, renewed.refreshToken, cookieScope(ctx));
      resolved = await resolveAccessToken(runtime.db, runtime.tokenSecret, renewed.token, runtime.sessions);
      renewedNow = true;
    } catch (err) {
      // Two tabs renewing at once: the other one already did; this request goes on as a visitor.
      raced = err instanceof RefreshRaceError;
    }
  }
  if (resolved.state === 'expired') locals.tokenExpired = true;
  if (resolved.state !== 'ok') {
    // A page load with cookies of a session that ended (logged out elsewhere, expired, refused):
    // they are dropped, the user info with them.
    if (page && !header && !raced) clearSessionCookie(cookies, cookieScope(ctx));
    return;
  }
  const row = resolved.row;
  locals.user = { id: row.id, username: row.username, nickname: row.nickname, avatar: row.avatar };
  locals.session = { row, family: resolved.family, viaCookie: !header, ref: resolved.ref };
  // The user-info cookie follows the member a page shows: set when missing (a session from before
  // the cookie existed), renewed with the tokens, rewritten when the name or avatar changed.
  if (page && !header && (renewedNow || cookies.get(USER_INFO_COOKIE)?.value !== userInfoCookieValue(row))) {
    setUserInfoCookie(cookies, row, cookieScope(ctx));
  }
}
