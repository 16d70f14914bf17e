import { eq } from 'drizzle-orm';
import { api, AppError, ok, readInput } from '../../../lib/server/http';
import { module } from '../../../lib/server/db/schema';
import { reviewSummary } from '../../../lib/server/market/reviews';
import { ReviewsInput } from '../../../lib/shared/validation/market';
import { routeAccess, ANYONE } from '../../../lib/shared/access';

/** A page of a published module's reviews with the average and the distribution. */
export const GET = api(async (ctx) => {
  const { uid, page } = await readInput(ctx, ReviewsInput);
  const { runtime, session } = ctx.locals;
  const [m] = await runtime.db.select({ id: module.id, status: module.status }).from(module).where(eq(module.uid, uid)).limit(1);
  if (!m || m.status !== 'published') throw new AppError('market.notFound');
  const r = await reviewSummary(runtime.db, m.id, session?.row.id ?? null, page);
  const item = (i: (typeof r.list)[number]) => ({ id: i.id, rating: i.rating, content: i.content, reply: i.reply, reply_time: i.replyTime, create_time: i.createTime, user: i.user });
  return ok({ list: r.list.map(item), total: r.total, average: r.average, count: r.count, distribution: r.distribution, mine: r.mine ? item(r.mine) : null, can_review: r.canReview });
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  GET: { ...ANYONE, input: ReviewsInput },
});
