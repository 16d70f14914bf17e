import { z } from 'zod';
import { api, envelope, readInput } from '../../../lib/server/http';
import { checkClickCaptcha, CLICK_MESSAGE } from '../../../lib/server/captcha/click-captcha';
import { captchaRateLimit } from '../../../lib/server/captcha/guard';
import { translator } from '../../../lib/i18n';
import { Code } from '../../../lib/shared/codes';
import { routeAccess, ANYONE, as } from '../../../lib/shared/access';

// An unknown or malformed id is answered like an expired captcha, not as a field error: both mean
// "draw a new one" to the client.
export const CheckClickCaptchaInput = z.object({
  id: z.string().max(64),
  info: z.string().max(200),
  // BuildAdmin's clients send a boolean; forms may send 0/1 or their string forms.
  unset: z.union([z.boolean(), z.literal(0), z.literal(1), z.enum(['0', '1', 'true', 'false'])])
    .transform((v) => v === true || v === 1 || v === '1' || v === 'true')
    .default(false),
}).strict();

/** Checks an answer: code 1 when right, code 0 with the reason otherwise (reference §5). */
export const POST = api(async (ctx) => {
  const limited = await captchaRateLimit(ctx, 'captcha-check', 30);
  if (limited) return limited;
  const { id, info, unset } = await readInput(ctx, CheckClickCaptchaInput);
  const result = await checkClickCaptcha(ctx.locals.runtime.db, id, info, unset);
  const t = translator(ctx.locals.apiLocale, 'captcha');
  return envelope({ code: result === 'ok' ? Code.ok : Code.error, msg: t(CLICK_MESSAGE[result]), data: null });
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  POST: { ...as(ANYONE, 'refused'), input: CheckClickCaptchaInput },
});
