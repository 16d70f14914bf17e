import { api, AppError, ok, requestIp } from '../../../lib/server/http';
import { captchaRateLimit } from '../../../lib/server/captcha/guard';
import { captchaTypes, offersPow } from '../../../lib/server/captcha/consume';
import { createPowChallenge, nextPowLevel, powSecrets } from '../../../lib/server/captcha/pow-captcha';
import { routeAccess, ANYONE } from '../../../lib/shared/access';

/**
 * A new proof-of-work challenge (ALTCHA v2, signed, expiring), the captcha without pictures. Its
 * difficulty rises with the challenges and failures of the caller's address in the last minutes.
 */
export const GET = api(async (ctx) => {
  const limited = await captchaRateLimit(ctx, 'captcha-pow', 60);
  if (limited) return limited;
  const rt = ctx.locals.runtime;
  if (!offersPow(await captchaTypes(rt.site))) throw new AppError('captcha.powOff');
  const level = await nextPowLevel(rt.limiter, requestIp(ctx));
  return ok(await createPowChallenge(powSecrets(rt.tokenSecret), level));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  GET: { ...ANYONE },
});
