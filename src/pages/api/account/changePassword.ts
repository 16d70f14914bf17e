import { api, ok, readInput } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { changePassword } from '../../../lib/server/account/users';
import { ChangePasswordInput } from '../../../lib/shared/validation/account';
import { translateAny } from '../../../lib/i18n';
import { routeAccess, MEMBERS, as } from '../../../lib/shared/access';

/** Changes the password; every other session of the member ends. */
export const POST = api(async (ctx) => {
  const member = requireUser(ctx);
  const input = await readInput(ctx, ChangePasswordInput);
  await changePassword(ctx.locals.runtime, member.id, ctx.locals.session?.family ?? null, input.oldPassword, input.newPassword);
  return ok(null, translateAny(ctx.locals.apiLocale, 'account.passwordChanged'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'account/changePassword',
  POST: { ...as(MEMBERS, 'refused'), input: ChangePasswordInput },
});
