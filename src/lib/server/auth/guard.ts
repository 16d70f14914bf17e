import type { APIContext, AstroCookies } from 'astro';
import { AppError, requestIsHttps } from '../http';
import { Code } from '../../shared/codes';
import { REFRESH_COOKIE, SESSION_COOKIE, USER_INFO_COOKIE } from '../request-context';
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

/** Where the session cookies go: the site's parent domain when the request came to it, else this host. */
export interface CookieScope {
  /** `example.com` under SITE_DOMAIN (the cookies reach ask./doc./modules.); absent: host-only. */
  domain?: string;
  /** Only over HTTPS: a plain-HTTP site (a LAN address) must still get its cookies. */
  secure: boolean;
}

/**
 * The scope of the session cookies for this request. A request to a host outside SITE_DOMAIN (the
 * server's LAN address, say) gets host-only cookies: the browser would drop one for another domain.
 */
export function cookieScope(ctx: Pick<APIContext, 'url' | 'request' | 'clientAddress' | 'locals'>): CookieScope {
  const siteDomain = ctx.locals.runtime.config.siteDomain;
  const host = hostnameOf(ctx.request.headers.get('host') ?? ctx.url.host);
  const inSite = !!siteDomain && (host === siteDomain || host.endsWith(`.${siteDomain}`));
  return { ...(inSite ? { domain: siteDomain } : {}), secure: requestIsHttps(ctx) };
}

function hostnameOf(host: string): string {
  const h = host.trim().toLowerCase();
  return h.startsWith('[') ? h.slice(0, h.indexOf(']') + 1) : h.split(':')[0] ?? '';
}

/** 30 days (spec §9), as long as a refresh token lives. */
export const USER_INFO_TTL = 30 * 24 * 3600;

/** What the user-info cookie holds: the spec's persisted subset (§3) without the tokens. */
export function userInfoCookieValue(row: Pick<UserRow, 'id' | 'username' | 'nickname' | 'avatar' | 'showOpenSourceStarTime'>): string {
  return JSON.stringify({ id: row.id, username: row.username, nickname: row.nickname, avatar: row.avatar, show_open_source_star_time: row.showOpenSourceStarTime });
}

/**
 * The session's cookies, shared by the subdomains, strict same-site (with the origin check on writes,
 * src/middleware.ts, what keeps other sites from acting with them). The tokens are HttpOnly: no
 * script reads them. Without a refresh token ("keep me logged in" off) the access token's cookie ends
 * with the browser session.
 */
export function setSessionCookies(cookies: AstroCookies, token: string, refreshToken: string, scope: CookieScope): void {
  const base = { path: '/', httpOnly: true, sameSite: 'strict' as const, secure: scope.secure, ...(scope.domain ? { domain: scope.domain } : {}) };
  cookies.set(SESSION_COOKIE, token, { ...base, ...(refreshToken ? { maxAge: ACCESS_TTL } : {}) });
  if (refreshToken) cookies.set(REFRESH_COOKIE, refreshToken, { ...base, maxAge: REFRESH_TTL });
}

/** The user-info cookie (spec §9): readable by the site's scripts on every subdomain, no secret in it. */
export function setUserInfoCookie(cookies: AstroCookies, row: Parameters<typeof userInfoCookieValue>[0], scope: CookieScope): void {
  cookies.set(USER_INFO_COOKIE, userInfoCookieValue(row), {
    path: '/', sameSite: 'strict', secure: scope.secure, maxAge: USER_INFO_TTL, ...(scope.domain ? { domain: scope.domain } : {}),
  });
}

/** Logging out: the tokens and the user info, on the scope they were set with. */
export function clearSessionCookie(cookies: AstroCookies, scope: Pick<CookieScope, 'domain'>): void {
  const base = { path: '/', ...(scope.domain ? { domain: scope.domain } : {}) };
  cookies.delete(SESSION_COOKIE, base);
  cookies.delete(REFRESH_COOKIE, base);
  cookies.delete(USER_INFO_COOKIE, base);
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
