import { randomInt } from 'node:crypto';
import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { developerEarning, module, moduleDownload, moduleOrder, user } from '../db/schema';
import { AppError } from '../http';
import { adjustMoney, adjustScore } from '../account/ledger';
import { formatMoney } from '../account/users';
import { notify } from '../messages/notify';
import { UPDATE_SECONDS } from '../../shared/market';
import { formatDate } from '../../shared/date';
import type { Locale } from '../../i18n';
import { recordModuleEvent } from '../modules/events';
import { inTransaction, touched } from '../write-scope';
import { marketModule } from './cache-tags';

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
export type PayType = 'balance' | 'score';

const now = (): number => Math.floor(Date.now() / 1000);

export interface OrderSummary {
  orderNo: string;
  payType: string;
  amount: number;
  payTime: number;
  updatesUntil: number;
}

/** Order numbers: the date and time to the second in the site's zone, then six random digits (20 characters). */
export function newOrderNo(at = new Date(), timeZone = 'UTC'): string {
  // Dated on the site's clock, the one its paid time is shown in.
  const stamp = formatDate(at, 'yyyymmddhhMMss', timeZone);
  return `${stamp}${String(randomInt(0, 1_000_000)).padStart(6, '0')}`;
}

/** The platform's share of a sale, rounded to the nearest cent or point; the developer gets the rest. */
export function commissionOf(amount: number, percent: number): number {
  const p = Math.min(100, Math.max(0, Number.isFinite(percent) ? percent : 0));
  return Math.round((amount * p) / 100);
}

const isFree = (m: { price: number; scorePrice: number }): boolean => m.price === 0 && m.scorePrice === 0;

/** Whether the member owns the module (a paid order), and whether it is free anyway. */
export async function ownership(db: Db, userId: number, moduleId: number): Promise<{ owned: boolean; free: boolean; order: OrderSummary | null }> {
  const [[m], [order]] = await Promise.all([
    db.select({ price: module.price, scorePrice: module.scorePrice }).from(module).where(eq(module.id, moduleId)).limit(1),
    db.select({ orderNo: moduleOrder.orderNo, payType: moduleOrder.payType, amount: moduleOrder.amount, payTime: moduleOrder.payTime, updatesUntil: moduleOrder.updatesUntil })
      .from(moduleOrder).where(and(eq(moduleOrder.userId, userId), eq(moduleOrder.moduleId, moduleId), eq(moduleOrder.status, 'paid'))).limit(1),
  ]);
  return { owned: Boolean(order), free: m ? isFree(m) : false, order: order ?? null };
}

export interface BuyInput {
  userId: number;
  uid: string;
  payType: PayType;
  /** The page's one-time key: the same click retried finds the order it already paid. */
  nonce: string;
  /** Platform commission in percent (config `market_commission`). */
  commission: number;
  /** The site's time zone (`time_zone`): the order number's date. */
  timeZone?: string;
}

/**
 * Buys a module with balance or points, in one transaction: lock the buyer, refuse a second
 * purchase, check the funds, debit through the money/points log, credit the developer's earnings
 * net of commission, and record the paid order. The buyer's row lock serialises a double click,
 * a retry and two tabs; the partial unique index on paid orders backs it up.
 */
