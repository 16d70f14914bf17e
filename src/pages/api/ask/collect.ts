import { api, ok, readInput } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { toggleCollect } from '../../../lib/server/ask/interactions';
import { writeLimit } from '../../../lib/server/ask/access';
import { PostIdInput } from '../../../lib/shared/validation/ask';
import { translateAny } from '../../../lib/i18n';
import { routeAccess, MEMBERS } from '../../../lib/shared/access';

/** Adds a post to the member's collection, or removes it. */
export const POST = api(async (ctx) => {
  const member = requireUser(ctx);
  const { post_id } = await readInput(ctx, PostIdInput);
  const limited = await writeLimit(ctx, member, 'vote');
  if (limited) return limited;
  const { runtime, apiLocale } = ctx.locals;
  const result = await toggleCollect(runtime.db, member.id, post_id);
  return ok(result, translateAny(apiLocale, result.collected ? 'ask.collect.done' : 'ask.collect.undone'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'forum/interact',
  POST: { ...MEMBERS, input: PostIdInput },
});
