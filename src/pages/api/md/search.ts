import { api, ok, readInput, requestIp, rateLimitReply } from '../../../lib/server/http';
import { searchDocs } from '../../../lib/server/md/search';
import { DocSearchInput } from '../../../lib/shared/validation/md';
import { routeAccess, ANYONE } from '../../../lib/shared/access';

/** Searches every book the caller may read; hits link to `page#heading`. */
export const GET = api(async (ctx) => {
  const limited = await rateLimitReply(ctx, `md:search:${ctx.locals.session?.row.id ?? requestIp(ctx)}`, 30, 60);
  if (limited) return limited;
  const { q, page } = await readInput(ctx, DocSearchInput);
  return ok(await searchDocs(ctx.locals.runtime.db, q, Boolean(ctx.locals.session), page, 20, ctx.locals.apiLocale));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  GET: { ...ANYONE, input: DocSearchInput },
});
