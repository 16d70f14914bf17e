import { z } from 'zod';
import { api, ok, readInput } from '../../../lib/server/http';
import { RefreshRaceError, refreshSession, resolveAccessToken } from '../../../lib/server/auth/sessions';
import { clearSessionCookie, cookieScope, setSessionCookies, setUserInfoCookie } from '../../../lib/server/auth/guard';
import { REFRESH_COOKIE, SESSION_COOKIE } from '../../../lib/server/request-context';
import { headerToken } from '../../../lib/server/pipeline/checks';
import { routeAccess, ANYONE, as } from '../../../lib/shared/access';

export const RefreshInput = z.object({ refreshToken: z.string().max(200).optional(), refresh_token: z.string().max(200).optional() }).strict();

/**
 * A new access token for a refresh token: from the body (API clients) or the HttpOnly cookie (the
 * site's pages, on any subdomain: the browser holds no token). Unlike BuildAdmin the refresh token
 * rotates: the reply carries the next one, and the used one stops working (using it again ends the
 * session).
 */
export const POST = api(async (ctx) => {
  const input = await readInput(ctx, RefreshInput);
  const { runtime } = ctx.locals;
  const fromBody = input.refreshToken || input.refresh_token || '';
  const refresh = fromBody || ctx.cookies.get(REFRESH_COOKIE)?.value || '';
  const access = headerToken((name) => ctx.request.headers.get(name)) || ctx.cookies.get(SESSION_COOKIE)?.value || '';
  const scope = cookieScope(ctx);
  let next: Awaited<ReturnType<typeof refreshSession>>;
  try {
    next = await refreshSession(runtime.db, runtime.tokenSecret, refresh, access, runtime.sessions);
  } catch (err) {
    // A refresh cookie that no longer works is dropped with the rest (a concurrent tab's renewal is not a failure).
    if (!fromBody && ctx.cookies.has(REFRESH_COOKIE) && !(err instanceof RefreshRaceError)) clearSessionCookie(ctx.cookies, scope);
    throw err;
  }
  setSessionCookies(ctx.cookies, next.token, next.refreshToken, scope);
  const renewed = await resolveAccessToken(runtime.db, runtime.tokenSecret, next.token, runtime.sessions);
  if (renewed.state === 'ok') setUserInfoCookie(ctx.cookies, renewed.row, scope);
  return ok({ type: 'user-refresh', token: next.token, refresh_token: next.refreshToken });
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  POST: { ...as(ANYONE, 'refused'), input: RefreshInput },
});
