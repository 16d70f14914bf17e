import { api, ok, readInput } from '../../../lib/server/http';
import { requireSection } from '../../../lib/server/admin/guard';
import { recordAction } from '../../../lib/server/admin/audit';
import { translateAny } from '../../../lib/i18n';
import { booksForAdmin, saveBook } from '../../../lib/server/admin/content';
import { BookInput } from '../../../lib/shared/validation/admin';
import { routeAccess, ADMINS } from '../../../lib/shared/access';

/** Every book with its owner, editors and visibility. */
export const GET = api(async (ctx) => {
  await requireSection(ctx, 'books');
  return ok({ list: await booksForAdmin(ctx.locals.runtime.db) });
});

/** Changes a book's visibility or owner, or adds an editor. */
export const POST = api(async (ctx) => {
  const { actor } = await requireSection(ctx, 'books');
  const input = await readInput(ctx, BookInput);
  const change = await saveBook(ctx.locals.runtime, input);
  await recordAction(ctx.locals.runtime.db, actor, 'book:edit', input.name, change.before, change.after);
  return ok(null, translateAny(ctx.locals.apiLocale, 'admin.books.saved'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'admin/books',
  GET: { ...ADMINS },
  POST: { ...ADMINS, input: BookInput },
});
