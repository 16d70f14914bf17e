import type { APIContext } from 'astro';
import { ok, requestIsHttps } from '../http';
import { setSessionCookies } from '../auth/guard';
import type { IssuedSession } from '../auth/sessions';
import { toUserInfo, type UserRow } from './users';

/** The reply of a successful login or registration: userInfo with tokens, and the page cookies. */
export function sessionReply(ctx: APIContext, row: UserRow, session: IssuedSession, msg: string): Response {
  setSessionCookies(ctx.cookies, session.token, session.refreshToken, ctx.locals.runtime.config.siteDomain, requestIsHttps(ctx));
  return ok({ userInfo: toUserInfo(row, session), routePath: '/user' }, msg);
}
