import type { APIContext } from 'astro';
import { ok } from '../http';
import { cookieScope, setSessionCookies, setUserInfoCookie } from '../auth/guard';
import type { IssuedSession } from '../auth/sessions';
import { toUserInfo, type UserRow } from './users';

/**
 * The reply of a successful login or registration: userInfo with tokens (API clients keep them), and
 * the cookies the site's pages use instead (HttpOnly tokens, the readable user info).
 */
export function sessionReply(ctx: APIContext, row: UserRow, session: IssuedSession, msg: string): Response {
  const scope = cookieScope(ctx);
  setSessionCookies(ctx.cookies, session.token, session.refreshToken, scope);
  setUserInfoCookie(ctx.cookies, row, scope);
  return ok({ userInfo: toUserInfo(row, session), routePath: '/user' }, msg);
}
