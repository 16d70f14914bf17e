import { api, ok, readInput } from '../../../../lib/server/http';
import { listPosts } from '../../../../lib/server/ask/posts';
import { listCategories } from '../../../../lib/server/ask/categories';
import { ListInput } from '../../../../lib/shared/validation/ask';

/** A page of a forum list (tab, category, tag or member) with the categories. */
export const GET = api(async (ctx) => {
  const input = await readInput(ctx, ListInput);
  const { db } = ctx.locals.runtime;
  const [page, categories] = await Promise.all([listPosts(db, input), listCategories(db, ctx.locals.apiLocale)]);
  return ok({ ...page, categories });
});
