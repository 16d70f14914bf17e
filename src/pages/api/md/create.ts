import { AppError, api, ok, readInput } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { editableBook } from '../../../lib/server/md/books';
import { createPage, findPage } from '../../../lib/server/md/pages';
import { CreateInput } from '../../../lib/shared/validation/md';
import { translateAny } from '../../../lib/i18n';
import { routeAccess, OWNER } from '../../../lib/shared/access';

/** Adds an empty page at the end of a parent's children (or the top level). */
export const POST = api(async (ctx) => {
  const member = requireUser(ctx);
  const input = await readInput(ctx, CreateInput);
  const { runtime, apiLocale } = ctx.locals;
  const book = await editableBook(runtime, input.book, member);
  let parentId = 0;
  if (input.parent) {
    const parent = await findPage(runtime.db, book.id, input.parent);
    if (!parent) throw new AppError('md.pageMissing', { status: 404 });
    parentId = parent.page.id;
  }
  const page = await createPage(runtime.db, { bookId: book.id, name: input.name, title: input.title, parentId, authorId: member.id, message: translateAny(apiLocale, 'md.created') });
  return ok({ name: page.name, revision_id: page.revisionId }, translateAny(apiLocale, 'md.created'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'docs/edit',
  POST: { ...OWNER, other: 'denied', developer: 'denied', moderator: 'denied', admin: 'ok', input: CreateInput },
});
