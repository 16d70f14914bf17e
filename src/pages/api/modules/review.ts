import { api, ok, rateLimitReply, readInput } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { saveReview } from '../../../lib/server/market/reviews';
import { ReviewInput } from '../../../lib/shared/validation/market';
import { translateAny } from '../../../lib/i18n';
import { routeAccess, MEMBERS } from '../../../lib/shared/access';

/** Writes or edits the member's review of a module they bought (or downloaded, when free). */
export const POST = api(async (ctx) => {
  const member = requireUser(ctx);
  const input = await readInput(ctx, ReviewInput);
  const limited = await rateLimitReply(ctx, `market:review:${member.id}`, 10, 3600);
  if (limited) return limited;
  const { runtime, apiLocale } = ctx.locals;
  const result = await saveReview(runtime.db, { userId: member.id, uid: input.uid, rating: input.rating, content: input.content });
  return ok(result, translateAny(apiLocale, 'market.reviewSaved'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'account/moduleOrders',
  POST: { ...MEMBERS, other: 'refused', developer: 'refused', moderator: 'refused', admin: 'refused', input: ReviewInput },
});
