// Button permissions (spec §5, §6): the auth-node map sends a route path to the button paths the
// member may use there. Built on the server from the member's rule tree.

export interface RuleLike {
  type: string;
  name: string;
  path: string;
  children?: RuleLike[];
}

/** route path (`/user/account/profile`) → permission paths of its buttons. */
export function buildAuthNode(tree: readonly RuleLike[]): Map<string, string[]> {
  const map = new Map<string, string[]>();
  const walk = (nodes: readonly RuleLike[], routePath: string | null): void => {
    for (const node of nodes) {
      if (node.type === 'button' && routePath) {
        const list = map.get(routePath) ?? [];
        list.push(`/user/${node.name.replace(/^\/+/, '')}`);
        map.set(routePath, list);
      }
      const own = node.type === 'menu' || node.type === 'route' ? `/user/${node.path.replace(/^\/+/, '')}` : routePath;
      walk(node.children ?? [], own);
    }
  };
  walk(tree, null);
  return map;
}

/**
 * Granted when the current route's list holds `route + '/' + name`, or when `name` is written as
 * `node/button` and that node's list holds it.
 */
export function hasButton(authNode: ReadonlyMap<string, readonly string[]>, routePath: string, name: string): boolean {
  if (authNode.get(routePath)?.includes(`${routePath}/${name}`)) return true;
  const cut = name.lastIndexOf('/');
  if (cut <= 0) return false;
  const node = `/user/${name.slice(0, cut)}`;
  return authNode.get(node)?.includes(`/user/${name}`) ?? false;
}
