import { api, ok, readInput } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { removeTarget } from '../../../lib/server/ask/moderation';
import { viewerOf } from '../../../lib/server/ask/access';
import { TargetInput } from '../../../lib/shared/validation/ask';
import { translateAny } from '../../../lib/i18n';
import { routeAccess, OWNER } from '../../../lib/shared/access';

/** Deletes a post or reply: its author or a moderator. The data stays (soft delete). */
export const POST = api(async (ctx) => {
  const member = requireUser(ctx);
  const input = await readInput(ctx, TargetInput);
  const { runtime, apiLocale } = ctx.locals;
  const viewer = await viewerOf(runtime, member, apiLocale);
  const { postId } = await removeTarget(runtime.db, viewer!, input.type, input.id);
  return ok({ post_id: postId }, translateAny(apiLocale, 'ask.removed'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: ['forum/post', 'ask/moderate'],
  POST: { ...OWNER, other: 'denied', developer: 'denied', moderator: 'ok', admin: 'ok', input: TargetInput },
});
