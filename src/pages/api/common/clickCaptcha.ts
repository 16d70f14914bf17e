import { z } from 'zod';
import { api, ok, readInput } from '../../../lib/server/http';
import { captchaIdSchema, createClickCaptcha } from '../../../lib/server/captcha/click-captcha';
import { captchaRateLimit } from '../../../lib/server/captcha/guard';
import { routeAccess, ANYONE } from '../../../lib/shared/access';

// Not strict: BuildAdmin's clients may add `server=1` to the query string.
export const ClickCaptchaInput = z.object({ id: captchaIdSchema });

/** A new click captcha for the client-chosen id (reference §5). */
export const GET = api(async (ctx) => {
  const limited = await captchaRateLimit(ctx, 'captcha', 60);
  if (limited) return limited;
  const { id } = await readInput(ctx, ClickCaptchaInput);
  return ok(await createClickCaptcha(ctx.locals.runtime.db, id, ctx.locals.apiLocale));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  GET: { ...ANYONE, input: ClickCaptchaInput },
});
