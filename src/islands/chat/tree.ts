// A conversation as a tree: every message knows the one before it, so an edited question or a
// regenerated answer starts a branch beside the old one instead of replacing it.
import type { ChatMetadata } from '../../lib/shared/chat';

export interface ChatNode {
  id: string;
  parentId: string;
  role: 'user' | 'assistant';
  text: string;
  metadata?: ChatMetadata;
}

export type Tree = Map<string, ChatNode>;

/** The branch ending at `leafId`, root first. */
export function pathTo(tree: Tree, leafId: string): ChatNode[] {
  const path: ChatNode[] = [];
  const seen = new Set<string>();
  let node = tree.get(leafId);
  while (node && !seen.has(node.id)) {
    seen.add(node.id);
    path.unshift(node);
    node = node.parentId ? tree.get(node.parentId) : undefined;
  }
  return path;
}

/** The messages sharing a node's parent and role, oldest first: the versions ‹1/2› switches between. */
export function siblingsOf(tree: Tree, node: ChatNode): ChatNode[] {
  return [...tree.values()].filter((n) => n.parentId === node.parentId && n.role === node.role);
}

/** The newest leaf below a node (following the newest child at each step). */
export function newestLeaf(tree: Tree, id: string): string {
  let current = id;
  for (let depth = 0; depth < 10_000; depth++) {
    const children = [...tree.values()].filter((n) => n.parentId === current);
    if (!children.length) return current;
    current = children.at(-1)!.id;
  }
  return current;
}

/** Adds a branch (root first) to the tree: each message's parent is the one before it. */
export function mergeBranch(tree: Tree, branch: Omit<ChatNode, 'parentId'>[]): Tree {
  const next = new Map(tree);
  branch.forEach((m, i) => {
    const parentId = i ? branch[i - 1]!.id : '';
    const old = next.get(m.id);
    if (old && old.text === m.text && old.metadata === m.metadata && old.parentId === parentId) return;
    next.set(m.id, { ...old, ...m, parentId });
  });
  return next;
}
