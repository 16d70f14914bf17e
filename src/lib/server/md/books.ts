import { and, asc, desc, eq, or, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { mdBook, mdBookEditor } from '../db/schema';
import { AppError } from '../http';
import type { Runtime } from '../runtime';
import type { UserRow } from '../db/rows';
import { isAdminGroup } from '../site/rules';
import { BOOK_NAME } from '../../shared/validation/md';
import { touched } from '../write-scope';
import { mdArea } from './cache-tags';

export type BookRow = typeof mdBook.$inferSelect;
export interface Reader { id: number; groupId: number }

/** Books a visitor or member may see: members-only books only for members; archived ones only when asked for. */
export async function listBooks(db: Db, reader: Reader | null, opts: { archived?: boolean } = {}): Promise<BookRow[]> {
  return db.select().from(mdBook).where(and(reader ? undefined : eq(mdBook.visibility, 'public'), opts.archived ? undefined : eq(mdBook.archiveTime, 0)))
    .orderBy(desc(mdBook.weigh), asc(mdBook.id));
}

/** The book's title in the reader's language: the English one for English readers when it has one. */
export function bookTitle(book: Pick<BookRow, 'title' | 'titleEn'>, locale: string): string {
  return locale === 'en' && book.titleEn ? book.titleEn : book.title;
}

/** A book by its URL name; null when it does not exist or the reader may not see it. */
export async function findBook(db: Db, name: string, reader: Reader | null): Promise<BookRow | null> {
  const [book] = await db.select().from(mdBook).where(eq(sql`lower(${mdBook.name})`, name.toLowerCase()));
  if (!book || (book.visibility === 'members' && !reader)) return null;
  return book;
}

/** Owner, listed editors and administrators edit a book; nobody edits an archived one. */
export async function canEdit(runtime: Runtime, book: BookRow, member: Pick<UserRow, 'id' | 'groupId'> | null | undefined): Promise<boolean> {
  if (!member || book.archiveTime) return false;
  if (book.ownerId === member.id) return true;
  const [editor] = await runtime.db.select({ userId: mdBookEditor.userId }).from(mdBookEditor)
    .where(and(eq(mdBookEditor.bookId, book.id), eq(mdBookEditor.userId, member.id)));
  if (editor) return true;
  return isAdminGroup(runtime.db, member.groupId);
}

/** The book an editing call works on: visible, and editable by the member (401 otherwise). */
export async function editableBook(runtime: Runtime, name: string, member: UserRow): Promise<BookRow> {
  const book = await findBook(runtime.db, name, member);
  if (!book) throw new AppError('md.bookMissing', { status: 404 });
  if (!(await canEdit(runtime, { ...book, archiveTime: 0 }, member))) throw new AppError('api.noPermission', { code: 401 });
  // Said after the permission check: only those who could edit learn why they cannot now.
  if (book.archiveTime) throw new AppError('md.books.archivedReadOnly');
  return book;
}

export const RESERVED_BOOK_NAMES = ['edit', 'search'];

export async function createBook(db: Db, input: { name: string; title: string; titleEn?: string; description?: string; lang?: string; visibility?: 'public' | 'members'; ownerId?: number; weigh?: number }): Promise<BookRow> {
  if (!BOOK_NAME.test(input.name)) throw new AppError('md.books.name', { fieldKeys: { name: 'md.books.name' } });
  if (RESERVED_BOOK_NAMES.includes(input.name.toLowerCase())) throw new AppError('md.nameTaken', { fieldKeys: { name: 'md.nameTaken' } });
  const t = Math.floor(Date.now() / 1000);
  const [row] = await db.insert(mdBook).values({
    name: input.name, title: input.title, titleEn: input.titleEn ?? '', description: input.description ?? '', lang: input.lang ?? 'zh-cn',
    visibility: input.visibility ?? 'public', ownerId: input.ownerId ?? 0, weigh: input.weigh ?? 0, createTime: t, updateTime: t,
  }).onConflictDoNothing().returning();
  if (!row) throw new AppError('md.nameTaken', { fieldKeys: { name: 'md.nameTaken' } });
  touched(mdArea);
  return row;
}

/** Creates a book, or changes the given settings of an existing one (operator CLI). */
export async function upsertBook(db: Db, name: string, set: { title?: string; titleEn?: string; description?: string; visibility?: 'public' | 'members'; ownerId?: number }): Promise<{ book: BookRow; created: boolean }> {
  const [existing] = await db.select().from(mdBook).where(eq(sql`lower(${mdBook.name})`, name.toLowerCase()));
  if (!existing) return { book: await createBook(db, { ...set, name, title: set.title ?? name }), created: true };
  const patch = Object.fromEntries(Object.entries(set).filter(([, v]) => v !== undefined));
  const [book] = await db.update(mdBook).set({ ...patch, updateTime: Math.floor(Date.now() / 1000) }).where(eq(mdBook.id, existing.id)).returning();
  touched(mdArea);
  return { book: book!, created: false };
}

export async function removeEditor(db: Db, bookId: number, userId: number): Promise<void> {
  await db.delete(mdBookEditor).where(and(eq(mdBookEditor.bookId, bookId), eq(mdBookEditor.userId, userId)));
}

export async function addEditor(db: Db, bookId: number, userId: number): Promise<void> {
  await db.insert(mdBookEditor).values({ bookId, userId }).onConflictDoNothing();
}

/** Books a member edits (owner or editor). */
export async function booksEditedBy(db: Db, userId: number): Promise<BookRow[]> {
  return db.selectDistinct({ book: mdBook }).from(mdBook).leftJoin(mdBookEditor, eq(mdBookEditor.bookId, mdBook.id))
    .where(or(eq(mdBook.ownerId, userId), eq(mdBookEditor.userId, userId))).then((rows) => rows.map((r) => r.book));
}
