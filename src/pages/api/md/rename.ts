import { api, ok, readInput } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { editableBook } from '../../../lib/server/md/books';
import { renamePage } from '../../../lib/server/md/pages';
import { RenameInput } from '../../../lib/shared/validation/md';
import { translateAny } from '../../../lib/i18n';
import { routeAccess, OWNER } from '../../../lib/shared/access';

/** Renames a page; its old address redirects to the new one. */
export const POST = api(async (ctx) => {
  const member = requireUser(ctx);
  const input = await readInput(ctx, RenameInput);
  const { runtime, apiLocale } = ctx.locals;
  const book = await editableBook(runtime, input.book, member);
  await renamePage(runtime.db, book.id, input.name, input.new_name);
  return ok({ name: input.new_name }, translateAny(apiLocale, 'md.renamed'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'docs/edit',
  POST: { ...OWNER, other: 'denied', developer: 'denied', moderator: 'denied', admin: 'ok', input: RenameInput },
});