export async function buyModule(db: Db, input: BuyInput): Promise<{ order: OrderSummary & { status: string }; created: boolean }> {
  return inTransaction(db, async (tx) => {
    const [m] = await tx.select({ id: module.id, name: module.name, uid: module.uid, developerId: module.developerId, price: module.price, scorePrice: module.scorePrice, status: module.status })
      .from(module).where(eq(module.uid, input.uid)).limit(1);
    if (!m || m.status !== 'published') throw new AppError('market.notFound');
    if (isFree(m)) throw new AppError('market.freeNoPurchase');
    if (m.developerId === input.userId) throw new AppError('market.ownModule');

    // Points go on to the developer's own points in this transaction: both members are locked, in id
    // order, so two developers buying each other's modules at once cannot deadlock.
    const locked = await tx.select({ id: user.id, money: user.money, score: user.score }).from(user)
      .where(input.payType === 'score' && m.developerId > 0 ? inArray(user.id, [input.userId, m.developerId]) : eq(user.id, input.userId))
      .orderBy(user.id).for('update');
    const buyer = locked.find((u) => u.id === input.userId);
    if (!buyer) throw new AppError('api.needLogin');
    const [existing] = await tx.select().from(moduleOrder)
      .where(and(eq(moduleOrder.userId, input.userId), eq(moduleOrder.moduleId, m.id), eq(moduleOrder.status, 'paid'))).limit(1);
    if (existing) {
      if (existing.nonce && existing.nonce === input.nonce) return { order: summary(existing), created: false };
      throw new AppError('market.owned');
    }
    const amount = input.payType === 'balance' ? m.price : m.scorePrice;
    if (amount <= 0) throw new AppError(input.payType === 'balance' ? 'market.noBalancePrice' : 'market.noScorePrice');
    const funds = input.payType === 'balance' ? buyer.money : buyer.score;
    if (funds < amount) {
      throw input.payType === 'balance'
        ? new AppError('market.insufficientBalance', { values: { balance: formatMoney(funds), price: formatMoney(amount) } })
        : new AppError('market.insufficientScore', { values: { score: funds, price: amount } });
    }

    const t = now();
    const commission = commissionOf(amount, input.commission);
    const orderNo = newOrderNo(new Date(t * 1000), input.timeZone);
    const [order] = await tx.insert(moduleOrder).values({
      orderNo, userId: input.userId, moduleId: m.id, developerId: m.developerId, payType: input.payType, amount, commission,
      status: 'paid', nonce: input.nonce.slice(0, 40), updatesUntil: t + UPDATE_SECONDS, payTime: t, createTime: t,
    }).returning();
    const memo = `module:${m.uid} order:${orderNo}`;
    const message = { key: 'user.ledger.memo.buy', params: { uid: m.uid, order: orderNo } } as const;
    if (input.payType === 'balance') await adjustMoney(tx, input.userId, -amount, memo, message);
    else await adjustScore(tx, input.userId, -amount, memo, message);
    if (m.developerId > 0) {
      await tx.insert(developerEarning).values({
        developerId: m.developerId, orderId: order!.id, kind: input.payType === 'balance' ? 'money' : 'score',
        gross: amount, commission, amount: amount - commission, createTime: t,
      });
      if (input.payType === 'score' && amount > commission) await adjustScore(tx, m.developerId, amount - commission, `sale module:${m.uid} order:${orderNo}`, { key: 'user.ledger.memo.sale', params: { uid: m.uid, order: orderNo } });
    }
    await tx.update(module).set({ purchases: sql`${module.purchases} + 1` }).where(eq(module.id, m.id));
    // The module's page shows its sales; the lists keep theirs until the next catalogue change.
    touched(marketModule(m.uid));
    await notify(tx, [{
      type: 'market_sale', senderId: input.userId, recipientId: m.developerId, title: m.name,
      summary: input.payType === 'balance' ? `¥${formatMoney(amount - commission)}` : `${amount - commission}`,
      link: '/user/developer/orders',
    }]);
    await recordModuleEvent(tx, 'order.paid', { orderNo, uid: m.uid, buyerId: input.userId, payType: input.payType, amount });
    return { order: summary(order!), created: true };
  });
}

function summary(o: typeof moduleOrder.$inferSelect): OrderSummary & { status: string } {
  return { orderNo: o.orderNo, payType: o.payType, amount: o.amount, payTime: o.payTime, updatesUntil: o.updatesUntil, status: o.status };
}

/** One page of the member's module orders, newest first, with what the order list shows. */
export async function ordersPage(db: Db, userId: number, page: number, limit = 20, locale: Locale = 'zh-cn') {
  const where = eq(moduleOrder.userId, userId);
  const [rows, [{ total } = { total: 0 }]] = await Promise.all([
    db.select({
      id: moduleOrder.id, orderNo: moduleOrder.orderNo, payType: moduleOrder.payType, amount: moduleOrder.amount, status: moduleOrder.status,
      payTime: moduleOrder.payTime, updatesUntil: moduleOrder.updatesUntil, createTime: moduleOrder.createTime,
      uid: module.uid, name: locale === 'en' ? sql<string>`coalesce(nullif(${module.nameEn}, ''), ${module.name})` : module.name, latestVersion: module.latestVersion,
    }).from(moduleOrder).innerJoin(module, eq(module.id, moduleOrder.moduleId))
      .where(where).orderBy(desc(moduleOrder.id)).limit(limit).offset((page - 1) * limit),
    db.select({ total: sql<number>`count(*)::int` }).from(moduleOrder).where(where),
  ]);
  return { rows, total, page, limit };
}

/** Whether the member has downloaded the module (free modules: that entitles a review). */
export async function hasDownloaded(db: Db | Tx, userId: number, moduleId: number): Promise<boolean> {
  const [row] = await db.select({ id: moduleDownload.id }).from(moduleDownload)
    .where(and(eq(moduleDownload.userId, userId), eq(moduleDownload.moduleId, moduleId))).limit(1);
  return Boolean(row);
}

/** The member's own balance-paid order an invoice can be requested for (the order list links here), or null. */
export async function orderForInvoice(db: Db, userId: number, orderId: number): Promise<{ id: number; orderNo: string; amount: number } | null> {
  if (!orderId) return null;
  const [row] = await db.select({ id: moduleOrder.id, orderNo: moduleOrder.orderNo, amount: moduleOrder.amount }).from(moduleOrder)
    .where(and(eq(moduleOrder.id, orderId), eq(moduleOrder.userId, userId), eq(moduleOrder.status, 'paid'), eq(moduleOrder.payType, 'balance'))).limit(1);
  return row ?? null;
}
