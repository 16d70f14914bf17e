// Content decisions of the console: notices, reports, invoices and withdrawals, site modules (books: md/manage.ts).
// Each function changes one thing and returns what the audit row records.
import { and, desc, eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { askReport, notice } from '../db/schema';
import type { Runtime } from '../runtime';
import { AppError } from '../http';
import { addNotice } from '../account/notices';
import { decideReport, removeTarget, restoreTarget, tellReportOutcome, type ReportOutcome } from '../ask/moderation';
import { decideInvoice } from '../account/invoices';
import { decideWithdrawal } from '../market/studio';
import { SITE_MODULES, installReviewed } from '../modules/installs';
import { installable, installPackaged, quietly, uninstall } from '../modules/lifecycle';
import { CLI_ACTOR } from './audit';
import { siteWide } from '../site/cache-tags';
import { askArea } from '../ask/cache-tags';
import { mdArea } from '../md/cache-tags';
import { marketArea } from '../market/cache-tags';

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
    await rt.invalidation.touched(askArea);
  }
  const told = await tellReportOutcome(rt.db, row, action, reporters, reason || row.reason);
  return { type: row.targetType, targetId: row.targetId, status, told };
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
  if (!SITE_MODULES[uid] && !(await installable(rt, uid))) throw new AppError('admin.modules.unknown', { fieldKeys: { uid: 'admin.modules.unknown' } });
  if (!install) {
    const result = await uninstall(rt, uid, quietly({ ...CLI_ACTOR, id: by }));
    await rt.invalidation.touched(siteWide, askArea, mdArea, marketArea);
    return result ? 'uninstalled' : 'not installed';
  }
  const kind = await installable(rt, uid);
  // The route writes the audit row (with the administrator's name).
  const version = kind === 'package' ? await installPackaged(rt, uid, quietly({ ...CLI_ACTOR, id: by })) : await installReviewed(rt, uid, by);
  await rt.invalidation.touched(siteWide, askArea, mdArea, marketArea);
  return `installed ${String(version)}`;
}
