import { api, ok, readInput } from '../../../lib/server/http';
import { recordAction } from '../../../lib/server/admin/audit';
import { createManagedBook, requireBookManagerCall } from '../../../lib/server/md/manage';
import { BookCreateInput } from '../../../lib/shared/validation/md';
import { translateAny } from '../../../lib/i18n';
import { routeAccess, ADMINS } from '../../../lib/shared/access';

/** Creates a book owned by the caller (members whose group holds `md/book`). */
export const POST = api(async (ctx) => {
  const { manager, actor } = await requireBookManagerCall(ctx);
  const input = await readInput(ctx, BookCreateInput);
  const book = await createManagedBook(ctx.locals.runtime, manager, input);
  await recordAction(ctx.locals.runtime.db, actor, 'book:create', book.name, '', { title: book.title, titleEn: book.titleEn, visibility: book.visibility, ownerId: book.ownerId });
  return ok({ name: book.name }, translateAny(ctx.locals.apiLocale, 'md.books.created'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts): the rule `md/book`, which administrators hold. */
export const access = routeAccess({
  POST: { ...ADMINS, input: BookCreateInput },
});
