import { api, ok, readInput, requestIp, rateLimitReply } from '../../../lib/server/http';
import { searchPosts } from '../../../lib/server/ask/search';
import { SearchInput } from '../../../lib/shared/validation/ask';
import { routeAccess, ANYONE } from '../../../lib/shared/access';

/** Full-text search over published posts (Chinese and English). */
export const GET = api(async (ctx) => {
  const limited = await rateLimitReply(ctx, `ask:search:${ctx.locals.session?.row.id ?? requestIp(ctx)}`, 30, 60);
  if (limited) return limited;
  const input = await readInput(ctx, SearchInput);
  return ok(await searchPosts(ctx.locals.runtime.db, input));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  GET: { ...ANYONE, input: SearchInput },
});
