import { and, desc, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { module, moduleOrder, moduleReview, user } from '../db/schema';
import { AppError } from '../http';
import { Code } from '../../shared/codes';
import { displayNameSql } from '../account/users';
import { notify } from '../messages/notify';
import { hasDownloaded } from './orders';
import { inTransaction, touched } from '../write-scope';
import { marketArea } from './cache-tags';

export interface ReviewItem {
  id: number;
  rating: number;
  content: string;
  reply: string;
  replyTime: number;
  createTime: number;
  user: { id: number; name: string; avatar: string };
}

export const REVIEWS_PER_PAGE = 10;

/**
 * Only members who bought the module (or downloaded it, when it is free) may review it, and not
 * its own developer: reviews stay verified.
 */
export async function mayReview(db: Db, userId: number, moduleId: number): Promise<boolean> {
  const [m] = await db.select({ developerId: module.developerId, price: module.price, scorePrice: module.scorePrice, status: module.status })
    .from(module).where(eq(module.id, moduleId)).limit(1);
  if (!m || m.status !== 'published' || m.developerId === userId) return false;
  if (m.price === 0 && m.scorePrice === 0) return hasDownloaded(db, userId, moduleId);
  const [order] = await db.select({ id: moduleOrder.id }).from(moduleOrder)
    .where(and(eq(moduleOrder.userId, userId), eq(moduleOrder.moduleId, moduleId), eq(moduleOrder.status, 'paid'))).limit(1);
  return Boolean(order);
}

function reviewQuery(db: Db) {
  return db.select({
    id: moduleReview.id, rating: moduleReview.rating, content: moduleReview.content, reply: moduleReview.reply, replyTime: moduleReview.replyTime,
    createTime: moduleReview.createTime, userId: user.id, name: displayNameSql, avatar: user.avatar,
  }).from(moduleReview).innerJoin(user, eq(user.id, moduleReview.userId));
}

type ReviewRow = Awaited<ReturnType<ReturnType<typeof reviewQuery>['where']>>[number];
const toItem = (r: ReviewRow): ReviewItem => ({
  id: r.id, rating: r.rating, content: r.content, reply: r.reply, replyTime: r.replyTime, createTime: r.createTime,
  user: { id: r.userId, name: r.name, avatar: r.avatar },
});

/** A page of reviews with the average, the distribution, the viewer's own review and whether they may write one. */
export async function reviewSummary(db: Db, moduleId: number, userId: number | null, page = 1): Promise<{
  list: ReviewItem[]; total: number; average: number; count: number; distribution: number[]; mine: ReviewItem | null; canReview: boolean;
}> {
  const [rows, dist, mineRows, can] = await Promise.all([
    reviewQuery(db).where(eq(moduleReview.moduleId, moduleId)).orderBy(desc(moduleReview.id)).limit(REVIEWS_PER_PAGE).offset((page - 1) * REVIEWS_PER_PAGE),
    db.select({ rating: moduleReview.rating, n: sql<number>`count(*)::int` }).from(moduleReview).where(eq(moduleReview.moduleId, moduleId)).groupBy(moduleReview.rating),
    userId ? reviewQuery(db).where(and(eq(moduleReview.moduleId, moduleId), eq(moduleReview.userId, userId))).limit(1) : Promise.resolve([]),
    userId ? mayReview(db, userId, moduleId) : Promise.resolve(false),
  ]);
  const distribution = [1, 2, 3, 4, 5].map((star) => dist.find((d) => d.rating === star)?.n ?? 0);
  const count = distribution.reduce((a, b) => a + b, 0);
  const sum = distribution.reduce((a, n, i) => a + n * (i + 1), 0);
  return {
    list: rows.map(toItem), total: count, count, distribution,
    average: count ? Math.round((sum / count) * 10) / 10 : 0,
    mine: mineRows[0] ? toItem(mineRows[0]) : null, canReview: can,
  };
}

/**
 * Writes or edits the member's review. The module row is locked while its rating sum and count
 * change, so the average stays exact under concurrent reviews.
 */
export async function saveReview(db: Db, input: { userId: number; uid: string; rating: number; content: string }): Promise<{ id: number; created: boolean }> {
  const [m] = await db.select({ id: module.id, name: module.name, uid: module.uid, developerId: module.developerId }).from(module).where(eq(module.uid, input.uid)).limit(1);
  if (!m) throw new AppError('market.notFound');
  if (!(await mayReview(db, input.userId, m.id))) throw new AppError('market.reviewNotAllowed');
  const result = await inTransaction(db, async (tx) => {
    touched(marketArea);
    await tx.select({ id: module.id }).from(module).where(eq(module.id, m.id)).for('update');
    const t = Math.floor(Date.now() / 1000);
    const [old] = await tx.select({ id: moduleReview.id, rating: moduleReview.rating }).from(moduleReview)
      .where(and(eq(moduleReview.moduleId, m.id), eq(moduleReview.userId, input.userId))).limit(1);
    let id: number;
    if (old) {
      await tx.update(moduleReview).set({ rating: input.rating, content: input.content, updateTime: t }).where(eq(moduleReview.id, old.id));
      await tx.update(module).set({ ratingSum: sql`${module.ratingSum} + ${input.rating - old.rating}` }).where(eq(module.id, m.id));
      id = old.id;
    } else {
      const [row] = await tx.insert(moduleReview).values({ moduleId: m.id, userId: input.userId, rating: input.rating, content: input.content, createTime: t, updateTime: t }).returning({ id: moduleReview.id });
      await tx.update(module).set({ ratingSum: sql`${module.ratingSum} + ${input.rating}`, ratingCount: sql`${module.ratingCount} + 1` }).where(eq(module.id, m.id));
      id = row!.id;
    }
    await tx.update(module).set({ rating: sql`case when ${module.ratingCount} > 0 then ${module.ratingSum}::float8 / ${module.ratingCount} else 0 end` }).where(eq(module.id, m.id));
    return { id, created: !old };
  });
  if (result.created) {
    await notify(db, [{ type: 'market_review', senderId: input.userId, recipientId: m.developerId, title: m.name, summary: `${'★'.repeat(input.rating)} ${input.content}`, link: `/modules/${m.uid}#review-${result.id}` }]);
  }
  return result;
}

/** The module's developer answers a review, once. */
export async function replyReview(db: Db, input: { userId: number; reviewId: number; content: string }): Promise<{ uid: string }> {
  const [row] = await db.select({ id: moduleReview.id, reviewer: moduleReview.userId, reply: moduleReview.reply, developerId: module.developerId, uid: module.uid, name: module.name })
    .from(moduleReview).innerJoin(module, eq(module.id, moduleReview.moduleId)).where(eq(moduleReview.id, input.reviewId)).limit(1);
  if (!row) throw new AppError('market.reviewNotFound');
  // Not the caller's module: the permission refusal every other route answers (code 401).
  if (row.developerId !== input.userId) throw new AppError('market.replyNotAllowed', { code: Code.noPermission });
  const updated = await db.update(moduleReview).set({ reply: input.content, replyTime: Math.floor(Date.now() / 1000) })
    .where(and(eq(moduleReview.id, row.id), eq(moduleReview.reply, ''))).returning({ id: moduleReview.id });
  if (!updated.length) throw new AppError('market.replyOnce');
  touched(marketArea);
  await notify(db, [{ type: 'market_review_reply', senderId: input.userId, recipientId: row.reviewer, title: row.name, summary: input.content, link: `/modules/${row.uid}#review-${row.id}` }]);
  return { uid: row.uid };
}
