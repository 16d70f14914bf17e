import { api, ok, readInput } from '../../../../lib/server/http';
import { listPosts } from '../../../../lib/server/ask/posts';
import { listCategories } from '../../../../lib/server/ask/categories';
import { ListInput } from '../../../../lib/shared/validation/ask';
import { routeAccess, ANYONE } from '../../../../lib/shared/access';
import { readSelect, selectCategories, wantsSelect } from '../../../../lib/server/admin/select';

/**
 * A page of a forum list (tab, category, tag or member) with the categories; with `select=true`, the
 * categories in the remote-select shape for pickers (`quickSearch`, paged).
 */
export const GET = api(async (ctx) => {
  if (wantsSelect(ctx)) return ok(await selectCategories(ctx.locals.runtime.db, ctx.locals.apiLocale, await readSelect(ctx)));
  const input = await readInput(ctx, ListInput);
  const { db } = ctx.locals.runtime;
  const [page, categories] = await Promise.all([listPosts(db, input), listCategories(db, ctx.locals.apiLocale)]);
  return ok({ ...page, categories });
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  GET: { ...ANYONE, input: ListInput },
});
