import { api, ok } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { signIn, signInStatus } from '../../../lib/server/account/sign-in';
import { translateAny } from '../../../lib/i18n';
import { routeAccess, MEMBERS } from '../../../lib/shared/access';

export const GET = api(async (ctx) => ok(await signInStatus(ctx.locals.runtime, requireUser(ctx).id)));

/** Today's check-in; a second call the same day is told so and earns nothing. */
export const POST = api(async (ctx) => {
  const member = requireUser(ctx);
  const result = await signIn(ctx.locals.runtime, member.id);
  const msg = result.added
    ? translateAny(ctx.locals.apiLocale, 'user.signIn.done', { score: result.score, streak: result.streak })
    : translateAny(ctx.locals.apiLocale, 'user.signIn.already');
  return ok(result, msg);
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'account/signIn',
  GET: { ...MEMBERS },
  POST: { ...MEMBERS },
});
