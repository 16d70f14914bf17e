import type { APIContext } from 'astro';
import { translator } from '../../i18n';
import { Code } from '../../shared/codes';
import { envelope } from '../http';

/** The caller's address, as the API rate limit in the middleware sees it. */
export function clientAddress(ctx: APIContext): string {
  if (ctx.locals.runtime.config.trustProxy) {
    const forwarded = ctx.request.headers.get('x-forwarded-for')?.split(',')[0]?.trim();
    if (forwarded) return forwarded;
  }
  return ctx.clientAddress;
}

/**
 * A per-address limit tighter than the general API one: drawing captchas costs CPU, and checks
 * are guesses. Returns the HTTP 429 reply when the caller is over it, else null.
 */
export async function captchaRateLimit(ctx: APIContext, bucket: 'captcha' | 'captcha-check', limit: number): Promise<Response | null> {
  const result = await ctx.locals.runtime.limiter.hit(`${bucket}:${clientAddress(ctx)}`, limit, 60);
  if (result.allowed) return null;
  const t = translator(ctx.locals.apiLocale, 'api');
  return envelope({ code: Code.error, msg: t('api.rateLimited', { seconds: result.retryAfter }), data: null }, 429, { 'retry-after': String(result.retryAfter) });
}
