import { z } from 'zod';
import { api, ok, readInput, requestIsHttps } from '../../../lib/server/http';
import { refreshSession } from '../../../lib/server/auth/sessions';
import { setSessionCookies } from '../../../lib/server/auth/guard';
import { REFRESH_COOKIE, SESSION_COOKIE } from '../../../lib/server/request-context';
import { routeAccess, ANYONE, as } from '../../../lib/shared/access';

export const RefreshInput = z.object({ refreshToken: z.string().max(200).optional(), refresh_token: z.string().max(200).optional() }).strict();

/**
 * A new access token for a refresh token. Unlike BuildAdmin the refresh token rotates: the reply
 * carries the next one, and the used one stops working (using it again ends the session).
 */
export const POST = api(async (ctx) => {
  const input = await readInput(ctx, RefreshInput);
  const { runtime } = ctx.locals;
  const refresh = input.refreshToken || input.refresh_token || ctx.cookies.get(REFRESH_COOKIE)?.value || '';
  const access = ctx.request.headers.get('ba-user-token') || ctx.cookies.get(SESSION_COOKIE)?.value || '';
  const next = await refreshSession(runtime.db, runtime.tokenSecret, refresh, access, runtime.sessions);
  setSessionCookies(ctx.cookies, next.token, next.refreshToken, runtime.config.siteDomain, requestIsHttps(ctx));
  return ok({ type: 'user-refresh', token: next.token, refresh_token: next.refreshToken });
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  POST: { ...as(ANYONE, 'refused'), input: RefreshInput },
});
