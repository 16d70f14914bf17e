// Select search (spec §7) for the lists the console's pickers read: members, groups, books, modules,
// rules and the forum's categories. `GET <list URL>?select=true&quickSearch=…&page=&limit=` answers `{list, total}` of
// `{id, label}`, the label in the reply's language; the list route's own permission check runs first.
import { asc, ilike, or, sql, type SQL } from 'drizzle-orm';
import type { APIContext } from 'astro';
import type { Db } from '../db/client';
import { mdBook, user, userRule } from '../db/schema';
import { readInput } from '../http';
import { SelectInput } from '../../shared/validation/admin';
import type { Locale } from '../../i18n';
import { groupTitle, listGroups } from './groups';
import { SITE_MODULES, installedModules } from '../modules/installs';
import { titleOf } from '../site/rules';
import { listCategories } from '../ask/categories';

export interface SelectItem { id: number | string; label: string }
export interface SelectPage { list: SelectItem[]; total: number }
type Query = { quickSearch: string; page: number; limit: number };

/** Whether a GET asks for the select shape. */
export function wantsSelect(ctx: APIContext): boolean {
  const v = ctx.url.searchParams.get('select');
  return v === 'true' || v === '1';
}

export function readSelect(ctx: APIContext): Promise<Query> {
  return readInput(ctx, SelectInput);
}

/** `%term%` for ILIKE with the wildcards in the term taken literally. */
const like = (term: string): string => `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

function page<T extends SelectItem>(items: T[], q: Query): SelectPage {
  return { list: items.slice((q.page - 1) * q.limit, q.page * q.limit), total: items.length };
}

const matches = (q: Query, ...texts: (string | number)[]): boolean =>
  !q.quickSearch || texts.some((t) => String(t).toLowerCase().includes(q.quickSearch.toLowerCase()));

/** Members by username, nickname, e-mail or id; the label is the username (what account fields take). */
export async function selectMembers(db: Db, q: Query): Promise<SelectPage> {
  const where: SQL | undefined = q.quickSearch
    ? or(ilike(user.username, like(q.quickSearch)), ilike(user.nickname, like(q.quickSearch)), ilike(user.email, like(q.quickSearch)),
      ...(/^\d{1,9}$/.test(q.quickSearch) ? [sql`${user.id} = ${Number(q.quickSearch)}`] : []))
    : undefined;
  const [rows, [{ total } = { total: 0 }]] = await Promise.all([
    db.select({ id: user.id, username: user.username }).from(user).where(where).orderBy(asc(user.username)).limit(q.limit).offset((q.page - 1) * q.limit),
    db.select({ total: sql<number>`count(*)::int` }).from(user).where(where),
  ]);
  return { list: rows.map((r) => ({ id: r.id, label: r.username })), total };
}

export async function selectGroups(db: Db, locale: Locale, q: Query): Promise<SelectPage> {
  return page((await listGroups(db)).filter((g) => matches(q, g.name, g.nameEn, g.id)).map((g) => ({ id: g.id, label: groupTitle(g, locale) })), q);
}

export async function selectBooks(db: Db, locale: Locale, q: Query): Promise<SelectPage> {
  const rows = await db.select({ id: mdBook.id, name: mdBook.name, title: mdBook.title, titleEn: mdBook.titleEn }).from(mdBook).orderBy(asc(mdBook.name));
  return page(rows.filter((b) => matches(q, b.name, b.title, b.titleEn)).map((b) => ({ id: b.id, label: `${(locale === 'en' && b.titleEn) || b.title} (${b.name})` })), q);
}

export async function selectModules(db: Db, q: Query): Promise<SelectPage> {
  const installed = new Map((await installedModules(db)).map((m) => [m.uid, m.version]));
  return page(Object.entries(SITE_MODULES).filter(([uid]) => matches(q, uid)).map(([uid, m]) => ({ id: uid, label: `${uid} ${installed.get(uid) ?? m.version}` })), q);
}

export async function selectRules(db: Db, locale: Locale, q: Query): Promise<SelectPage> {
  const rows = await db.select().from(userRule).orderBy(sql`${userRule.weigh} desc`, asc(userRule.id));
  return page(rows.map((r) => ({ id: r.id, label: `${titleOf(r, locale)} (${r.name})`, name: r.name })).filter((r) => matches(q, r.label)).map(({ id, label }) => ({ id, label })), q);
}

/** The forum's categories by title (in the reply's language) or slug; the label is the title. */
export async function selectCategories(db: Db, locale: Locale, q: Query): Promise<SelectPage> {
  return page((await listCategories(db, locale)).filter((c) => matches(q, c.title, c.slug, c.id)).map((c) => ({ id: c.id, label: c.title })), q);
}
