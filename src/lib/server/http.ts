import type { APIContext, APIRoute } from 'astro';
import { z } from 'zod';
import { Code, type Envelope } from '../shared/codes';
import { lookup, translateAny, translator, type AnyKey, type Locale } from '../i18n';
import { clientAddress } from './request-context';
import { forwardedProto } from './proxy';
import { findControlChars } from '../shared/validation/common';
import type { RateLimiter } from './rate-limit';
import { processWide } from './process-wide';


/** The one error services throw: a message key, optional field errors, and the envelope code. */
export class AppError extends Error {
  constructor(
    readonly key: AnyKey,
    readonly options: {
      code?: number;
      status?: number;
      data?: unknown;
      values?: Record<string, string | number>;
      /** Field errors already in the request's language. */
      fields?: Record<string, string>;
      /** Field errors as message keys, translated when the reply is made. */
      fieldKeys?: Record<string, string>;
      /** Headers of the reply (`retry-after` on a limit). */
      headers?: Record<string, string>;
    } = {},
  ) {
    super(key);
  }
}

/** The envelope's JSON text, `time` stamped now: every `{code, msg, data, time}` reply is written from it. */
export function envelopeText(body: Omit<Envelope<unknown>, 'time'>): string {
  return JSON.stringify({ code: body.code, msg: body.msg, data: body.data, time: Math.floor(Date.now() / 1000) });
}

/** `{code, msg, data, time}` as a JSON response. */
export function envelope<T>(body: Omit<Envelope<T>, 'time'>, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(envelopeText(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers },
  });
}

export function ok<T>(data: T, msg = ''): Response {
  return envelope({ code: Code.ok, msg, data });
}

/** Turns any thrown value into an envelope in the request's language; unexpected errors are logged, never shown. */
export function errorResponse(err: unknown, locale: Locale, requestId: string, log?: (msg: string, extra: Record<string, unknown>) => void): Response {
  const t = translator(locale, 'api');
  if (err instanceof AppError) {
    const { code = Code.error, status = 200, data, values, fieldKeys, headers } = err.options;
    const fields = fieldKeys
      ? Object.fromEntries(Object.entries(fieldKeys).map(([k, v]) => [k, translateAny(locale, v, values)]))
      : err.options.fields;
    // "Incorrect parameter" tells the user nothing: the first field's own message says what to fix.
    const first = err.key === 'api.invalidInput' && fields ? Object.values(fields)[0] : undefined;
    return envelope({ code, msg: first ?? translateAny(locale, err.key, values), data: fields ? { ...(data as object | undefined), fields } : (data ?? null) }, status, headers);
  }
  if (isBadInputError(err)) {
    log?.('input refused by the database', { requestId, err: err instanceof Error ? err.message : String(err) });
    return envelope({ code: Code.error, msg: t('api.invalidInput'), data: null });
  }
  log?.('unhandled error', { requestId, err: err instanceof Error ? err.stack ?? err.message : String(err) });
  return envelope({ code: Code.error, msg: t('api.internal', { requestId }), data: null }, 500);
}

/** Language of an API call: header `think-lang` or `ba-lang`, else the cookie, else the page's locale. */
export function apiLocale(header: (name: string) => string | null | undefined, fallback: Locale): Locale {
  const raw = (header('think-lang') ?? header('ba-lang') ?? '').toLowerCase();
  return raw === 'en' || raw === 'zh-cn' ? raw : fallback;
}

/** Maps zod issues to `{field: message}` in the request's language. */
export function fieldErrors(error: z.ZodError, locale: Locale): Record<string, string> {
  const t = translator(locale, 'api');
  const fields: Record<string, string> = {};
  for (const issue of error.issues) {
    const keys = issue.code === 'unrecognized_keys' ? issue.keys.map((k) => [...issue.path, k]) : [issue.path];
    for (const path of keys) {
      const name = path.join('.') || '_';
      if (fields[name]) continue;
      fields[name] = issueMessage(issue, t, locale);
    }
  }
  return fields;
}

function issueMessage(issue: z.core.$ZodIssue, t: ReturnType<typeof translator<'api'>>, locale: Locale): string {
  // Shared schemas carry message keys (validation.*, md.*, …) so the form and the API word them alike.
  const keyed = translateAny(locale, issue.message);
  if (keyed !== issue.message) return keyed;
  switch (issue.code) {
    case 'unrecognized_keys':
      return t('field.unknown');
    case 'invalid_type':
      // zod reports the input only on request; its message names what it received.
      if (issue.input === undefined && /received undefined$/.test(issue.message)) return t('field.required');
      if (issue.expected === 'int') return t('field.integer');
      return t('field.type', { expected: lookup(locale, 'api', `type.${issue.expected}`) ?? issue.expected });
    case 'invalid_value':
      return t('field.enum', { values: issue.values.map(String).join(', ') });
    case 'too_small':
      return issue.origin === 'string' ? (Number(issue.minimum) <= 1 ? t('field.required') : t('field.tooShort', { min: Number(issue.minimum) })) : t('field.tooSmall', { min: Number(issue.minimum) });
    case 'too_big':
      return issue.origin === 'string' ? t('field.tooLong', { max: Number(issue.maximum) }) : t('field.tooBig', { max: Number(issue.maximum) });
    default:
      return issue.message && !issue.message.startsWith('Invalid') ? issue.message : t('field.format');
  }
}

/**
 * The raw input of a call: the query string for GET/HEAD, the JSON body otherwise. A control
 * character anywhere in it (NUL, which PostgreSQL refuses, and the rest) is a field error.
 */
