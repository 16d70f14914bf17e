import { api, ok } from '../../../lib/server/http';
import { listBooks } from '../../../lib/server/md/books';
import { routeAccess, ANYONE } from '../../../lib/shared/access';

/** The books the caller may read (members-only ones for members). */
export const GET = api(async (ctx) => {
  const books = await listBooks(ctx.locals.runtime.db, ctx.locals.session?.row ?? null);
  return ok({ list: books.map((b) => ({ name: b.name, title: b.title, title_en: b.titleEn, description: b.description, cover: b.cover, lang: b.lang, visibility: b.visibility, page_count: b.pageCount, update_time: b.updateTime })) });
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  GET: { ...ANYONE },
});
