// Member groups and the rules they hold: create, rename, copy, delete (moving the members), change
// rules; from the console and the CLI alike. A change touches `siteRules` (write-scope.ts): the rule
// trees are dropped on every instance once it commits, so it holds on the next request everywhere.
// No escalation: an editor whose group is not `*` grants only rules they hold, never edits their
// own group, and never moves anyone into or out of a group holding more than they do.
import { asc, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { user, userGroup, userRule } from '../db/schema';
import type { Runtime } from '../runtime';
import { AppError } from '../http';
import { ADMIN_GROUP, MEMBER_GROUP } from '../site/seed';
import type { Locale } from '../../i18n';
import { Code } from '../../shared/codes';
import { siteRules } from '../site/cache-tags';
import { memberCard } from '../account/cache-tags';

export interface GroupItem { id: number; name: string; nameEn: string; rules: string; status: number; members: number }

/** Who changes groups: the member's group in the console, or the operator's CLI (every right). */
export type GroupEditor = { groupId: number; memberId: number } | 'cli';

type GroupRow = typeof userGroup.$inferSelect;

/** The name a group shows in `locale`: the English name on English pages when it has one. */
export function groupTitle(group: { name: string; nameEn: string }, locale: Locale): string {
  return locale === 'en' && group.nameEn ? group.nameEn : group.name;
}

export async function listGroups(db: Db): Promise<GroupItem[]> {
  const rows = await db.select({
    id: userGroup.id, name: userGroup.name, nameEn: userGroup.nameEn, rules: userGroup.rules, status: userGroup.status,
    // Spelled out: inside a select list drizzle leaves columns unqualified, and "id" would be the member's.
    members: sql<number>`(select count(*)::int from "user" m where m.group_id = "user_group"."id")`,
  }).from(userGroup).orderBy(asc(userGroup.id));
  return rows;
}

/** A group by id or (case-insensitive) name, zh-cn or English. */
export async function findGroup(db: Db, nameOrId: string): Promise<GroupRow | null> {
  const where = /^\d{1,9}$/.test(nameOrId)
    ? eq(userGroup.id, Number(nameOrId))
    : sql`lower(${userGroup.name}) = lower(${nameOrId}) or (${userGroup.nameEn} <> '' and lower(${userGroup.nameEn}) = lower(${nameOrId}))`;
  const [row] = await db.select().from(userGroup).where(where).orderBy(asc(userGroup.id)).limit(1);
  return row ?? null;
}

const isStar = (rules: string): boolean => rules.trim() === '*';
const idsOf = (rules: string): number[] => rules.split(',').map((r) => Number(r.trim())).filter((n) => Number.isInteger(n) && n > 0);

/** Every rule (enabled or not), for names ↔ ids and ancestors. */
async function ruleRows(db: Db): Promise<{ id: number; pid: number; name: string; type: string; title: string; status: number }[]> {
  return db.select({ id: userRule.id, pid: userRule.pid, name: userRule.name, type: userRule.type, title: userRule.title, status: userRule.status })
    .from(userRule).orderBy(asc(userRule.id));
}

/** Rule ids from names (`account/balance`) or ids; refuses unknown ones with their names. */
export async function ruleIdsOf(db: Db, refs: readonly string[]): Promise<number[]> {
  const rows = await ruleRows(db);
  const out: number[] = [];
  const unknown: string[] = [];
  for (const ref of refs.map((r) => r.trim()).filter(Boolean)) {
    // A name may exist under two types (messageCenter: a route and a user-menu entry): both.
    const found = /^\d{1,9}$/.test(ref) ? rows.filter((r) => r.id === Number(ref)) : rows.filter((r) => r.name === ref);
    if (!found.length) unknown.push(ref);
    out.push(...found.map((r) => r.id));
  }
  if (unknown.length) throw new AppError('admin.groups.unknownRule', { values: { rules: unknown.join(', ') }, fieldKeys: { rules: 'admin.groups.unknownRule' } });
  return out;
}

/** The ids with every ancestor added (a menu shows only under its directory), sorted, existing only. */
async function withAncestors(db: Db, ids: readonly number[]): Promise<number[]> {
  const rows = new Map((await ruleRows(db)).map((r) => [r.id, r]));
  const out = new Set<number>();
  for (const id of ids) {
    let row = rows.get(id);
    while (row && !out.has(row.id)) {
      out.add(row.id);
      row = row.pid ? rows.get(row.pid) : undefined;
    }
  }
  return [...out].sort((a, b) => a - b);
}

/** The rule ids an editor holds (`*`: all). */
async function editorRules(db: Db, editor: GroupEditor): Promise<Set<number> | '*'> {
  if (editor === 'cli') return '*';
  const [group] = await db.select().from(userGroup).where(eq(userGroup.id, editor.groupId));
  if (!group || group.status !== 1) return new Set();
  return isStar(group.rules) ? '*' : new Set(idsOf(group.rules));
}

/** Refuses rules the editor does not hold (only grants count: removing is never an escalation). */
async function assertMayGrant(db: Db, editor: GroupEditor, rules: string, before = ''): Promise<void> {
  const held = await editorRules(db, editor);
  if (held === '*') return;
  if (isStar(rules)) throw new AppError('admin.groups.escalation', { code: Code.noPermission });
  const had = isStar(before) ? null : new Set(idsOf(before));
  if (idsOf(rules).some((id) => !held.has(id) && !had?.has(id))) throw new AppError('admin.groups.escalation', { code: Code.noPermission });
}

/** Refuses a group the editor may not touch: their own, or one holding rules they lack. */
async function assertMayEdit(db: Db, editor: GroupEditor, group: GroupRow): Promise<void> {
  if (editor === 'cli') return;
  const held = await editorRules(db, editor);
  if (held === '*') return;
  if (group.id === editor.groupId) throw new AppError('admin.groups.ownGroup', { code: Code.noPermission });
  if (isStar(group.rules) || idsOf(group.rules).some((id) => !held.has(id))) throw new AppError('admin.groups.escalation', { code: Code.noPermission });
}

/** Refuses moving a member (the editor themselves, or from or into a group holding more than the editor). */
export async function assertMayMove(db: Db, editor: GroupEditor, memberId: number, fromGroup: number, toGroup: number): Promise<void> {
  if (editor === 'cli') return;
  const held = await editorRules(db, editor);
  if (held === '*') return;
  if (memberId === editor.memberId) throw new AppError('admin.groups.ownGroup', { code: Code.noPermission });
  const groups = await db.select().from(userGroup).where(inArray(userGroup.id, [fromGroup, toGroup]));
  for (const g of groups) {
    if (isStar(g.rules) || idsOf(g.rules).some((id) => !held.has(id))) throw new AppError('admin.groups.escalation', { code: Code.noPermission });
  }
}

async function groupOr404(db: Db, id: number): Promise<GroupRow> {
  const [group] = await db.select().from(userGroup).where(eq(userGroup.id, id));
  if (!group) throw new AppError('admin.member.noGroup', { status: 404 });
  return group;
}

async function assertNameFree(db: Db, name: string, nameEn: string, except = 0): Promise<void> {
  const taken = await db.select({ id: userGroup.id }).from(userGroup)
    .where(sql`${userGroup.id} <> ${except} and (lower(${userGroup.name}) = lower(${name}) or (${nameEn} <> '' and lower(${userGroup.nameEn}) = lower(${nameEn})))`).limit(1);
  if (taken.length) throw new AppError('admin.groups.nameTaken', { fieldKeys: { name: 'admin.groups.nameTaken' } });
}

const now = (): number => Math.floor(Date.now() / 1000);

/** A rules value from ids: `*` kept, ancestors added. */
async function rulesValue(db: Db, ids: readonly number[] | '*'): Promise<string> {
  return ids === '*' ? '*' : (await withAncestors(db, ids)).join(',');
}

export async function createGroup(rt: Runtime, editor: GroupEditor, input: { name: string; nameEn: string; rules: readonly number[] }): Promise<GroupRow> {
  const rules = await rulesValue(rt.db, input.rules);
  await assertMayGrant(rt.db, editor, rules);
  await assertNameFree(rt.db, input.name, input.nameEn);
  const [row] = await rt.db.insert(userGroup).values({ name: input.name, nameEn: input.nameEn, rules, status: 1, createTime: now(), updateTime: now() }).returning();
  await rt.invalidation.touched(siteRules);
  return row!;
}

/** A new group with another group's rules. */
export async function copyGroup(rt: Runtime, editor: GroupEditor, id: number, input: { name: string; nameEn: string }): Promise<GroupRow> {
  const source = await groupOr404(rt.db, id);
  await assertMayGrant(rt.db, editor, source.rules);
  await assertNameFree(rt.db, input.name, input.nameEn);
  const [row] = await rt.db.insert(userGroup).values({ name: input.name, nameEn: input.nameEn, rules: source.rules, status: 1, createTime: now(), updateTime: now() }).returning();
  await rt.invalidation.touched(siteRules);
  return row!;
}

export async function renameGroup(rt: Runtime, editor: GroupEditor, id: number, input: { name: string; nameEn: string }): Promise<{ before: GroupRow; after: GroupRow }> {
  const before = await groupOr404(rt.db, id);
  await assertMayEdit(rt.db, editor, before);
  await assertNameFree(rt.db, input.name, input.nameEn, id);
  const [after] = await rt.db.update(userGroup).set({ name: input.name, nameEn: input.nameEn, updateTime: now() }).where(eq(userGroup.id, id)).returning();
  await rt.invalidation.touched(siteRules);
  return { before, after: after! };
}

/** Sets a group's rules (not the administrators' `*`, which always holds every rule). */
export async function setGroupRules(rt: Runtime, editor: GroupEditor, id: number, ids: readonly number[]): Promise<{ before: string; after: string; group: GroupRow }> {
  const group = await groupOr404(rt.db, id);
  if (isStar(group.rules)) throw new AppError('admin.groups.adminLocked');
  await assertMayEdit(rt.db, editor, group);
  const rules = await rulesValue(rt.db, ids);
  await assertMayGrant(rt.db, editor, rules, group.rules);
  await rt.db.update(userGroup).set({ rules, updateTime: now() }).where(eq(userGroup.id, id));
  await rt.invalidation.touched(siteRules);
  return { before: group.rules, after: rules, group };
}

/** Deletes a group, moving its members to `moveTo` first (one transaction). Returns how many moved. */
export async function deleteGroup(rt: Runtime, editor: GroupEditor, id: number, moveTo: number): Promise<{ group: GroupRow; target: GroupRow; moved: number }> {
  const group = await groupOr404(rt.db, id);
  // New members join the member group and the administrators' must stay: neither is deleted.
  if (id === MEMBER_GROUP || id === ADMIN_GROUP) throw new AppError('admin.groups.builtIn');
  if (moveTo === id) throw new AppError('admin.groups.moveToSelf', { fieldKeys: { move_to: 'admin.groups.moveToSelf' } });
  const target = await groupOr404(rt.db, moveTo);
  await assertMayEdit(rt.db, editor, group);
  await assertMayGrant(rt.db, editor, target.rules);
  const moved = await rt.db.transaction(async (tx) => {
    const rows = await tx.update(user).set({ groupId: moveTo, updateTime: now() }).where(eq(user.groupId, id)).returning({ id: user.id });
    await tx.delete(userGroup).where(eq(userGroup.id, id));
    return rows.map((r) => r.id);
  });
  for (const memberId of moved) await rt.sessions.forgetUser(memberId);
  await rt.invalidation.touched(siteRules, ...moved.map(memberCard));
  return { group, target, moved: moved.length };
}

export interface RuleItem { id: number; pid: number; name: string; type: string; title: string; status: number; depth: number }

/** Every rule in tree order (parents before children), each with its depth, for the picker and `rule:list`. */
export async function ruleOutline(db: Db): Promise<RuleItem[]> {
  const rows = await db.select({ id: userRule.id, pid: userRule.pid, name: userRule.name, type: userRule.type, title: userRule.title, status: userRule.status, weigh: userRule.weigh })
    .from(userRule).orderBy(sql`${userRule.weigh} desc`, asc(userRule.id));
  const ids = new Set(rows.map((r) => r.id));
  const children = new Map<number, typeof rows>();
  for (const r of rows) {
    const parent = ids.has(r.pid) ? r.pid : 0;
    children.set(parent, [...(children.get(parent) ?? []), r]);
  }
  const out: RuleItem[] = [];
  const walk = (pid: number, depth: number): void => {
    for (const r of children.get(pid) ?? []) {
      out.push({ id: r.id, pid: r.pid, name: r.name, type: r.type, title: r.title, status: r.status, depth });
      walk(r.id, depth + 1);
    }
  };
  walk(0, 0);
  return out;
}

/** Rule names of a rules value (`*` stays `*`), for audit rows and the CLI. */
export async function ruleNames(db: Db, rules: string): Promise<string> {
  if (isStar(rules)) return '*';
  const byId = new Map((await ruleRows(db)).map((r) => [r.id, r.name]));
  return [...new Set(idsOf(rules).map((id) => byId.get(id) ?? `#${id}`))].join(',');
}
