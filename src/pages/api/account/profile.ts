import { api, ok, readInput } from '../../../lib/server/http';
import { cookieScope, requireUser, setUserInfoCookie } from '../../../lib/server/auth/guard';
import { updateProfile } from '../../../lib/server/account/profile';
import { toUserInfo } from '../../../lib/server/account/users';
import { ProfileInput } from '../../../lib/shared/validation/account';
import { translateAny } from '../../../lib/i18n';
import { routeAccess, MEMBERS } from '../../../lib/shared/access';

export const GET = api(async (ctx) => {
  requireUser(ctx);
  return ok({ accountVerificationType: ['email', 'mobile'] });
});

/** The member's own profile: the `id` a client sends is ignored, so nobody edits another member. */
export const POST = api(async (ctx) => {
  const member = requireUser(ctx);
  const input = await readInput(ctx, ProfileInput);
  const row = await updateProfile(ctx.locals.runtime, member, input);
  // The new name and avatar for the site's pages on every subdomain (the user-info cookie).
  if (ctx.locals.session?.viaCookie) setUserInfoCookie(ctx.cookies, row, cookieScope(ctx));
  return ok({ userInfo: toUserInfo(row) }, translateAny(ctx.locals.apiLocale, 'user.profile.saved'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'account/profile',
  GET: { ...MEMBERS },
  POST: { ...MEMBERS, input: ProfileInput },
});
