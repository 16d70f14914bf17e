// The route rule lookup of spec §7 (method and path ours: GET /api/index/route?path=/x): the rule
// of the caller's tree whose path is `path`, and where it sends them (`redirect`: an app path, which
// the client router follows in-app, or an http(s) URL, a full page load). A member-center rule's
// relative path (`account/balance`) is matched as /user/account/balance.
import { z } from 'zod';
import { api, AppError, ok, readInput } from '../../../lib/server/http';
import type { RuleNode } from '../../../lib/server/site/rules';
import { routeAccess, as, ANYONE } from '../../../lib/shared/access';

export const RouteLookupInput = z.object({ path: z.string().trim().min(1).max(255).regex(/^\/(?!\/)/) });

const pathOf = (node: RuleNode): string => (node.path.startsWith('/') ? node.path : `/user/${node.path}`).replace(/(.)\/+$/, '$1');

function find(nodes: readonly RuleNode[], path: string): RuleNode | null {
  for (const node of nodes) {
    if (node.path && pathOf(node) === path) return node;
    const below = find(node.children ?? [], path);
    if (below) return below;
  }
  return null;
}

export const GET = api(async (ctx) => {
  const { path } = await readInput(ctx, RouteLookupInput);
  const { runtime, apiLocale: locale, session } = ctx.locals;
  // Rules valid without login hold for members too; a member's group adds its own.
  const visitor = await runtime.rules.forVisitor(locale);
  const tree = session?.row ? [...(await runtime.rules.forGroup(session.row.groupId, locale)), ...visitor] : visitor;
  const wanted = path.split(/[?#]/)[0]!.replace(/(.)\/+$/, '$1');
  // A rule with a redirect wins over one without, whatever their order (a menu and a route may share a path).
  const rule = find(withRedirect(tree), wanted) ?? find(tree, wanted);
  if (!rule) throw new AppError('notFound.title', { status: 404 });
  return ok({ name: rule.name, type: rule.type, redirect: rule.redirect });
});

/** The nodes (at any depth) that carry a redirect, flat. */
function withRedirect(nodes: readonly RuleNode[]): RuleNode[] {
  return nodes.flatMap((n) => [...(n.redirect ? [n] : []), ...withRedirect(n.children ?? [])]);
}

/** Who may call this route (tests/integration/authz-matrix.test.ts): anyone; the sample's path has no rule. */
export const access = routeAccess({
  GET: { ...as(ANYONE, 'notfound'), input: RouteLookupInput },
});
