import { api, ok, rateLimitReply, readInput } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { replyReview } from '../../../lib/server/market/reviews';
import { ReviewReplyInput } from '../../../lib/shared/validation/market';
import { translateAny } from '../../../lib/i18n';
import { routeAccess, OWNER } from '../../../lib/shared/access';

/** The module's developer answers a review, once. */
export const POST = api(async (ctx) => {
  const member = requireUser(ctx);
  const input = await readInput(ctx, ReviewReplyInput);
  const limited = await rateLimitReply(ctx, `market:reply:${member.id}`, 30, 3600);
  if (limited) return limited;
  const { runtime, apiLocale } = ctx.locals;
  await replyReview(runtime.db, { userId: member.id, reviewId: input.review_id, content: input.content });
  return ok(null, translateAny(apiLocale, 'market.replied'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'developer/modules',
  POST: { ...OWNER, other: 'denied', developer: 'denied', moderator: 'denied', admin: 'denied', input: ReviewReplyInput },
});
