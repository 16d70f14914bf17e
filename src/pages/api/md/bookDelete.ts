import { api, ok, readInput } from '../../../lib/server/http';
import { recordAction } from '../../../lib/server/admin/audit';
import { deleteManagedBook, requireBookManagerCall } from '../../../lib/server/md/manage';
import { BookDeleteInput } from '../../../lib/shared/validation/md';
import { translateAny } from '../../../lib/i18n';
import { as, routeAccess, ADMINS } from '../../../lib/shared/access';

/** Deletes a book with its pages and their history, once its name is typed again as `confirm`. */
export const POST = api(async (ctx) => {
  const { manager, actor } = await requireBookManagerCall(ctx);
  const input = await readInput(ctx, BookDeleteInput);
  const done = await deleteManagedBook(ctx.locals.runtime, manager, input.name);
  await recordAction(ctx.locals.runtime.db, actor, 'book:delete', done.book.name, { title: done.book.title, pages: done.pages, revisions: done.revisions }, '');
  return ok({ pages: done.pages, revisions: done.revisions }, translateAny(ctx.locals.apiLocale, 'md.books.deleted', { pages: done.pages, revisions: done.revisions }));
});

/**
 * Who may call this route (tests/integration/authz-matrix.test.ts): the rule `md/book`, on one's own
 * books. The matrix's sample leaves the confirmation out, so the book it names survives: refused.
 */
export const access = routeAccess({
  POST: { ...as(ADMINS, 'refused'), input: BookDeleteInput },
});
