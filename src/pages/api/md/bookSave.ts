import { api, ok, readInput } from '../../../lib/server/http';
import { recordAction } from '../../../lib/server/admin/audit';
import { requireBookManagerCall, saveBookSettings } from '../../../lib/server/md/manage';
import { BookSettingsInput } from '../../../lib/shared/validation/md';
import { translateAny } from '../../../lib/i18n';
import { routeAccess, ADMINS } from '../../../lib/shared/access';

/** Changes a book's titles, description, language, visibility or owner, or adds an editor. */
export const POST = api(async (ctx) => {
  const { manager, actor } = await requireBookManagerCall(ctx);
  const input = await readInput(ctx, BookSettingsInput);
  const change = await saveBookSettings(ctx.locals.runtime, manager, input);
  await recordAction(ctx.locals.runtime.db, actor, 'book:edit', change.book.name, change.before, change.after);
  return ok(null, translateAny(ctx.locals.apiLocale, 'md.books.saved'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts): the rule `md/book`, on one's own books. */
export const access = routeAccess({
  POST: { ...ADMINS, input: BookSettingsInput },
});
