// Running books from the browser: create, set up, choose editors, archive and restore, delete. Used by
// /md/edit (members whose group holds `md/book`, on the books they own) and the console's books
// section (every book). Each change returns what the audit row records and empties the docs pages
// of the page cache, so the index, the reader and the sitemap show it at once on every instance.
import type { APIContext } from 'astro';
import { and, asc, desc, eq, inArray, sql } from 'drizzle-orm';
import { mdBook, mdBookEditor, mdPage, mdRedirect, mdRevision, mdSection, user } from '../db/schema';
import { AppError, requestIp } from '../http';
import type { Runtime } from '../runtime';
import type { UserRow } from '../account/users';
import { findByAccount } from '../account/users';
import { hasRule, requireUser } from '../auth/guard';
import type { Actor } from '../admin/audit';
import type { Locale } from '../../i18n';
import { Code } from '../../shared/codes';
import { addEditor, createBook, removeEditor, type BookRow } from './books';
import { mdArea } from './cache-tags';

/** The rule that lets a member create books and run the ones they own (administrators hold it). */
export const BOOK_RULE = 'md/book';
/** The console's books section: every book, whoever owns it. */
export const BOOKS_SECTION_RULE = 'admin/books';

export interface BookManager { member: UserRow; all: boolean }

/** Who runs books: 401 unless the member's group holds `md/book` or the console's books section. */
export async function bookManager(runtime: Runtime, member: UserRow, locale: Locale): Promise<BookManager | null> {
  const [all, own] = await Promise.all([hasRule(runtime, member.groupId, locale, BOOKS_SECTION_RULE), hasRule(runtime, member.groupId, locale, BOOK_RULE)]);
  return all || own ? { member, all } : null;
}

export async function requireBookManager(runtime: Runtime, member: UserRow, locale: Locale): Promise<BookManager> {
  const manager = await bookManager(runtime, member, locale);
  if (!manager) throw new AppError('api.noPermission', { code: Code.noPermission });
  return manager;
}

/** A book by name, archived or not; 404 when it does not exist or is not the manager's to run. */
export async function managedBook(runtime: Runtime, manager: BookManager, name: string): Promise<BookRow> {
  const [book] = await runtime.db.select().from(mdBook).where(eq(sql`lower(${mdBook.name})`, name.toLowerCase()));
  if (!book || (!manager.all && book.ownerId !== manager.member.id)) throw new AppError('md.bookMissing', { status: 404 });
  return book;
}

export interface ManagedBook extends BookRow {
  ownerName: string;
  editors: { id: number; username: string }[];
  revisionCount: number;
}

/** The books a manager runs (all of them for the console), archived ones too, with owner, editors and history size. */
export async function managedBooks(runtime: Runtime, manager: BookManager | 'all'): Promise<ManagedBook[]> {
  const { db } = runtime;
  const mine = manager === 'all' || manager.all ? undefined : eq(mdBook.ownerId, manager.member.id);
  const books = await db.select({ b: mdBook, ownerName: sql<string>`coalesce(${user.username}, '')` }).from(mdBook)
    .leftJoin(user, eq(user.id, mdBook.ownerId)).where(mine).orderBy(asc(mdBook.archiveTime), desc(mdBook.weigh), asc(mdBook.id));
  const ids = books.map((b) => b.b.id);
  const [editors, revisions] = ids.length ? await Promise.all([
    db.select({ bookId: mdBookEditor.bookId, id: user.id, username: user.username }).from(mdBookEditor)
      .innerJoin(user, eq(user.id, mdBookEditor.userId)).where(inArray(mdBookEditor.bookId, ids)).orderBy(asc(user.username)),
    db.select({ bookId: mdRevision.bookId, n: sql<number>`count(*)::int` }).from(mdRevision).where(inArray(mdRevision.bookId, ids)).groupBy(mdRevision.bookId),
  ]) : [[], []];
  return books.map(({ b, ownerName }) => ({
    ...b, ownerName,
    editors: editors.filter((e) => e.bookId === b.id).map(({ id, username }) => ({ id, username })),
    revisionCount: revisions.find((r) => r.bookId === b.id)?.n ?? 0,
  }));
}

/** A member by account (name, email or mobile), or a field error on `field`. */
async function memberByAccount(runtime: Runtime, account: string, field: string): Promise<UserRow> {
  const row = await findByAccount(runtime.db, account);
  if (!row) throw new AppError('md.books.noMember', { fieldKeys: { [field]: 'md.books.noMember' } });
  return row;
}

/** Only the console chooses someone else as owner: a member running their own books stays their owner. */
async function ownerFor(runtime: Runtime, manager: BookManager, account: string): Promise<UserRow | null> {
  if (!account) return null;
  const owner = await memberByAccount(runtime, account, 'owner');
  if (!manager.all && owner.id !== manager.member.id) throw new AppError('api.noPermission', { code: Code.noPermission });
  return owner;
}

