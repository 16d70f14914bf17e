import { api, ok, readInput, requestIp } from '../../../lib/server/http';
import { recordView } from '../../../lib/server/ask/posts';
import { PostIdInput } from '../../../lib/shared/validation/ask';
import { routeAccess, ANYONE } from '../../../lib/shared/access';

/** Counts a reader's view of a post once per visitor and post every 30 minutes. */
export const POST = api(async (ctx) => {
  const { post_id } = await readInput(ctx, PostIdInput);
  const who = ctx.locals.session?.row.id ?? requestIp(ctx);
  const first = await ctx.locals.runtime.limiter.hit(`ask:view:${post_id}:${who}`, 1, 1800);
  if (first.allowed) await recordView(ctx.locals.runtime.db, post_id);
  return ok(null);
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  POST: { ...ANYONE, input: PostIdInput },
});
