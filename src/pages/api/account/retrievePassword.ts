import { api, ok, readInput } from '../../../lib/server/http';
import { retrievePassword } from '../../../lib/server/account/bind';
import { RetrievePasswordInput } from '../../../lib/shared/validation/account';
import { translateAny } from '../../../lib/i18n';
import { routeAccess, ANYONE, as } from '../../../lib/shared/access';

/** Sets a new password with a code sent to the account's e-mail or mobile. */
export const POST = api(async (ctx) => {
  const input = await readInput(ctx, RetrievePasswordInput);
  await retrievePassword(ctx.locals.runtime, input.type, input.account, input.captcha, input.password);
  return ok(null, translateAny(ctx.locals.apiLocale, 'account.passwordReset'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  POST: { ...as(ANYONE, 'refused'), input: RetrievePasswordInput },
});
