import { api, envelope, ok, readInput } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { PRIVATE_PER_HOUR, sendPrivate } from '../../../lib/server/messages/dialog';
import { SendMessageInput } from '../../../lib/shared/validation/messages';
import { translateAny } from '../../../lib/i18n';
import { Code } from '../../../lib/shared/codes';
import { routeAccess, MEMBERS } from '../../../lib/shared/access';

/** Writes privately to `user_id` (plain text, 1–2,000 characters). */
export const POST = api(async (ctx) => {
  const member = requireUser(ctx);
  const { runtime, apiLocale } = ctx.locals;
  const input = await readInput(ctx, SendMessageInput);
  const limited = await runtime.limiter.hit(`pm:${member.id}`, PRIVATE_PER_HOUR, 3600);
  if (!limited.allowed) {
    return envelope({ code: Code.error, msg: translateAny(apiLocale, 'messages.hourLimit', { count: PRIVATE_PER_HOUR }), data: null }, 429, { 'retry-after': String(limited.retryAfter) });
  }
  return ok(await sendPrivate(runtime.db, member, input.user_id, input.content));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'messageCenter',
  POST: { ...MEMBERS, input: SendMessageInput },
});