export async function readRaw(ctx: APIContext): Promise<unknown> {
  if (ctx.request.method === 'GET' || ctx.request.method === 'HEAD') return checkedInput(Object.fromEntries(ctx.url.searchParams));
  return parseJsonBody(await ctx.request.text());
}

/** A request body's JSON (empty: `{}`), refused as invalid JSON or with a control character: what readRaw does with a body. */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new AppError('api.invalidJson', { fieldKeys: { body: 'api.invalidJson' } });
  }
  return checkedInput(value);
}

function checkedInput(value: unknown): unknown {
  const bad = findControlChars(value);
  if (bad) throw new AppError('api.invalidInput', { fieldKeys: { [bad]: 'validation.controlChars' } });
  return value;
}

/**
 * PostgreSQL's answer to input no schema should have let through (a number beyond its column, a
 * NUL byte, text that is not a number): a bad request, not a server fault.
 */
export function isBadInputError(err: unknown): boolean {
  for (let e: unknown = err; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    const code = (e as { code?: unknown }).code;
    if (code === '22003' || code === '22P02' || code === '22021' || code === '22P05') return true;
  }
  return false;
}

/** Checks raw input against a shared schema; failures become code 0 with field errors. */
export function parseInput<S extends z.ZodType>(ctx: APIContext, schema: S, raw: unknown): z.output<S> {
  return parseWith(schema, raw, ctx.locals.apiLocale);
}

/** parseInput without a context: field errors in `locale`. */
export function parseWith<S extends z.ZodType>(schema: S, raw: unknown, locale: Locale): z.output<S> {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new AppError('api.invalidInput', { fields: fieldErrors(parsed.error, locale) });
  return parsed.data;
}

/** Parses input with a shared schema: query string for GET/HEAD, JSON body otherwise. */
export async function readInput<S extends z.ZodType>(ctx: APIContext, schema: S): Promise<z.output<S>> {
  return parseInput(ctx, schema, await readRaw(ctx));
}

/** Work run around every API handler; boot registers the unit of work (cache tags, message outbox). */
type Around = <T>(runtime: App.Locals['runtime'], fn: () => Promise<T>) => Promise<T>;
// Process-wide: boot registers it from the server's bundle, Astro's bundle runs the handlers.
const around = processWide<{ fn: Around }>('api-around', () => ({ fn: (_runtime, fn) => fn() }));

/**
 * Sets the work run around every API handler (boot/runtime.ts: publish the cache tags the
 * handler's writes touched and the message events they recorded, once it has finished).
 */
export function aroundApi(fn: Around): void {
  around.fn = fn;
}

/**
 * Wraps an API handler so that every outcome is an envelope. The cache tags its writes touched and
 * the message events it recorded are published once it has finished (its transactions have
 * committed): see aroundApi.
 */
export function api(handler: (ctx: APIContext) => Promise<Response>): APIRoute {
  return async (ctx) => {
    try {
      return await around.fn(ctx.locals.runtime, () => handler(ctx));
    } catch (err) {
      return errorResponse(err, ctx.locals.apiLocale, ctx.locals.requestId, ctx.locals.runtime.log.error);
    }
  };
}

/** The caller's address (behind trusted proxies, the one they saw: see proxy.ts). */
export function requestIp(ctx: APIContext): string {
  const { config } = ctx.locals.runtime;
  return clientAddress((name) => ctx.request.headers.get(name), ctx.clientAddress, config);
}

/**
 * Whether the visitor's connection is HTTPS: the request itself, a trusted proxy's
 * X-Forwarded-Proto, or an https SITE_URL when the request came to that site's host (the same
 * server reached at its LAN address over plain HTTP is not). Session cookies get `Secure` then.
 */
export function requestIsHttps(ctx: Pick<APIContext, 'url' | 'request' | 'clientAddress' | 'locals'>): boolean {
  const { config } = ctx.locals.runtime;
  if (config.siteUrl?.startsWith('https:') && sameSiteHost(config.siteUrl, ctx.request.headers.get('host'), config.siteDomain)) return true;
  if (ctx.url.protocol === 'https:') return true;
  let peer = '';
  try { peer = ctx.clientAddress; } catch { /* no socket (prerendering) */ }
  return forwardedProto(ctx.request.headers.get('x-forwarded-proto'), peer, config.proxy ?? config.trustProxy) === 'https';
}

/** Whether `host` (a Host header) is SITE_URL's host or, under SITE_DOMAIN, one of the site's hosts. */
function sameSiteHost(siteUrl: string, host: string | null, siteDomain: string | null): boolean {
  if (!host) return true;
  const name = host.toLowerCase().replace(/:\d+$/, '');
  let site = '';
  try { site = new URL(siteUrl).hostname.toLowerCase(); } catch { return true; }
  return name === site || (!!siteDomain && (name === siteDomain || name.endsWith(`.${siteDomain}`)));
}

/** Counts one hit on `key`; over `limit` per window it returns the HTTP 429 reply, else null. */
export async function rateLimitReply(ctx: APIContext, key: string, limit: number, windowSeconds: number): Promise<Response | null> {
  return limitReply(ctx.locals.runtime.limiter, ctx.locals.apiLocale, key, limit, windowSeconds);
}

/** rateLimitReply without a context: the 429 reply in `locale`. */
export async function limitReply(limiter: Pick<RateLimiter, 'hit'>, locale: Locale, key: string, limit: number, windowSeconds: number): Promise<Response | null> {
  const result = await limiter.hit(key, limit, windowSeconds);
  if (result.allowed) return null;
  const msg = translator(locale, 'api')('api.rateLimited', { seconds: result.retryAfter });
  return envelope({ code: Code.error, msg, data: null }, 429, { 'retry-after': String(result.retryAfter) });
}
