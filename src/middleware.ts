import { defineMiddleware } from 'astro:middleware';
import { Code } from './lib/shared/codes';
import { assertRouteMiddleware, matchRoute } from './lib/shared/routes';
import { normalizeApiPath } from './lib/shared/hosts';
import { apiLocale, envelope, errorResponse } from './lib/server/http';
import { translator } from './lib/i18n';
import { requestBasics } from './lib/server/request-context';
import { ROUTE_MIDDLEWARE } from './lib/server/route-middleware';
import { getDevRuntime } from './lib/server/dev-runtime';
import { PageCache } from './lib/server/page-cache';
import { compressResponse, pickEncoding } from './lib/server/compress';

// Fail at start, not at the first request to a page, when a route names an unknown middleware.
assertRouteMiddleware(Object.keys(ROUTE_MIDDLEWARE));

export const onRequest = defineMiddleware(async (ctx, next) => {
  const { locals, request, url } = ctx;
  // Under `astro dev` there is no Atrium server in front: build what it would have passed in.
  locals.runtime ??= await getDevRuntime();
  if (!locals.requestId) {
    Object.assign(locals, requestBasics({
      cookie: request.headers.get('cookie'),
      acceptLanguage: request.headers.get('accept-language'),
      host: request.headers.get('host'),
    }, locals.runtime.config.siteDomain));
  }
  locals.user ??= null;
  locals.cacheTags ??= null;
  locals.apiLocale = apiLocale((name) => request.headers.get(name), locals.locale);

  if (url.pathname.startsWith('/api/')) {
    // Controllers are case-insensitive (`/api/Cos/callback`); the server lower-cases them, `astro dev` here.
    const normal = normalizeApiPath(url.pathname);
    if (normal !== url.pathname) return ctx.rewrite(normal + url.search);
    const ip = clientIp(ctx.request, ctx.clientAddress, locals.runtime.config.trustProxy);
    const limit = await locals.runtime.limiter.hit(`api:${ip}`, locals.runtime.config.apiRateLimit, 60);
    if (!limit.allowed) {
      const t = translator(locals.apiLocale, 'api');
      return envelope({ code: Code.error, msg: t('api.rateLimited', { seconds: limit.retryAfter }), data: null }, 429, { 'retry-after': String(limit.retryAfter) });
    }
    let response: Response;
    try {
      response = await next();
    } catch (err) {
      response = errorResponse(err, locals.apiLocale, locals.requestId, locals.runtime.log.error);
    }
    return compressResponse(request, response);
  }

  // Pages: the route table decides parameters and route middleware before the page renders.
  if (locals.route === undefined) {
    locals.route = matchRoute(url.pathname);
    if (locals.route && !locals.route.valid) return new Response(null, { status: 404 });
    for (const name of locals.route?.route.middleware ?? []) {
      const stop = await ROUTE_MIDDLEWARE[name as keyof typeof ROUTE_MIDDLEWARE](ctx);
      if (stop) return stop;
    }
  }
  const generation = locals.runtime.pageCache.generation;
  const response = await maybeCache(request, locals, await next(), generation);
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

function clientIp(request: Request, address: string, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = request.headers.get('x-forwarded-for')?.split(',')[0]?.trim();
    if (forwarded) return forwarded;
  }
  return address;
}
