import { api, ok, readInput } from '../../../lib/server/http';
import { requireSection } from '../../../lib/server/admin/guard';
import { recordAction } from '../../../lib/server/admin/audit';
import { translateAny } from '../../../lib/i18n';
import { deleteManagedBook } from '../../../lib/server/md/manage';
import { BookDeleteInput } from '../../../lib/shared/validation/md';
import { as, routeAccess, ADMINS } from '../../../lib/shared/access';

/** Deletes a book with its pages and their history, once its name is typed again as `confirm`. */
export const POST = api(async (ctx) => {
  const { member, actor } = await requireSection(ctx, 'books');
  const input = await readInput(ctx, BookDeleteInput);
  const done = await deleteManagedBook(ctx.locals.runtime, { member, all: true }, input.name);
  await recordAction(ctx.locals.runtime.db, actor, 'book:delete', done.book.name, { title: done.book.title, pages: done.pages, revisions: done.revisions }, '');
  return ok({ pages: done.pages, revisions: done.revisions }, translateAny(ctx.locals.apiLocale, 'md.books.deleted', { pages: done.pages, revisions: done.revisions }));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts): the matrix's sample leaves the confirmation out, so the book survives. */
export const access = routeAccess({
  POST: { ...as(ADMINS, 'refused'), input: BookDeleteInput },
});
