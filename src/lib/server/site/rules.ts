import { and, asc, desc, eq, inArray } from 'drizzle-orm';
import type { Db } from '../db/client';
import { userGroup, userRule } from '../db/schema';
import type { Invalidation } from '../invalidation';
import { siteRules } from './cache-tags';
import { lookup, type Locale } from '../../i18n';
import type { ConfigStore } from './config';

/** A rule as the client receives it: BuildAdmin's snake_case fields, children nested. */
export interface RuleNode {
  id: number;
  pid: number;
  type: string;
  title: string;
  name: string;
  path: string;
  icon: string;
  menu_type: string;
  url: string;
  component: string;
  no_login_valid: number;
  extend: string;
  /** Where the route rule lookup sends a visitor of this rule's path ('' : nowhere). */
  redirect: string;
  children?: RuleNode[];
}

type RuleRow = typeof userRule.$inferSelect;

/**
 * A rule's title in `locale`: what an administrator set wins (the zh-cn `title`, the English
 * `title_en`); a seeded rule nobody renamed reads its title from the dictionaries.
 */
export function titleOf(row: Pick<RuleRow, 'name' | 'title' | 'titleEn' | 'system'>, locale: Locale): string {
  if (locale === 'en') return row.titleEn || (row.system ? lookup('en', 'user', `user.menu.${row.name}`) : undefined) || row.title;
  return row.title || (lookup(locale, 'user', `user.menu.${row.name}`) ?? row.name);
}

function toNode(row: RuleRow, locale: Locale): RuleNode {
  return {
    id: row.id, pid: row.pid, type: row.type, name: row.name, path: row.path, icon: row.icon,
    title: titleOf(row, locale),
    menu_type: row.menuType, url: row.url, component: row.component, no_login_valid: row.noLoginValid, extend: row.extend, redirect: row.redirect,
  };
}

/** Nests rows under their parents, keeping their order; a node whose parent is absent is top level. */
export function buildTree(rows: readonly RuleRow[], locale: Locale): RuleNode[] {
  const nodes = new Map(rows.map((r) => [r.id, toNode(r, locale)]));
  const roots: RuleNode[] = [];
  for (const node of nodes.values()) {
    const parent = node.pid ? nodes.get(node.pid) : undefined;
    if (parent) (parent.children ??= []).push(node);
    else roots.push(node);
  }
  return roots;
}

/** Origins iframe menus may embed: the `user_iframe_allow` setting (comma-separated, trailing slashes ignored). */
export function parseIframeOrigins(setting: string): string[] {
  return setting.split(',').map((o) => o.trim().replace(/\/+$/, '')).filter(Boolean);
}

/** The origins iframe menus may embed, as the site's settings hold them now. */
export async function iframeOrigins(site: Pick<ConfigStore, 'get'>): Promise<string[]> {
  return parseIframeOrigins(await site.get('user_iframe_allow', ''));
}

/** Whether `url` is an http(s) address on one of `origins` (an iframe menu's page would answer 404 otherwise). */
export function embeddable(url: string, origins: readonly string[]): boolean {
  try {
    const parsed = new URL(url);
    return /^https?:$/.test(parsed.protocol) && origins.includes(parsed.origin);
  } catch {
    return false;
  }
}

/**
 * Menus shown in the member center: `add_rules_only` nodes skipped, iframe menus whose origin is
 * not (or no longer) in `iframeOrigins` left out, then empty menu dirs dropped.
 */
export function menusOf(nodes: readonly RuleNode[], iframeOrigins: readonly string[]): RuleNode[] {
  const out: RuleNode[] = [];
  for (const node of nodes) {
    if (node.extend === 'add_rules_only' || node.type === 'button' || node.type === 'route') continue;
    if (node.type === 'menu_dir') {
      const children = menusOf(node.children ?? [], iframeOrigins);
      if (children.length) out.push({ ...node, children });
    } else if (node.type === 'menu') {
      if (node.menu_type === 'iframe' && !embeddable(node.url, iframeOrigins)) continue;
      out.push({ ...node, children: [] });
    }
  }
  return out;
}

