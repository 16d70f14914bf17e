import type { APIContext } from 'astro';
import { rateLimitReply, requestIp } from '../http';

/**
 * A per-address limit tighter than the general API one: drawing captchas costs CPU, and checks
 * are guesses. Returns the HTTP 429 reply when the caller is over it, else null.
 */
export function captchaRateLimit(ctx: APIContext, bucket: 'captcha' | 'captcha-check' | 'captcha-pow', limit: number): Promise<Response | null> {
  return rateLimitReply(ctx, `${bucket}:${requestIp(ctx)}`, limit, 60);
}
