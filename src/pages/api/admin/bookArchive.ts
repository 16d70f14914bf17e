import { api, ok, readInput } from '../../../lib/server/http';
import { requireSection } from '../../../lib/server/admin/guard';
import { recordAction } from '../../../lib/server/admin/audit';
import { translateAny } from '../../../lib/i18n';
import { setBookArchived } from '../../../lib/server/md/manage';
import { BookArchiveInput } from '../../../lib/shared/validation/md';
import { routeAccess, ADMINS } from '../../../lib/shared/access';

/** Archives a book (`archive: 1`: read-only, out of the index, search and sitemap) or restores it (`archive: 0`). */
export const POST = api(async (ctx) => {
  const { member, actor } = await requireSection(ctx, 'books');
  const input = await readInput(ctx, BookArchiveInput);
  const book = await setBookArchived(ctx.locals.runtime, { member, all: true }, input.name, input.archive === 1);
  await recordAction(ctx.locals.runtime.db, actor, input.archive ? 'book:archive' : 'book:restore', book.name);
  return ok(null, translateAny(ctx.locals.apiLocale, input.archive ? 'md.books.archived' : 'md.books.restored'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  POST: { ...ADMINS, input: BookArchiveInput },
});
