import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { mdBook, mdPage } from '../db/schema';
import { AppError } from '../http';
import { readFolder, type FolderBook } from './folder';
import { createBook } from './books';
import { createPage, pageTree, readingOrder, savePage } from './pages';
import { registerSeed } from '../seeds';
import { touched } from '../write-scope';
import { mdArea } from './cache-tags';

/**
 * Imports a folder structure into a book (creating the book when needed): new pages are created
 * under their parents in order, existing ones (same name) get a new revision when their text changed.
 */
export async function importBook(db: Db, name: string, folder: FolderBook, opts: { title?: string; description?: string; lang?: string; authorId?: number; message?: string } = {}): Promise<{ created: number; updated: number }> {
  let [book] = await db.select().from(mdBook).where(eq(sql`lower(${mdBook.name})`, name.toLowerCase()));
  book ??= await createBook(db, { name, title: opts.title ?? name, description: opts.description, lang: opts.lang });
  const ids = new Map<string, number>();
  let created = 0;
  let updated = 0;
  for (const p of folder.pages) {
    const [existing] = await db.select().from(mdPage).where(sql`${mdPage.bookId} = ${book.id} and ${mdPage.name} = ${p.name}`);
    const parentId = p.parent ? ids.get(p.parent) : 0;
    if (parentId === undefined) throw new AppError('md.pageMissing');
    if (existing) {
      ids.set(p.name, existing.id);
      await db.update(mdPage).set({ parentId, weigh: p.order }).where(eq(mdPage.id, existing.id));
      if (existing.content !== p.content || existing.title !== p.title) {
        await savePage(db, { bookId: book.id, name: p.name, title: p.title, content: p.content, baseRevision: existing.revisionId, message: opts.message ?? 'Import', authorId: opts.authorId ?? 0 });
        updated++;
      }
    } else {
      const page = await createPage(db, { bookId: book.id, name: p.name, title: p.title, parentId, content: p.content, authorId: opts.authorId ?? 0, message: opts.message ?? 'Import', weigh: p.order });
      ids.set(p.name, page.id);
      created++;
    }
  }
  touched(mdArea);
  return { created, updated };
}

/** A book as the folder structure `writeFolder` writes: the same tree, order, titles and text. */
export async function exportBook(db: Db, name: string): Promise<FolderBook | null> {
  const [book] = await db.select().from(mdBook).where(eq(sql`lower(${mdBook.name})`, name.toLowerCase()));
  if (!book) return null;
  const order = readingOrder(await pageTree(db, book.id));
  const rows = new Map((await db.select().from(mdPage).where(eq(mdPage.bookId, book.id))).map((r) => [r.id, r]));
  const nameOf = new Map(order.map((n) => [n.id, n.name]));
  return {
    pages: order.map((n) => {
      const row = rows.get(n.id)!;
      return { name: n.name, title: n.title, order: row.weigh, parent: n.parentId ? nameOf.get(n.parentId) ?? null : null, content: row.content };
    }),
  };
}

/** The guide this repository ships in `docs/`, as the site's first books (Chinese and English). */
export const GUIDE_BOOKS = [
  { name: 'guide', dir: 'zh-cn', lang: 'zh-cn', title: 'Atrium 使用指南', description: '安装、配置、部署、会员中心、社区、文档编辑与模块市场。', message: 'Atrium 自带的使用指南' },
  { name: 'guide-en', dir: 'en', lang: 'en', title: 'Atrium user guide', description: 'Installing, configuring and deploying Atrium; the member center, forum, docs editor and market.', message: 'Guide shipped with Atrium' },
] as const;

/** First start: when the site has no books yet, the guide becomes its documentation. */
export async function seedGuide(db: Db, root: string): Promise<string | null> {
  const [{ n } = { n: 0 }] = await db.select({ n: sql<number>`count(*)::int` }).from(mdBook);
  if (n > 0) return null;
  const done: string[] = [];
  for (const [i, g] of GUIDE_BOOKS.entries()) {
    const dir = join(root, 'docs', g.dir);
    if (!existsSync(dir)) continue;
    const book = await createBook(db, { name: g.name, title: g.title, description: g.description, lang: g.lang, weigh: 100 - i });
    const result = await importBook(db, book.name, await readFolder(dir), { message: g.message });
    done.push(`${g.name} (${result.created} pages)`);
  }
  return done.length ? `md: added the user guide ${done.join(', ')}` : null;
}

registerSeed({ name: 'md/guide', order: 20, run: (db, { root }) => seedGuide(db, root) });
