// `pages/api/index/index.ts` would answer /api/index: the extra folder makes this /api/index/index.
import { z } from 'zod';
import { api, AppError, ok, readInput } from '../../../../lib/server/http';
import { Code } from '../../../../lib/shared/codes';
import { siteInfo } from '../../../../lib/server/site/chrome';
import { iframeOrigins, splitRules } from '../../../../lib/server/site/rules';
import { toUserInfo } from '../../../../lib/server/account/users';
import { tokenExpired } from '../../../../lib/server/auth/sessions';
import { routeAccess, MEMBERS } from '../../../../lib/shared/access';

export const IndexInput = z.object({ requiredLogin: z.enum(['0', '1']).default('0') });

/** Site data, rules and menus the client initialises from (reference §1a). */
export const GET = api(async (ctx) => {
  const { requiredLogin } = await readInput(ctx, IndexInput);
  // The data speaks the language its `msg` does: the `think-lang` header first, then the page's.
  const { runtime, apiLocale: locale, host, session } = ctx.locals;
  const user = session?.row;
  if (requiredLogin === '1' && !user) {
    if (ctx.locals.tokenExpired) throw tokenExpired();
    throw new AppError('api.needLogin', { code: Code.login, data: { type: 'need login' } });
  }
  // The public origin's host when configured (SITE_URL), never a forged Host header in its place.
  const site = await siteInfo(runtime.site, locale, host, runtime.config.siteUrl ? new URL(runtime.config.siteUrl).host : ctx.request.headers.get('host') ?? ctx.url.host);
  const openMemberCenter = (await runtime.site.get('open_member_center', '1')) === '1';
  if (!user) {
    return ok({ site, openMemberCenter, userInfo: null, rules: await runtime.rules.forVisitor(locale), menus: [] });
  }
  const { rules, menus } = splitRules(await runtime.rules.forGroup(user.groupId, locale), await iframeOrigins(runtime.site));
  return ok({ site: { ...site, userInitialize: true }, openMemberCenter, userInfo: toUserInfo(user), rules, menus });
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  GET: { ...MEMBERS, input: IndexInput },
});
