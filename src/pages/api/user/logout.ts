import { z } from 'zod';
import { api, ok, readInput } from '../../../lib/server/http';
import { endSession } from '../../../lib/server/auth/sessions';
import { clearSessionCookie, cookieScope } from '../../../lib/server/auth/guard';
import { REFRESH_COOKIE, SESSION_COOKIE } from '../../../lib/server/request-context';
import { headerToken } from '../../../lib/server/pipeline/checks';
import { routeAccess, ANYONE } from '../../../lib/shared/access';

// Both spellings are accepted: BuildAdmin reads `refreshToken`, its Nuxt client posts `refresh_token`.
export const LogoutInput = z.object({ refresh_token: z.string().max(200).optional(), refreshToken: z.string().max(200).optional() }).strict();

/**
 * Ends the session (its access and refresh tokens, from the body or the cookies: the site's pages
 * send none) and clears the session cookies on the site's parent domain, so every subdomain is
 * logged out. Always code 1.
 */
export const POST = api(async (ctx) => {
  const input = await readInput(ctx, LogoutInput);
  const { runtime } = ctx.locals;
  const access = headerToken((name) => ctx.request.headers.get(name)) || ctx.cookies.get(SESSION_COOKIE)?.value || '';
  const refresh = input.refreshToken || input.refresh_token || ctx.cookies.get(REFRESH_COOKIE)?.value || '';
  await endSession(runtime.db, runtime.tokenSecret, access, refresh, runtime.sessions);
  clearSessionCookie(ctx.cookies, cookieScope(ctx));
  return ok(null);
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  POST: { ...ANYONE, input: LogoutInput },
});
