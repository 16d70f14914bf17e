import type { APIContext } from 'astro';
import type { RouteMiddleware } from '../shared/routes';
import { iframeOrigins, splitRules, type RuleNode } from './site/rules';
import { memberModulePages } from './modules/slots';
import { translator, type Locale } from '../i18n';

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

/**
 * The menu folder of the running modules' member-center pages (`user.page` slot), or nothing. Derived
 * from what runs on every request, not stored as rules: enabling a module shows its entry, disabling
 * or uninstalling it takes the entry away, and no rule row is left behind. A member whose group holds
 * no rule at all (a disabled group) sees none; otherwise every member does, as the module's page is
 * the member's own (a module limits what its API routes answer by their declared access).
 */
function moduleMenu(pages: readonly { uid: string; label: string }[], locale: Locale): RuleNode | null {
  if (pages.length === 0) return null;
  const node = (id: number, fields: Partial<RuleNode>): RuleNode => ({
    id, pid: 0, type: 'menu', title: '', name: '', path: '', icon: '', menu_type: '', url: '', component: '', no_login_valid: 0, extend: '', redirect: '', ...fields,
  });
  return node(-1, {
    type: 'menu_dir', name: 'm', path: 'm', title: translator(locale, 'user')('user.modulePages'),
    children: pages.map((p, i) => node(-2 - i, { pid: -1, name: `m/${p.uid}`, path: `m/${p.uid}`, title: p.label, menu_type: 'tab' })),
  });
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
    const { rules: ruleNodes, menus } = splitRules(tree, origins);
    const modules = tree.length > 0 ? moduleMenu(memberModulePages(ctx.locals.runtime.modules.list(), ctx.locals.locale), ctx.locals.locale) : null;
    ctx.locals.memberCenter = { rules: ruleNodes, menus: modules ? [...menus, modules] : menus, tree, denied: rule && !holds(tree, rule) ? rule : null };
    return undefined;
  },
  /** Sends visitors to the login page, remembering where they wanted to go. */
  auth: async (ctx) => {
    if (ctx.locals.user) return undefined;
    const to = ctx.url.pathname + ctx.url.search;
    return ctx.redirect(`/user/login?to=${encodeURIComponent(to)}`, 302);
  },
};
