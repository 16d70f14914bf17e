import { api, ok, readInput } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { acceptReply } from '../../../lib/server/ask/replies';
import { ReplyIdInput } from '../../../lib/shared/validation/ask';
import { translateAny } from '../../../lib/i18n';
import { routeAccess, OWNER } from '../../../lib/shared/access';

/** The asker accepts a reply (or takes the acceptance back). */
export const POST = api(async (ctx) => {
  const member = requireUser(ctx);
  const { reply_id } = await readInput(ctx, ReplyIdInput);
  const { runtime, apiLocale } = ctx.locals;
  const result = await acceptReply(runtime.db, member.id, reply_id);
  return ok({ accepted: result.accepted }, translateAny(apiLocale, result.accepted ? 'ask.accept.done' : 'ask.accept.undone'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'forum/post',
  POST: { ...OWNER, other: 'denied', developer: 'denied', moderator: 'denied', admin: 'denied', input: ReplyIdInput },
});
