// The rule tree edited from the console and the CLI: create, edit, reorder, enable/disable, delete
// rules of every type (route, menu_dir, menu, nav_user_menu, nav, button) and menu type (tab, link,
// iframe). System rules (seeded by Atrium or a module, `system` = 1) may be renamed, moved, disabled
// and regrouped, never deleted nor renamed in name or type (code looks them up by name; the seed
// matches them by type and name, so it keeps what administrators changed). Every change touches
// `siteRules` (write-scope.ts): the rule trees are dropped on every instance once it commits.
import { and, asc, eq, inArray, ne, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { userGroup, userRule } from '../db/schema';
import type { Runtime } from '../runtime';
import { AppError } from '../http';
import type { GroupEditor } from './groups';
import { Code } from '../../shared/codes';
import { iframeOrigins } from '../site/rules';
import { siteRules } from '../site/cache-tags';

type RuleRow = typeof userRule.$inferSelect;

export interface RuleFields {
  pid: number;
  type: RuleRow['type'];
  title: string;
  title_en: string;
  name: string;
  path: string;
  icon: string;
  menu_type: string;
  url: string;
  extend: string;
  redirect: string;
  no_login_valid: number;
  remark: string;
}

const now = (): number => Math.floor(Date.now() / 1000);
const isStar = (rules: string): boolean => rules.trim() === '*';
const idsOf = (rules: string): number[] => rules.split(',').map((r) => Number(r.trim())).filter((n) => Number.isInteger(n) && n > 0);

/** Every rule, in tree order (weigh desc, id), for the console's editor. */
export async function allRules(db: Db): Promise<RuleRow[]> {
  return db.select().from(userRule).orderBy(sql`${userRule.weigh} desc`, asc(userRule.id));
}

async function ruleOr404(db: Db, id: number): Promise<RuleRow> {
  const [row] = await db.select().from(userRule).where(eq(userRule.id, id));
  if (!row) throw new AppError('admin.rules.notFound', { status: 404 });
  return row;
}

/** The checks a rule's fields need beyond their shape: parent, url by menu type, name unique by type. */
async function assertValid(rt: Runtime, input: RuleFields, self = 0): Promise<void> {
  if (input.pid) {
    const parent = await ruleOr404(rt.db, input.pid).catch(() => null);
    if (!parent) throw new AppError('admin.rules.noParent', { fieldKeys: { pid: 'admin.rules.noParent' } });
    // No rule under itself or one of its children: the tree would lose the branch.
    if (self) {
      const rows = new Map((await rt.db.select({ id: userRule.id, pid: userRule.pid }).from(userRule)).map((r) => [r.id, r.pid]));
      for (let at: number | undefined = input.pid; at; at = rows.get(at)) {
        if (at === self) throw new AppError('admin.rules.cycle', { fieldKeys: { pid: 'admin.rules.cycle' } });
      }
    }
  }
  if (input.type === 'menu' && input.menu_type === 'link' && !input.url) throw new AppError('admin.rules.urlNeeded', { fieldKeys: { url: 'admin.rules.urlNeeded' } });
  if (input.type === 'menu' && input.menu_type === 'iframe') {
    let origin = '';
    try { origin = /^https?:\/\//.test(input.url) ? new URL(input.url).origin : ''; } catch { origin = ''; }
    if (!origin) throw new AppError('admin.rules.urlNeeded', { fieldKeys: { url: 'admin.rules.urlNeeded' } });
    if (!(await iframeOrigins(rt.site)).includes(origin)) throw new AppError('admin.rules.iframeOrigin', { values: { origin }, fieldKeys: { url: 'admin.rules.iframeOrigin' } });
  }
  if (input.type === 'menu' && input.menu_type === 'tab' && !input.path) throw new AppError('admin.rules.pathNeeded', { fieldKeys: { path: 'admin.rules.pathNeeded' } });
  const taken = await rt.db.select({ id: userRule.id }).from(userRule)
    .where(and(eq(userRule.type, input.type), eq(userRule.name, input.name), ne(userRule.id, self))).limit(1);
  if (taken.length) throw new AppError('admin.rules.nameTaken', { fieldKeys: { name: 'admin.rules.nameTaken' } });
}

/** Refuses an editor whose group is not `*` (a rule's fields decide what every group sees). */
async function assertMayEditRules(db: Db, editor: GroupEditor): Promise<void> {
  if (editor === 'cli') return;
  const [group] = await db.select({ rules: userGroup.rules }).from(userGroup).where(eq(userGroup.id, editor.groupId));
  if (!group || !isStar(group.rules)) throw new AppError('admin.rules.onlyAll', { code: Code.noPermission });
}

const columns = (input: RuleFields) => ({
  pid: input.pid, type: input.type, title: input.title, titleEn: input.title_en, name: input.name,
  path: input.path || (input.type === 'button' ? '' : input.name), icon: input.icon, menuType: input.menu_type,
  url: input.url, extend: input.extend, redirect: input.redirect, noLoginValid: input.no_login_valid, remark: input.remark,
});

/**
 * A new rule, last among its siblings, enabled. As BuildAdmin does, every group holding its parent
 * gets it, so a new entry under a directory a group sees does not vanish for that group.
 */
export async function createRule(rt: Runtime, editor: GroupEditor, input: RuleFields, system = false): Promise<{ rule: RuleRow; groups: number[] }> {
  await assertMayEditRules(rt.db, editor);
  await assertValid(rt, input);
  const [{ low } = { low: 0 }] = await rt.db.select({ low: sql<number>`coalesce(min(${userRule.weigh}), 1)::int` }).from(userRule).where(eq(userRule.pid, input.pid));
  const { rule, groups } = await rt.db.transaction(async (tx) => {
    const [row] = await tx.insert(userRule).values({ ...columns(input), weigh: low - 1, status: 1, system: system ? 1 : 0, createTime: now(), updateTime: now() }).returning();
    const gave: number[] = [];
    if (input.pid) {
      for (const g of await tx.select({ id: userGroup.id, rules: userGroup.rules }).from(userGroup)) {
        if (isStar(g.rules) || !idsOf(g.rules).includes(input.pid)) continue;
        await tx.update(userGroup).set({ rules: [...idsOf(g.rules), row!.id].join(','), updateTime: now() }).where(eq(userGroup.id, g.id));
        gave.push(g.id);
      }
    }
    return { rule: row!, groups: gave };
  });
  await rt.invalidation.touched(siteRules);
  return { rule, groups };
}

/** Edits a rule; a system rule keeps its name and type (titles, place, target and the rest change). */
export async function editRule(rt: Runtime, editor: GroupEditor, id: number, input: RuleFields): Promise<{ before: RuleRow; after: RuleRow }> {
  await assertMayEditRules(rt.db, editor);
  const before = await ruleOr404(rt.db, id);
  if (before.system && (before.name !== input.name || before.type !== input.type)) {
    throw new AppError('admin.rules.systemName', { fieldKeys: { name: 'admin.rules.systemName' } });
  }
  await assertValid(rt, input, id);
  const [after] = await rt.db.update(userRule).set({ ...columns(input), updateTime: now() }).where(eq(userRule.id, id)).returning();
  await rt.invalidation.touched(siteRules);
  return { before, after: after! };
}

export async function setRuleStatus(rt: Runtime, editor: GroupEditor, id: number, status: number): Promise<RuleRow> {
  await assertMayEditRules(rt.db, editor);
  const rule = await ruleOr404(rt.db, id);
  await rt.db.update(userRule).set({ status, updateTime: now() }).where(eq(userRule.id, id));
  await rt.invalidation.touched(siteRules);
  return rule;
}

/** Puts the children of `pid` in the order given (the first shows first); every id must be one of them. */
export async function sortRules(rt: Runtime, editor: GroupEditor, pid: number, ids: readonly number[]): Promise<RuleRow[]> {
  await assertMayEditRules(rt.db, editor);
  const siblings = await rt.db.select().from(userRule).where(eq(userRule.pid, pid)).orderBy(sql`${userRule.weigh} desc`, asc(userRule.id));
  const known = new Set(siblings.map((s) => s.id));
  if (!ids.length || new Set(ids).size !== ids.length || ids.some((id) => !known.has(id))) throw new AppError('admin.rules.sortMismatch');
  // Siblings left out keep their place after the ones named.
  const order = [...ids, ...siblings.map((s) => s.id).filter((id) => !ids.includes(id))];
  await rt.db.transaction(async (tx) => {
    for (const [i, id] of order.entries()) await tx.update(userRule).set({ weigh: order.length - i, updateTime: now() }).where(eq(userRule.id, id));
  });
  await rt.invalidation.touched(siteRules);
  return order.map((id) => siblings.find((s) => s.id === id)!);
}

/** Deletes a rule an administrator made (not a system rule, not one with children) and takes it from every group. */
export async function deleteRule(rt: Runtime, editor: GroupEditor, id: number): Promise<RuleRow> {
  await assertMayEditRules(rt.db, editor);
  const rule = await ruleOr404(rt.db, id);
  if (rule.system) throw new AppError('admin.rules.systemDelete');
  const [child] = await rt.db.select({ id: userRule.id }).from(userRule).where(eq(userRule.pid, id)).limit(1);
  if (child) throw new AppError('admin.rules.hasChildren');
  await rt.db.transaction(async (tx) => {
    for (const g of await tx.select({ id: userGroup.id, rules: userGroup.rules }).from(userGroup)) {
      if (isStar(g.rules) || !idsOf(g.rules).includes(id)) continue;
      await tx.update(userGroup).set({ rules: idsOf(g.rules).filter((r) => r !== id).join(','), updateTime: now() }).where(eq(userGroup.id, g.id));
    }
    await tx.delete(userRule).where(eq(userRule.id, id));
  });
  await rt.invalidation.touched(siteRules);
  return rule;
}

/** Rules by name (every type) or id, for the CLI. */
export async function rulesNamed(db: Db, ref: string): Promise<RuleRow[]> {
  return /^\d{1,9}$/.test(ref) ? db.select().from(userRule).where(eq(userRule.id, Number(ref))) : db.select().from(userRule).where(inArray(userRule.name, [ref]));
}

/** What an audit row says of a rule. */
export function ruleSummary(rule: RuleRow): string {
  return JSON.stringify({ pid: rule.pid, type: rule.type, name: rule.name, title: rule.title, title_en: rule.titleEn, path: rule.path, menu_type: rule.menuType, url: rule.url, extend: rule.extend, redirect: rule.redirect, status: rule.status });
}
