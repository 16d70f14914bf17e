// Content decisions of the console: notices, reports, books, invoices and withdrawals, site modules.
// Each function changes one thing and returns what the audit row records.
import { and, asc, desc, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { askReport, mdBook, mdBookEditor, notice, user } from '../db/schema';
import type { Runtime } from '../runtime';
import { AppError } from '../http';
import { addNotice } from '../account/notices';
import { decideReport, removeTarget, restoreTarget, tellReportOutcome, type ReportOutcome } from '../ask/moderation';
import { addEditor, removeEditor, type BookRow } from '../md/books';
import { findByAccount } from '../account/users';
import { decideInvoice } from '../account/invoices';
import { decideWithdrawal } from '../market/studio';
import { SITE_MODULES, installModule, uninstallModule } from '../modules/installs';

export type NoticeRow = typeof notice.$inferSelect;

export async function allNotices(db: Db): Promise<NoticeRow[]> {
  return db.select().from(notice).orderBy(desc(notice.id)).limit(200);
}

/** Publishes a new notice (id 0) or edits one; returns its id and the previous text. */
export async function saveNotice(db: Db, input: { id: number; title: string; content: string }): Promise<{ id: number; before: { title: string; content: string } | null }> {
  if (!input.id) return { id: await addNotice(db, input.title, input.content), before: null };
  const [old] = await db.select().from(notice).where(eq(notice.id, input.id));
  if (!old) throw new AppError('admin.notices.notFound', { status: 404 });
  await db.update(notice).set({ title: input.title, content: input.content }).where(eq(notice.id, input.id));
  return { id: input.id, before: { title: old.title, content: old.content } };
}

export async function setNoticeStatus(db: Db, id: number, status: number): Promise<number> {
  const [old] = await db.select({ status: notice.status }).from(notice).where(eq(notice.id, id));
  if (!old) throw new AppError('admin.notices.notFound', { status: 404 });
  await db.update(notice).set({ status }).where(eq(notice.id, id));
  return old.status;
}

/**
 * Decides a report: `dismiss` closes it; `remove` deletes the post or reply and closes every open
 * report of it; `restore` (on a report closed as resolved) puts the content back and marks its
 * reports dismissed. The author and the reporters are told (lib/server/ask/moderation.ts).
 */
export async function closeReport(rt: Runtime, moderatorId: number, id: number, action: ReportOutcome, reason = ''): Promise<{ type: string; targetId: number; status: string; told: number }> {
  const wanted = action === 'restore' ? 'resolved' : 'open';
  const [row] = await rt.db.select().from(askReport).where(and(eq(askReport.id, id), eq(askReport.status, wanted)));
  if (!row) throw new AppError('ask.reportMissing', { status: 404 });
  const sameTarget = and(eq(askReport.targetType, row.targetType), eq(askReport.targetId, row.targetId));
  const handled = { handledBy: moderatorId, handleTime: Math.floor(Date.now() / 1000) };
  let reporters: number[];
  let status: 'resolved' | 'dismissed';
  if (action === 'dismiss') {
    await decideReport(rt.db, moderatorId, id, 'dismissed');
    reporters = [row.userId];
    status = 'dismissed';
  } else {
    if (action === 'remove') {
      try {
        await removeTarget(rt.db, { id: moderatorId, moderator: true }, row.targetType as 'post' | 'reply', row.targetId);
      } catch (err) {
        // Already removed by someone else: the report is still settled.
        if (!(err instanceof AppError) || err.options.status !== 404) throw err;
      }
    } else {
      await restoreTarget(rt.db, row.targetType as 'post' | 'reply', row.targetId);
    }
    status = action === 'remove' ? 'resolved' : 'dismissed';
    const closed = await rt.db.update(askReport).set({ status, ...handled }).where(and(sameTarget, eq(askReport.status, wanted))).returning({ userId: askReport.userId });
    reporters = closed.map((r) => r.userId);
    await rt.pageCache.invalidate(['ask']);
  }
  const told = await tellReportOutcome(rt.db, row, action, reporters, reason || row.reason);
  return { type: row.targetType, targetId: row.targetId, status, told };
}

export interface BookAdmin extends BookRow { ownerName: string; editors: { id: number; username: string }[] }

export async function booksForAdmin(db: Db): Promise<BookAdmin[]> {
  const books = await db.select({ b: mdBook, ownerName: sql<string>`coalesce(${user.username}, '')` }).from(mdBook)
    .leftJoin(user, eq(user.id, mdBook.ownerId)).orderBy(desc(mdBook.weigh), asc(mdBook.id));
  const ids = books.map((b) => b.b.id);
  const editors = ids.length
    ? await db.select({ bookId: mdBookEditor.bookId, id: user.id, username: user.username }).from(mdBookEditor)
      .innerJoin(user, eq(user.id, mdBookEditor.userId)).where(inArray(mdBookEditor.bookId, ids)).orderBy(asc(user.username))
    : [];
  return books.map(({ b, ownerName }) => ({ ...b, ownerName, editors: editors.filter((e) => e.bookId === b.id).map(({ id, username }) => ({ id, username })) }));
}

/** Changes a book's visibility and owner, adds an editor; returns before/after for the audit. */
export async function saveBook(rt: Runtime, input: { name: string; visibility: 'public' | 'members'; owner: string; editor: string }): Promise<{ before: object; after: object }> {
  const [book] = await rt.db.select().from(mdBook).where(eq(sql`lower(${mdBook.name})`, input.name.toLowerCase()));
  if (!book) throw new AppError('admin.books.notFound', { status: 404 });
  const owner = input.owner ? await findByAccount(rt.db, input.owner) : null;
  if (input.owner && !owner) throw new AppError('admin.member.notFound', { fieldKeys: { owner: 'admin.member.notFound' } });
  const editor = input.editor ? await findByAccount(rt.db, input.editor) : null;
  if (input.editor && !editor) throw new AppError('admin.member.notFound', { fieldKeys: { editor: 'admin.member.notFound' } });
  await rt.db.update(mdBook).set({ visibility: input.visibility, ...(owner ? { ownerId: owner.id } : {}), updateTime: Math.floor(Date.now() / 1000) }).where(eq(mdBook.id, book.id));
  if (editor) await addEditor(rt.db, book.id, editor.id);
  await rt.pageCache.invalidate(['md']);
  return {
    before: { visibility: book.visibility, ownerId: book.ownerId },
    after: { visibility: input.visibility, ownerId: owner?.id ?? book.ownerId, ...(editor ? { addedEditor: editor.username } : {}) },
  };
}

export async function dropEditor(rt: Runtime, name: string, userId: number): Promise<void> {
  const [book] = await rt.db.select({ id: mdBook.id }).from(mdBook).where(eq(sql`lower(${mdBook.name})`, name.toLowerCase()));
  if (!book) throw new AppError('admin.books.notFound', { status: 404 });
  await removeEditor(rt.db, book.id, userId);
}

export async function decideInvoiceRequest(db: Db, id: number, approve: boolean, remark: string): Promise<void> {
  if (!(await decideInvoice(db, id, approve ? 'issued' : 'rejected', remark))) throw new AppError('admin.finance.missing', { status: 404 });
}

export async function decideWithdrawalRequest(db: Db, id: number, approve: boolean, remark: string): Promise<{ amount: number }> {
  const row = await decideWithdrawal(db, id, approve ? 'paid' : 'rejected', remark);
  if (!row) throw new AppError('admin.finance.missing', { status: 404 });
  return { amount: row.amount };
}

export async function toggleModule(rt: Runtime, uid: string, install: boolean, by: number): Promise<string> {
  if (!SITE_MODULES[uid]) throw new AppError('admin.modules.unknown', { fieldKeys: { uid: 'admin.modules.unknown' } });
  const result = install ? await installModule(rt.db, uid, by) : await uninstallModule(rt.db, uid);
  await rt.pageCache.invalidate(['site', 'ask', 'md', 'modules']);
  return install ? `installed ${String(result)}` : result ? 'uninstalled' : 'not installed';
}
