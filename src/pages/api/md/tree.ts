import { AppError, api, ok, readInput } from '../../../lib/server/http';
import { canEdit, findBook } from '../../../lib/server/md/books';
import { pageTree } from '../../../lib/server/md/pages';
import { BookInput } from '../../../lib/shared/validation/md';
import { routeAccess, ANYONE } from '../../../lib/shared/access';

/** A book's page tree, and whether the caller may edit it. */
export const GET = api(async (ctx) => {
  const { book: name } = await readInput(ctx, BookInput);
  const { runtime, session } = ctx.locals;
  const book = await findBook(runtime.db, name, session?.row ?? null);
  if (!book) throw new AppError('md.bookMissing', { status: 404 });
  return ok({
    book: { name: book.name, title: book.title, visibility: book.visibility },
    tree: await pageTree(runtime.db, book.id),
    can_edit: await canEdit(runtime, book, session?.row),
  });
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  GET: { ...ANYONE, input: BookInput },
});
