import { api, ok, readInput, rateLimitReply, requestIp } from '../../../lib/server/http';
import { resetPassword } from '../../../lib/server/admin/setup';
import { ResetPasswordInput } from '../../../lib/shared/validation/admin';
import { translateAny } from '../../../lib/i18n';
import { routeAccess, ANYONE, as } from '../../../lib/shared/access';

/** Sets a new password with a one-time reset link an operator made (console or CLI). */
export const POST = api(async (ctx) => {
  const limited = await rateLimitReply(ctx, `reset:${requestIp(ctx)}`, 20, 900);
  if (limited) return limited;
  const input = await readInput(ctx, ResetPasswordInput);
  await resetPassword(ctx.locals.runtime, input.token, input.password, requestIp(ctx));
  return ok(null, translateAny(ctx.locals.apiLocale, 'admin.reset.done'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  POST: { ...as(ANYONE, 'refused'), input: ResetPasswordInput },
});
