import type { APIContext } from 'astro';
import type { RouteMiddleware } from '../shared/routes';
import { iframeOrigins, splitRules, type RuleNode } from './site/rules';

/** A named route middleware (spec §2): returns a Response to stop the request, nothing to go on. */
export type RouteGuard = (ctx: APIContext) => Promise<Response | undefined>;

/** The member-center data a `/user` page renders its menu from. */
export interface MemberCenter {
  menus: RuleNode[];
  rules: RuleNode[];
  /** The whole tree, buttons included, for permission checks. */
  tree: RuleNode[];
  /** The page's declared rule (RouteDef.rule) when the member's group does not hold it. */
  denied: string | null;
}

const holds = (nodes: readonly RuleNode[], name: string): boolean => nodes.some((n) => n.name === name || holds(n.children ?? [], name));

export const ROUTE_MIDDLEWARE: Record<RouteMiddleware, RouteGuard> = {
  /** Loads the member's rule tree for the member-center layout, and whether it grants the page's rule. */
  'user-mount': async (ctx) => {
    const session = ctx.locals.session;
    if (!session) return undefined;
    const { rules, site } = ctx.locals.runtime;
    const [tree, origins] = await Promise.all([rules.forGroup(session.row.groupId, ctx.locals.locale), iframeOrigins(site)]);
    const rule = ctx.locals.route?.route.rule;
    // The allowed origins are read per request (the settings store keeps them in memory): an origin
    // taken from `user_iframe_allow` drops its menus at once, without touching the rule cache.
    ctx.locals.memberCenter = { ...splitRules(tree, origins), tree, denied: rule && !holds(tree, rule) ? rule : null };
    return undefined;
  },
  /** Sends visitors to the login page, remembering where they wanted to go. */
  auth: async (ctx) => {
    if (ctx.locals.user) return undefined;
    const to = ctx.url.pathname + ctx.url.search;
    return ctx.redirect(`/user/login?to=${encodeURIComponent(to)}`, 302);
  },
};
