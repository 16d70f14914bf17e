import type { APIContext, AstroCookies } from 'astro';
import { AppError } from '../http';
import { Code } from '../../shared/codes';
import { REFRESH_COOKIE, SESSION_COOKIE } from '../request-context';
import { REFRESH_TTL, ACCESS_TTL, tokenExpired } from './sessions';
import type { UserRow } from '../db/rows';
import type { Runtime } from '../runtime';
import type { Locale } from '../../i18n';

/** The logged-in member of an API call: 409 when the token expired, 303 'need login' without one. */
export function requireUser(ctx: APIContext): UserRow {
  const session = ctx.locals.session;
  if (session) return session.row;
  if (ctx.locals.tokenExpired) throw tokenExpired();
  throw new AppError('api.needLogin', { code: Code.login, data: { type: 'need login' } });
}

/** 303 'logged in' for calls only visitors make (login, register). */
export function requireVisitor(ctx: APIContext): void {
  if (ctx.locals.session) throw new AppError('api.loggedIn', { code: Code.login, data: { type: 'logged in' } });
}

/**
 * The HttpOnly cookies server-rendered pages read the session from, shared by subdomains. Without a
 * refresh token ("keep me logged in" off) they end with the browser session.
 */
export function setSessionCookies(cookies: AstroCookies, token: string, refreshToken: string, siteDomain: string | null, secure: boolean): void {
  const base = { path: '/', httpOnly: true, sameSite: 'lax' as const, secure, ...(siteDomain ? { domain: `.${siteDomain}` } : {}) };
  cookies.set(SESSION_COOKIE, token, { ...base, ...(refreshToken ? { maxAge: ACCESS_TTL } : {}) });
  if (refreshToken) cookies.set(REFRESH_COOKIE, refreshToken, { ...base, maxAge: REFRESH_TTL });
}

export function clearSessionCookie(cookies: AstroCookies, siteDomain: string | null): void {
  const base = { path: '/', ...(siteDomain ? { domain: `.${siteDomain}` } : {}) };
  cookies.delete(SESSION_COOKIE, base);
  cookies.delete(REFRESH_COOKIE, base);
}

type RuleTreeNode = { name: string; children?: unknown[] };
const holds = (nodes: readonly RuleTreeNode[], name: string): boolean =>
  nodes.some((n) => n.name === name || holds((n.children ?? []) as RuleTreeNode[], name));

/** Whether a group grants the rule `name` (a route or button, e.g. `account/balance/export`). */
export async function hasRule(runtime: Runtime, groupId: number, locale: Locale, name: string): Promise<boolean> {
  return holds(await runtime.rules.forGroup(groupId, locale), name);
}

/** 401 unless the member's group grants the rule `name`. */
export async function requireRule(ctx: APIContext, name: string): Promise<UserRow> {
  const member = requireUser(ctx);
  if (!(await hasRule(ctx.locals.runtime, member.groupId, ctx.locals.locale, name))) throw new AppError('api.noPermission', { code: Code.noPermission });
  return member;
}