export interface NewBook {
  name: string; title: string; title_en: string; description: string; lang: 'zh-cn' | 'en'; visibility: 'public' | 'members'; owner: string;
}

/** Creates a book; its owner is the account given (console) or the manager. */
export async function createManagedBook(runtime: Runtime, manager: BookManager, input: NewBook): Promise<BookRow> {
  const owner = (await ownerFor(runtime, manager, input.owner)) ?? manager.member;
  const book = await createBook(runtime.db, {
    name: input.name, title: input.title, titleEn: input.title_en, description: input.description, lang: input.lang, visibility: input.visibility, ownerId: owner.id,
  });
  await runtime.invalidation.touched(mdArea);
  return book;
}

export interface BookSettings {
  name: string; title?: string; title_en?: string; description?: string; lang?: 'zh-cn' | 'en'; visibility?: 'public' | 'members'; owner: string; editor: string;
}

type Settable = Pick<BookRow, 'title' | 'titleEn' | 'description' | 'lang' | 'visibility' | 'ownerId'>;

/** Changes the settings given and adds an editor; returns before/after for the audit. */
export async function saveBookSettings(runtime: Runtime, manager: BookManager, input: BookSettings): Promise<{ book: BookRow; before: Partial<Settable>; after: Partial<Settable> & { addedEditor?: string } }> {
  const book = await managedBook(runtime, manager, input.name);
  const owner = await ownerFor(runtime, manager, input.owner);
  const editor = input.editor ? await memberByAccount(runtime, input.editor, 'editor') : null;
  const wanted: Partial<Settable> = {
    title: input.title, titleEn: input.title_en, description: input.description, lang: input.lang, visibility: input.visibility, ownerId: owner?.id,
  };
  const patch = Object.fromEntries(Object.entries(wanted).filter(([k, v]) => v !== undefined && v !== book[k as keyof Settable])) as Partial<Settable>;
  const before = Object.fromEntries(Object.keys(patch).map((k) => [k, book[k as keyof Settable]])) as Partial<Settable>;
  let row = book;
  if (Object.keys(patch).length) {
    [row] = await runtime.db.update(mdBook).set({ ...patch, updateTime: Math.floor(Date.now() / 1000) }).where(eq(mdBook.id, book.id)).returning() as [BookRow];
  }
  if (editor) await addEditor(runtime.db, book.id, editor.id);
  await runtime.invalidation.touched(mdArea);
  return { book: row, before, after: { ...patch, ...(editor ? { addedEditor: editor.username } : {}) } };
}

export async function dropBookEditor(runtime: Runtime, manager: BookManager, name: string, userId: number): Promise<BookRow> {
  const book = await managedBook(runtime, manager, name);
  await removeEditor(runtime.db, book.id, userId);
  await runtime.invalidation.touched(mdArea);
  return book;
}

/** Archives (read-only, out of the index, search and sitemap) or restores a book. */
export async function setBookArchived(runtime: Runtime, manager: BookManager, name: string, archive: boolean): Promise<BookRow> {
  const book = await managedBook(runtime, manager, name);
  const archiveTime = archive ? (book.archiveTime || Math.floor(Date.now() / 1000)) : 0;
  const [row] = await runtime.db.update(mdBook).set({ archiveTime }).where(eq(mdBook.id, book.id)).returning();
  await runtime.invalidation.touched(mdArea);
  return row!;
}

/** Deletes a book with its pages, their history, old addresses and search sections; says how much went. */
export async function deleteManagedBook(runtime: Runtime, manager: BookManager, name: string): Promise<{ book: BookRow; pages: number; revisions: number }> {
  const book = await managedBook(runtime, manager, name);
  const counts = await runtime.db.transaction(async (tx) => {
    await tx.delete(mdSection).where(eq(mdSection.bookId, book.id));
    await tx.delete(mdRedirect).where(eq(mdRedirect.bookId, book.id));
    const revisions = await tx.delete(mdRevision).where(eq(mdRevision.bookId, book.id)).returning({ id: mdRevision.id });
    const pages = await tx.delete(mdPage).where(eq(mdPage.bookId, book.id)).returning({ id: mdPage.id });
    await tx.delete(mdBookEditor).where(eq(mdBookEditor.bookId, book.id));
    await tx.delete(mdBook).where(and(eq(mdBook.id, book.id)));
    return { pages: pages.length, revisions: revisions.length };
  });
  await runtime.invalidation.touched(mdArea);
  return { book, ...counts };
}

/** The caller of a /api/md/book* route as a book manager and an audit actor (303 without a session, 401 without the rule). */
export async function requireBookManagerCall(ctx: APIContext): Promise<{ manager: BookManager; actor: Actor }> {
  const member = requireUser(ctx);
  const manager = await requireBookManager(ctx.locals.runtime, member, ctx.locals.locale);
  return { manager, actor: { id: member.id, username: member.username, ip: requestIp(ctx) } };
}
