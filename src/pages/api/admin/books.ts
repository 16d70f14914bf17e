import { api, ok, readInput } from '../../../lib/server/http';
import { requireSection } from '../../../lib/server/admin/guard';
import { recordAction } from '../../../lib/server/admin/audit';
import { translateAny } from '../../../lib/i18n';
import { managedBooks, saveBookSettings } from '../../../lib/server/md/manage';
import { BookSettingsInput } from '../../../lib/shared/validation/md';
import { readSelect, selectBooks, wantsSelect } from '../../../lib/server/admin/select';
import { routeAccess, ADMINS } from '../../../lib/shared/access';

/** Every book, archived ones too, with its owner, editors, visibility and history size. */
export const GET = api(async (ctx) => {
  await requireSection(ctx, 'books');
  if (wantsSelect(ctx)) return ok(await selectBooks(ctx.locals.runtime.db, ctx.locals.apiLocale, await readSelect(ctx)));
  return ok({ list: await managedBooks(ctx.locals.runtime, 'all') });
});

/** Changes a book's titles, description, language, visibility or owner, or adds an editor. */
export const POST = api(async (ctx) => {
  const { member, actor } = await requireSection(ctx, 'books');
  const input = await readInput(ctx, BookSettingsInput);
  const change = await saveBookSettings(ctx.locals.runtime, { member, all: true }, input);
  await recordAction(ctx.locals.runtime.db, actor, 'book:edit', change.book.name, change.before, change.after);
  return ok(null, translateAny(ctx.locals.apiLocale, 'admin.books.saved'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'admin/books',
  GET: { ...ADMINS },
  POST: { ...ADMINS, input: BookSettingsInput },
});
