import { api, ok, readInput } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { verifyCurrent } from '../../../lib/server/account/bind';
import { VerificationInput } from '../../../lib/shared/validation/account';
import { routeAccess, MEMBERS, as } from '../../../lib/shared/access';

/** Confirms the current e-mail or mobile with its code; the pass token is valid 10 minutes. */
export const POST = api(async (ctx) => {
  const member = requireUser(ctx);
  const input = await readInput(ctx, VerificationInput);
  const accountVerificationToken = await verifyCurrent(ctx.locals.runtime, member, input.type, input.captcha);
  return ok({ type: input.type, accountVerificationToken });
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  POST: { ...as(MEMBERS, 'refused'), input: VerificationInput },
});
