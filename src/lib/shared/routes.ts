// The route table of spec §2: every page's layout, route middleware and parameter rules.
// Pages live in src/pages as usual; the server middleware matches a request here first, runs the
// named route middleware and answers 404 for parameters that fail their rule.

import { CONTROL_CHARS, INT_MAX } from './validation/common';
import { findMemberPage, memberPages } from './member-pages';

export type Layout = 'ask' | 'common' | 'default' | 'doc' | 'modules' | 'user' | 'none';
export type RouteMiddleware = 'auth' | 'user-mount';

export interface RouteDef {
  name: string;
  /** `:param` segments; a trailing `?` makes the last one optional. */
  pattern: string;
  layout: Layout;
  middleware?: readonly string[];
  params?: Readonly<Record<string, ParamRule>>;
  /**
   * The rule (user_rule name) the member's group must hold to open the page: without it the page
   * answers 401 with the permission page (route middleware `user-mount`), and its menu link is gone.
   */
  rule?: string;
}

/** A parameter rule: a RegExp or anything with the same `test`. */
export interface ParamRule { test(value: string): boolean }

/** A row id: 1…2,147,483,647 (PostgreSQL `integer`); beyond that no row can exist, so 404. */
const ID: ParamRule = { test: (v) => /^[1-9]\d{0,9}$/.test(v) && Number(v) <= INT_MAX };
const SLUG = /^[A-Za-z0-9][\w.-]{0,99}$/;
const USER = ['user-mount', 'auth'] as const;

/** Children of /user (spec §2) that live in the member-center layout: the registered member pages. */
export const USER_CHILDREN: readonly string[] = memberPages().map((p) => p.path);

/** A member-center page's route: it needs the rule of the same name (its menu entry). */
const memberRoute = (child: string): RouteDef => ({ name: `user/${child}`, pattern: `/user/${child}`, layout: 'user', middleware: USER, rule: child });

export const ROUTES: readonly RouteDef[] = [
  { name: 'home', pattern: '/', layout: 'default' },
  { name: 'ask', pattern: '/ask', layout: 'ask' },
  { name: 'askInfo', pattern: '/ask/info/:id', layout: 'ask', params: { id: ID } },
  { name: 'askLists', pattern: '/ask/lists/:type/:id', layout: 'ask', params: { type: /^(?:category|tag|user)$/, id: ID } },
  { name: 'askPost', pattern: '/ask/post', layout: 'ask', middleware: ['auth'] },
  { name: 'askSearchForm', pattern: '/ask/search', layout: 'ask' },
  { name: 'askSearch', pattern: '/ask/search/:keywords', layout: 'ask', params: { keywords: /^.{1,100}$/su } },
  { name: 'askFeed', pattern: '/ask/feed.xml', layout: 'none' },
  { name: 'askFeedCategory', pattern: '/ask/feed/:category', layout: 'none', params: { category: /^[\w-]{1,30}\.xml$/ } },
  { name: 'chat', pattern: '/chat', layout: 'none' },
  { name: 'md', pattern: '/md', layout: 'common' },
  { name: 'mdSearch', pattern: '/md/search', layout: 'common' },
  { name: 'mdBooks', pattern: '/md/edit', layout: 'common', middleware: ['auth'] },
  { name: 'mdEdit', pattern: '/md/edit/:book/:name?', layout: 'doc', middleware: ['auth'], params: { book: SLUG, name: SLUG } },
  { name: 'mdView', pattern: '/md/:book/:name?', layout: 'doc', params: { book: SLUG, name: SLUG } },
  { name: 'modules', pattern: '/modules', layout: 'modules' },
  { name: 'moduleInfo', pattern: '/modules/:uid', layout: 'common', params: { uid: /^[a-z][a-z0-9_-]{1,49}$/ } },
  { name: 'robots', pattern: '/robots.txt', layout: 'none' },
  { name: 'sitemap', pattern: '/sitemap.xml', layout: 'none' },
  { name: 'sitemapFile', pattern: '/sitemap/:file', layout: 'none', params: { file: /^[a-z][a-z0-9-]*-[1-9]\d{0,8}\.xml$/ } },
  { name: 'install', pattern: '/install', layout: 'none' },
  { name: 'admin', pattern: '/admin', layout: 'none', middleware: ['auth'] },
  { name: 'adminSection', pattern: '/admin/:section/:id?', layout: 'none', middleware: ['auth'], params: { section: /^[a-z]{2,20}$/, id: /^[\w.-]{1,100}$/ } },
  { name: 'resetPassword', pattern: '/reset-password', layout: 'none' },
  { name: 'userLogin', pattern: '/user/login', layout: 'none' },
  { name: 'userCard', pattern: '/user/card/:id', layout: 'none', params: { id: ID } },
  { name: 'userIframe', pattern: '/user/iframe/:url', layout: 'user', middleware: USER, params: { url: /^.{1,2000}$/su } },
  { name: 'user', pattern: '/user', layout: 'user', middleware: USER },
  // A running module's own member-center page (its `user.page` slot components): no rule, see route-middleware.ts.
  { name: 'userModule', pattern: '/user/m/:uid', layout: 'user', middleware: USER, params: { uid: /^[a-z][a-z0-9_-]{1,49}$/ } },
  ...USER_CHILDREN.map(memberRoute),
];

export interface RouteMatch {
  route: RouteDef;
  params: Record<string, string>;
  /** False when a parameter breaks its rule: the request is answered with the 404 page. */
  valid: boolean;
}

interface Compiled { route: RouteDef; regex: RegExp; names: string[] }

const compiled: Compiled[] = ROUTES.map((route) => {
  const names: string[] = [];
  const source = route.pattern
    .split('/')
    .filter(Boolean)
    .map((segment) => {
      if (!segment.startsWith(':')) return `/${segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`;
      const optional = segment.endsWith('?');
      names.push(segment.slice(1, optional ? -1 : undefined));
      return optional ? '(?:/([^/]+))?' : '/([^/]+)';
    })
    .join('');
  return { route, names, regex: new RegExp(`^${source || '/'}/?$`) };
});

/** Finds the route of an app path (no query). Static segments win because they are listed first. */
export function matchRoute(pathname: string): RouteMatch | null {
  for (const { route, regex, names } of compiled) {
    const m = regex.exec(pathname);
    if (!m) continue;
    const params: Record<string, string> = {};
    let valid = true;
    names.forEach((name, i) => {
      const raw = m[i + 1];
      if (raw === undefined) return;
      let value: string;
      try { value = decodeURIComponent(raw); } catch { valid = false; return; }
      params[name] = value;
      if (CONTROL_CHARS.test(value)) valid = false;
      const rule = route.params?.[name];
      if (rule && !rule.test(value)) valid = false;
    });
    return { route, params, valid };
  }
  // A member page registered after this table was built (a module's).
  const late = pathname.startsWith('/user/') ? findMemberPage(pathname.slice('/user/'.length).replace(/\/$/, '')) : null;
  return late ? { route: lateRoutes.get(late.path) ?? lateRoutes.set(late.path, memberRoute(late.path)).get(late.path)!, params: {}, valid: true } : null;
}

const lateRoutes = new Map<string, RouteDef>();

/** Throws when a route names a middleware nobody registered: called at start and in tests. */
export function assertRouteMiddleware(known: readonly string[], routes: readonly RouteDef[] = ROUTES): void {
  for (const route of routes) {
    for (const name of route.middleware ?? []) {
      if (!known.includes(name)) throw new Error(`Route "${route.name}" (${route.pattern}) uses unknown route middleware "${name}". Known: ${known.join(', ')}`);
    }
  }
}
