import { api, ok, readInput } from '../../../lib/server/http';
import { requireRule } from '../../../lib/server/auth/guard';
import { MODERATE_RULE, moderatePost } from '../../../lib/server/ask/moderation';
import { ModerateInput } from '../../../lib/shared/validation/ask';
import { translateAny } from '../../../lib/i18n';
import { routeAccess, MODERATORS } from '../../../lib/shared/access';

/** Hide, show, delete, restore, pin, feature or move a post: members whose group holds `ask/moderate`. */
export const POST = api(async (ctx) => {
  const member = await requireRule(ctx, MODERATE_RULE);
  const input = await readInput(ctx, ModerateInput);
  const { runtime, apiLocale } = ctx.locals;
  await moderatePost(runtime.db, member.id, input);
  return ok(null, translateAny(apiLocale, 'ask.moderated'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'ask/moderate',
  POST: { ...MODERATORS, input: ModerateInput },
});
