import { api, ok, readInput } from '../../../lib/server/http';
import { recordAction } from '../../../lib/server/admin/audit';
import { dropBookEditor, requireBookManagerCall } from '../../../lib/server/md/manage';
import { BookEditorInput } from '../../../lib/shared/validation/md';
import { translateAny } from '../../../lib/i18n';
import { routeAccess, ADMINS } from '../../../lib/shared/access';

/** Stops a member editing a book. */
export const POST = api(async (ctx) => {
  const { manager, actor } = await requireBookManagerCall(ctx);
  const input = await readInput(ctx, BookEditorInput);
  const book = await dropBookEditor(ctx.locals.runtime, manager, input.name, input.user_id);
  await recordAction(ctx.locals.runtime.db, actor, 'book:editor-remove', book.name, { editor: input.user_id }, '');
  return ok(null, translateAny(ctx.locals.apiLocale, 'md.books.saved'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts): the rule `md/book`, on one's own books. */
export const access = routeAccess({
  POST: { ...ADMINS, input: BookEditorInput },
});
