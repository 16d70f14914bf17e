import { and, asc, desc, eq, gt, inArray, lt, max, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { mdBook, mdPage, mdRedirect, mdRevision, mdSection, user } from '../db/schema';
import { AppError } from '../http';
import { searchVector } from '../search/text';
import { renderDoc } from './render';
import { currentRenderSet } from '../modules/markdown';
import { displayNameSql } from '../db/rows';
import { inTransaction, touched } from '../write-scope';
import { mdArea } from './cache-tags';

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
const now = (): number => Math.floor(Date.now() / 1000);

export const PAGE_NAME = /^[a-z0-9][a-z0-9._-]{0,99}$/;

export interface TreeNode { id: number; name: string; title: string; parentId: number; weigh: number; children: TreeNode[] }

/** The book's pages as a tree, siblings in order. */
export async function pageTree(db: Db | Tx, bookId: number): Promise<TreeNode[]> {
  const rows = await db.select({ id: mdPage.id, name: mdPage.name, title: mdPage.title, parentId: mdPage.parentId, weigh: mdPage.weigh })
    .from(mdPage).where(eq(mdPage.bookId, bookId)).orderBy(asc(mdPage.weigh), asc(mdPage.id));
  const byId = new Map(rows.map((r) => [r.id, { ...r, children: [] as TreeNode[] }]));
  const roots: TreeNode[] = [];
  for (const node of byId.values()) (byId.get(node.parentId)?.children ?? roots).push(node);
  return roots;
}

/** Depth-first reading order of a tree: what "previous" and "next" follow. */
export function readingOrder(tree: readonly TreeNode[]): TreeNode[] {
  return tree.flatMap((n) => [n, ...readingOrder(n.children)]);
}

/** Ancestors of a page, root first (breadcrumbs). */
export function ancestorsOf(tree: readonly TreeNode[], id: number): TreeNode[] {
  for (const node of tree) {
    if (node.id === id) return [];
    const below = ancestorsOf(node.children, id);
    if (below.length || node.children.some((c) => c.id === id)) return [node, ...below];
  }
  return [];
}

export type PageRow = typeof mdPage.$inferSelect;

/** A page by name, or where an old name now leads (`redirect`), or null. */
export async function findPage(db: Db, bookId: number, name: string): Promise<{ page: PageRow; redirect: boolean } | null> {
  const [page] = await db.select().from(mdPage).where(and(eq(mdPage.bookId, bookId), eq(mdPage.name, name)));
  if (page) return { page: await freshRender(db, page), redirect: false };
  const [moved] = await db.select({ page: mdPage }).from(mdRedirect).innerJoin(mdPage, eq(mdPage.id, mdRedirect.pageId))
    .where(and(eq(mdRedirect.bookId, bookId), eq(mdRedirect.name, name)));
  return moved ? { page: await freshRender(db, moved.page), redirect: true } : null;
}

/**
 * A page rendered with another set of markdown modules than the site's, rendered now (met on read
 * before the background walk reached it) and stored unless a new revision was saved meanwhile.
 */
async function freshRender(db: Db, page: PageRow): Promise<PageRow> {
  if (page.renderSet === currentRenderSet()) return page;
  const out = await renderDoc(page.title, page.content);
  await db.update(mdPage).set({ html: out.html, headings: out.headings, renderSet: out.renderSet }).where(and(eq(mdPage.id, page.id), eq(mdPage.revisionId, page.revisionId)));
  return { ...page, html: out.html, headings: out.headings, renderSet: out.renderSet };
}

export async function firstPage(db: Db, bookId: number): Promise<TreeNode | null> {
  return readingOrder(await pageTree(db, bookId))[0] ?? null;
}

export async function authorName(db: Db | Tx, id: number): Promise<string> {
  const [row] = await db.select({ name: displayNameSql }).from(user).where(eq(user.id, id));
  return row?.name ?? '';
}

async function writeSections(tx: Tx, page: { id: number; bookId: number }, title: string, sections: Awaited<ReturnType<typeof renderDoc>>['sections']): Promise<void> {
  await tx.delete(mdSection).where(eq(mdSection.pageId, page.id));
  if (!sections.length) return;
  await tx.insert(mdSection).values(sections.map((s) => ({
    pageId: page.id, bookId: page.bookId, anchor: s.anchor, heading: s.heading.slice(0, 300), text: s.text,
    searchVector: searchVector([{ text: s.anchor ? `${title} ${s.heading}` : title, weight: 'A' }, { text: s.text, weight: 'C' }]),
  })));
}

async function touchBook(tx: Tx, bookId: number): Promise<void> {
  await tx.update(mdBook).set({
    updateTime: now(), pageCount: sql`(select count(*)::int from md_page where book_id = ${bookId})`,
  }).where(eq(mdBook.id, bookId));
}

export interface Conflict { revisionId: number; title: string; content: string; author: string; time: number }

/**
 * Saves a page. `baseRevision` is the revision the editor started from: if someone saved since,
 * nothing is written and the current version comes back so the editor can show both and merge.
 */
export async function savePage(db: Db, input: { bookId: number; name: string; title: string; content: string; baseRevision: number; message: string; authorId: number }): Promise<{ revisionId: number } | { conflict: Conflict }> {
  const rendered = await renderDoc(input.title, input.content);
  return inTransaction(db, async (tx) => {
    const [page] = await tx.select().from(mdPage).where(and(eq(mdPage.bookId, input.bookId), eq(mdPage.name, input.name))).for('update');
    if (!page) throw new AppError('md.pageMissing', { status: 404 });
    if (page.revisionId !== input.baseRevision) {
      const [rev] = await tx.select().from(mdRevision).where(eq(mdRevision.id, page.revisionId));
      return { conflict: { revisionId: page.revisionId, title: page.title, content: page.content, author: await authorName(tx, rev?.authorId ?? 0), time: page.updateTime } };
    }
    touched(mdArea);
    if (page.content === input.content && page.title === input.title) return { revisionId: page.revisionId };
    const t = now();
    const [rev] = await tx.insert(mdRevision).values({ pageId: page.id, bookId: page.bookId, title: input.title, content: input.content, message: input.message, authorId: input.authorId, createTime: t })
      .returning({ id: mdRevision.id });
    await tx.update(mdPage).set({ title: input.title, content: input.content, html: rendered.html, renderSet: rendered.renderSet, headings: rendered.headings, revisionId: rev!.id, updatedBy: input.authorId, updateTime: t })
      .where(eq(mdPage.id, page.id));
    await writeSections(tx, page, input.title, rendered.sections);
    await touchBook(tx, page.bookId);
    return { revisionId: rev!.id };
  });
}

/** Adds a page at the end of its parent's children, with a first revision. */
export async function createPage(db: Db, input: { bookId: number; name: string; title: string; parentId?: number; content?: string; authorId: number; message?: string; weigh?: number }): Promise<PageRow> {
  if (!PAGE_NAME.test(input.name)) throw new AppError('md.pageName', { fieldKeys: { name: 'md.pageName' } });
  const content = input.content ?? '';
  const rendered = await renderDoc(input.title, content);
  return inTransaction(db, async (tx) => {
    touched(mdArea);
    const [taken] = await tx.select({ id: mdPage.id }).from(mdPage).where(and(eq(mdPage.bookId, input.bookId), eq(mdPage.name, input.name)));
    if (taken) throw new AppError('md.nameTaken', { fieldKeys: { name: 'md.nameTaken' } });
    const parentId = input.parentId ?? 0;
    if (parentId) {
      const [parent] = await tx.select({ id: mdPage.id }).from(mdPage).where(and(eq(mdPage.id, parentId), eq(mdPage.bookId, input.bookId)));
      if (!parent) throw new AppError('md.pageMissing', { status: 404 });
    }
    const [{ last } = { last: null }] = await tx.select({ last: max(mdPage.weigh) }).from(mdPage).where(and(eq(mdPage.bookId, input.bookId), eq(mdPage.parentId, parentId)));
    const t = now();
    const [page] = await tx.insert(mdPage).values({
      bookId: input.bookId, name: input.name, title: input.title, parentId, weigh: input.weigh ?? (last ?? 0) + 10, content,
      html: rendered.html, renderSet: rendered.renderSet, headings: rendered.headings, updatedBy: input.authorId, createTime: t, updateTime: t,
    }).returning();
    const [rev] = await tx.insert(mdRevision).values({ pageId: page!.id, bookId: input.bookId, title: input.title, content, message: input.message ?? '', authorId: input.authorId, createTime: t }).returning({ id: mdRevision.id });
    await tx.update(mdPage).set({ revisionId: rev!.id }).where(eq(mdPage.id, page!.id));
    // A new page takes the name back from any old page that redirected there.
    await tx.delete(mdRedirect).where(and(eq(mdRedirect.bookId, input.bookId), eq(mdRedirect.name, input.name)));
    await writeSections(tx, page!, input.title, rendered.sections);
    await touchBook(tx, input.bookId);
    return { ...page!, revisionId: rev!.id };
  });
}

/** Renames a page; the old name keeps leading to it (redirect), so links in the wild still work. */
export async function renamePage(db: Db, bookId: number, name: string, newName: string): Promise<void> {
  if (!PAGE_NAME.test(newName)) throw new AppError('md.pageName', { fieldKeys: { new_name: 'md.pageName' } });
  if (newName === name) return;
  await inTransaction(db, async (tx) => {
    touched(mdArea);
    const [page] = await tx.select().from(mdPage).where(and(eq(mdPage.bookId, bookId), eq(mdPage.name, name))).for('update');
    if (!page) throw new AppError('md.pageMissing', { status: 404 });
    const [taken] = await tx.select({ id: mdPage.id }).from(mdPage).where(and(eq(mdPage.bookId, bookId), eq(mdPage.name, newName)));
    if (taken) throw new AppError('md.nameTaken', { fieldKeys: { new_name: 'md.nameTaken' } });
    await tx.update(mdPage).set({ name: newName, updateTime: now() }).where(eq(mdPage.id, page.id));
    await tx.delete(mdRedirect).where(and(eq(mdRedirect.bookId, bookId), eq(mdRedirect.name, newName)));
    await tx.insert(mdRedirect).values({ bookId, name, pageId: page.id }).onConflictDoUpdate({ target: [mdRedirect.bookId, mdRedirect.name], set: { pageId: page.id } });
  });
}

/** Moves a page up or down among its siblings, or under another parent (at the end). */
export async function movePage(db: Db, bookId: number, name: string, to: { direction?: 'up' | 'down'; parent?: string | null }): Promise<void> {
  await inTransaction(db, async (tx) => {
    touched(mdArea);
    const [page] = await tx.select().from(mdPage).where(and(eq(mdPage.bookId, bookId), eq(mdPage.name, name))).for('update');
    if (!page) throw new AppError('md.pageMissing', { status: 404 });
    if (to.parent !== undefined) {
      let parentId = 0;
      if (to.parent) {
        const [parent] = await tx.select({ id: mdPage.id, parentId: mdPage.parentId }).from(mdPage).where(and(eq(mdPage.bookId, bookId), eq(mdPage.name, to.parent)));
        if (!parent) throw new AppError('md.pageMissing', { status: 404 });
        // Not under itself or one of its own descendants.
        const tree = await pageTree(tx, bookId);
        const below = (nodes: TreeNode[]): number[] => nodes.flatMap((n) => [n.id, ...below(n.children)]);
        const self = readingOrder(tree).find((n) => n.id === page.id)!;
        if (below([self]).includes(parent.id)) throw new AppError('md.moveIntoSelf');
        parentId = parent.id;
      }
      const [{ last } = { last: null }] = await tx.select({ last: max(mdPage.weigh) }).from(mdPage).where(and(eq(mdPage.bookId, bookId), eq(mdPage.parentId, parentId)));
      await tx.update(mdPage).set({ parentId, weigh: (last ?? 0) + 10 }).where(eq(mdPage.id, page.id));
      return;
    }
    const siblings = and(eq(mdPage.bookId, bookId), eq(mdPage.parentId, page.parentId));
    const [other] = to.direction === 'up'
      ? await tx.select().from(mdPage).where(and(siblings, lt(mdPage.weigh, page.weigh))).orderBy(desc(mdPage.weigh)).limit(1)
      : await tx.select().from(mdPage).where(and(siblings, gt(mdPage.weigh, page.weigh))).orderBy(asc(mdPage.weigh)).limit(1);
    if (!other) return;
    await tx.update(mdPage).set({ weigh: other.weigh }).where(eq(mdPage.id, page.id));
    await tx.update(mdPage).set({ weigh: page.weigh }).where(eq(mdPage.id, other.id));
  });
}

/** Deletes a page without sub-pages; its revisions stay for the record. */
export async function deletePage(db: Db, bookId: number, name: string): Promise<void> {
  await inTransaction(db, async (tx) => {
    touched(mdArea);
    const [page] = await tx.select().from(mdPage).where(and(eq(mdPage.bookId, bookId), eq(mdPage.name, name))).for('update');
    if (!page) throw new AppError('md.pageMissing', { status: 404 });
    const [child] = await tx.select({ id: mdPage.id }).from(mdPage).where(eq(mdPage.parentId, page.id)).limit(1);
    if (child) throw new AppError('md.hasChildren');
    await tx.delete(mdSection).where(eq(mdSection.pageId, page.id));
    await tx.delete(mdRedirect).where(eq(mdRedirect.pageId, page.id));
    await tx.delete(mdPage).where(eq(mdPage.id, page.id));
    await touchBook(tx, bookId);
  });
}

export async function pageHistory(db: Db, pageId: number) {
  return db.select({
    id: mdRevision.id, title: mdRevision.title, message: mdRevision.message, createTime: mdRevision.createTime,
    author: sql<string>`coalesce(${displayNameSql}, '')`, size: sql<number>`length(${mdRevision.content})`,
  }).from(mdRevision).leftJoin(user, eq(user.id, mdRevision.authorId)).where(eq(mdRevision.pageId, pageId)).orderBy(desc(mdRevision.id)).limit(200);
}

export async function getRevisions(db: Db, pageId: number, ids: readonly number[]) {
  return db.select().from(mdRevision).where(and(eq(mdRevision.pageId, pageId), inArray(mdRevision.id, [...ids])));
}

/** Restores an old revision as a new one (history is never rewritten). */
export async function restoreRevision(db: Db, bookId: number, name: string, revisionId: number, authorId: number, message: string): Promise<{ revisionId: number }> {
  const found = await findPage(db, bookId, name);
  if (!found || found.redirect) throw new AppError('md.pageMissing', { status: 404 });
  const [rev] = await getRevisions(db, found.page.id, [revisionId]);
  if (!rev) throw new AppError('md.revisionMissing', { status: 404 });
  const saved = await savePage(db, { bookId, name, title: rev.title, content: rev.content, baseRevision: found.page.revisionId, message, authorId });
  if ('conflict' in saved) throw new AppError('md.conflict');
  return saved;
}