/** Splits a member's rule tree as BuildAdmin's index call does: menu dirs → menus, the rest → rules. */
export function splitRules(tree: readonly RuleNode[], iframeOrigins: readonly string[]): { rules: RuleNode[]; menus: RuleNode[] } {
  const rules = tree.filter((n) => n.type !== 'menu' && n.type !== 'menu_dir');
  const menus = menusOf(tree.filter((n) => n.type === 'menu_dir'), iframeOrigins);
  return { rules, menus };
}

/** Rules a visitor may use: enabled, valid without login, of type route, nav or button. */
export async function anonymousRules(db: Db, locale: Locale): Promise<RuleNode[]> {
  const rows = await db.select().from(userRule)
    .where(and(eq(userRule.status, 1), eq(userRule.noLoginValid, 1), inArray(userRule.type, ['route', 'nav', 'button'])))
    .orderBy(desc(userRule.weigh), asc(userRule.id));
  return buildTree(rows, locale);
}

/** Every enabled rule, for a group whose rules are `*` (members get their group's subset). */
export async function enabledRules(db: Db, locale: Locale, ids: readonly number[] | '*'): Promise<RuleNode[]> {
  const where = ids === '*' ? eq(userRule.status, 1) : and(eq(userRule.status, 1), inArray(userRule.id, [...ids, -1]));
  const rows = await db.select().from(userRule).where(where).orderBy(desc(userRule.weigh), asc(userRule.id));
  return buildTree(rows, locale);
}

/** A member's rule tree: their group's rules (`*` is all), nothing when the group is disabled. */
export async function memberRules(db: Db, locale: Locale, groupId: number): Promise<RuleNode[]> {
  const [group] = await db.select().from(userGroup).where(eq(userGroup.id, groupId));
  if (!group || group.status !== 1) return [];
  const ids = group.rules.trim() === '*' ? '*' : group.rules.split(',').map(Number).filter(Number.isInteger);
  return enabledRules(db, locale, ids);
}

/**
 * Rule trees by group and locale, kept in memory: every member page and index call needs one and
 * they change only when an operator edits rules or groups, which touches `siteRules`
 * (site/cache-tags.ts): the trees are dropped here and on every other instance once it commits.
 */
export class RulesCache {
  readonly #trees = new Map<string, Promise<RuleNode[]>>();
  readonly #unsubscribe: () => void;

  constructor(private readonly db: Db, invalidation: Invalidation) {
    this.#unsubscribe = invalidation.listen((tags) => { if (tags.includes(siteRules)) this.#trees.clear(); });
  }

  /** The tree of a member group (`memberRules`). */
  forGroup(groupId: number, locale: Locale): Promise<RuleNode[]> {
    return this.#get(`g${groupId}:${locale}`, () => memberRules(this.db, locale, groupId));
  }

  /** The tree a visitor may use (`anonymousRules`). */
  forVisitor(locale: Locale): Promise<RuleNode[]> {
    return this.#get(`v:${locale}`, () => anonymousRules(this.db, locale));
  }

  close(): void {
    this.#unsubscribe();
    this.#trees.clear();
  }

  #get(key: string, load: () => Promise<RuleNode[]>): Promise<RuleNode[]> {
    let tree = this.#trees.get(key);
    if (!tree) {
      tree = load().catch((err: unknown) => { this.#trees.delete(key); throw err; });
      this.#trees.set(key, tree);
    }
    return tree;
  }
}

/** Whether a group is an administrator group (its rules are `*`). */
export async function isAdminGroup(db: Db, groupId: number): Promise<boolean> {
  const [group] = await db.select({ rules: userGroup.rules, status: userGroup.status }).from(userGroup).where(eq(userGroup.id, groupId));
  return group?.status === 1 && group.rules.trim() === '*';
}
