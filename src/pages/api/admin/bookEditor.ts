import { api, ok, readInput } from '../../../lib/server/http';
import { requireSection } from '../../../lib/server/admin/guard';
import { recordAction } from '../../../lib/server/admin/audit';
import { translateAny } from '../../../lib/i18n';
import { dropBookEditor } from '../../../lib/server/md/manage';
import { BookEditorInput } from '../../../lib/shared/validation/md';
import { routeAccess, ADMINS } from '../../../lib/shared/access';

/** Stops a member editing a book. */
export const POST = api(async (ctx) => {
  const { member, actor } = await requireSection(ctx, 'books');
  const input = await readInput(ctx, BookEditorInput);
  const book = await dropBookEditor(ctx.locals.runtime, { member, all: true }, input.name, input.user_id);
  await recordAction(ctx.locals.runtime.db, actor, 'book:editor-remove', book.name, { editor: input.user_id }, '');
  return ok(null, translateAny(ctx.locals.apiLocale, 'admin.books.saved'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'admin/books',
  POST: { ...ADMINS, input: BookEditorInput },
});
