import { and, desc, eq, inArray, lt, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db } from '../db/client';
import { invoice, moduleOrder, user, userMoneyLog } from '../db/schema';
import { AppError } from '../http';
import type { InvoiceInput } from '../../shared/validation/account';
import { formatMoney } from './users';

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

/** What a member has paid from their balance, less what is already invoiced or waiting to be. */
async function invoiceable(db: Db | Tx, userId: number): Promise<number> {
  const [paid] = await db.select({ cents: sql<number>`coalesce(-sum(${userMoneyLog.money}), 0)::bigint` }).from(userMoneyLog)
    .where(and(eq(userMoneyLog.userId, userId), lt(userMoneyLog.money, 0)));
  const [invoiced] = await db.select({ cents: sql<number>`coalesce(sum(${invoice.amount}), 0)::bigint` }).from(invoice)
    .where(and(eq(invoice.userId, userId), inArray(invoice.status, ['pending', 'issued'])));
  return Math.max(0, Number(paid?.cents ?? 0) - Number(invoiced?.cents ?? 0));
}

export async function invoiceableAmount(db: Db, userId: number): Promise<number> {
  return invoiceable(db, userId);
}

/**
 * Requests an invoice. The member row is locked for the check and the insert, so two requests
 * at once cannot both claim the same paid amount.
 */
export async function requestInvoice(db: Db, userId: number, input: z.output<typeof InvoiceInput>): Promise<number> {
  const cents = Math.round(Number(input.amount) * 100);
  if (cents <= 0) throw new AppError('api.invalidInput', { fieldKeys: { amount: 'validation.amount' } });
  return db.transaction(async (tx) => {
    await tx.select({ id: user.id }).from(user).where(eq(user.id, userId)).for('update');
    const orderId = input.order_id ?? 0;
    if (orderId) {
      // An invoice for one order: the member's own order, paid from the balance, invoiced once.
      const [order] = await tx.select({ amount: moduleOrder.amount }).from(moduleOrder)
        .where(and(eq(moduleOrder.id, orderId), eq(moduleOrder.userId, userId), eq(moduleOrder.status, 'paid'), eq(moduleOrder.payType, 'balance'))).limit(1);
      if (!order) throw new AppError('account.invoiceOrder');
      const [taken] = await tx.select({ id: invoice.id }).from(invoice)
        .where(and(eq(invoice.orderId, orderId), inArray(invoice.status, ['pending', 'issued']))).limit(1);
      if (taken) throw new AppError('account.invoiceOrderTaken');
      if (cents > order.amount) {
        throw new AppError('account.invoiceTooMuch', { values: { amount: formatMoney(order.amount) }, fieldKeys: { amount: 'account.invoiceTooMuch' } });
      }
    }
    const available = await invoiceable(tx, userId);
    if (cents > available) {
      throw new AppError('account.invoiceTooMuch', { values: { amount: formatMoney(available) }, fieldKeys: { amount: 'account.invoiceTooMuch' } });
    }
    const t = Math.floor(Date.now() / 1000);
    const [row] = await tx.insert(invoice).values({
      userId, amount: cents, title: input.title, taxId: input.tax_id ?? '', email: input.email, orderId, createTime: t, updateTime: t,
    }).returning({ id: invoice.id });
    return row!.id;
  });
}

export async function invoicePage(db: Db, userId: number, page: number, limit: number) {
  const [rows, [{ total } = { total: 0 }]] = await Promise.all([
    db.select().from(invoice).where(eq(invoice.userId, userId)).orderBy(desc(invoice.id)).limit(limit).offset((page - 1) * limit),
    db.select({ total: sql<number>`count(*)::int` }).from(invoice).where(eq(invoice.userId, userId)),
  ]);
  return {
    total,
    list: rows.map((r) => ({ id: r.id, amount: formatMoney(r.amount), title: r.title, tax_id: r.taxId, email: r.email, status: r.status, remark: r.remark, order_id: r.orderId, create_time: r.createTime })),
  };
}

/** An operator's decision on a pending request; a rejected amount becomes invoiceable again. */
export async function decideInvoice(db: Db, id: number, status: 'issued' | 'rejected', remark: string): Promise<boolean> {
  const updated = await db.update(invoice).set({ status, remark: remark.slice(0, 255), updateTime: Math.floor(Date.now() / 1000) })
    .where(and(eq(invoice.id, id), eq(invoice.status, 'pending'))).returning({ id: invoice.id });
  return updated.length > 0;
}

export async function pendingInvoices(db: Db) {
  return db.select().from(invoice).where(eq(invoice.status, 'pending')).orderBy(invoice.id).limit(200);
}
