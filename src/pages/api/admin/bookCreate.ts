import { api, ok, readInput } from '../../../lib/server/http';
import { requireSection } from '../../../lib/server/admin/guard';
import { recordAction } from '../../../lib/server/admin/audit';
import { translateAny } from '../../../lib/i18n';
import { createManagedBook } from '../../../lib/server/md/manage';
import { BookCreateInput } from '../../../lib/shared/validation/md';
import { routeAccess, ADMINS } from '../../../lib/shared/access';

/** Creates a book; its owner is the account given, or the administrator. */
export const POST = api(async (ctx) => {
  const { member, actor } = await requireSection(ctx, 'books');
  const input = await readInput(ctx, BookCreateInput);
  const book = await createManagedBook(ctx.locals.runtime, { member, all: true }, input);
  await recordAction(ctx.locals.runtime.db, actor, 'book:create', book.name, '', { title: book.title, titleEn: book.titleEn, visibility: book.visibility, ownerId: book.ownerId });
  return ok({ name: book.name }, translateAny(ctx.locals.apiLocale, 'md.books.created'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  POST: { ...ADMINS, input: BookCreateInput },
});
