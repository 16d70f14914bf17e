import { api, ok, readInput } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { changeBind } from '../../../lib/server/account/bind';
import { ChangeBindInput } from '../../../lib/shared/validation/account';
import { translateAny } from '../../../lib/i18n';
import { routeAccess, MEMBERS, as } from '../../../lib/shared/access';

/** Binds a new e-mail or mobile (BuildAdmin's pass-token flow). */
export const POST = api(async (ctx) => {
  const member = requireUser(ctx);
  const input = await readInput(ctx, ChangeBindInput);
  const value = input.type === 'email' ? input.email! : input.mobile!;
  await changeBind(ctx.locals.runtime, member, input.type, value, input.captcha, input.accountVerificationToken ?? '', input.password ?? '');
  return ok(null, translateAny(ctx.locals.apiLocale, 'account.bindChanged'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'account/profile',
  POST: { ...as(MEMBERS, 'refused'), input: ChangeBindInput },
});
