import { AppError, api, ok, readInput } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { editableBook } from '../../../lib/server/md/books';
import { findPage } from '../../../lib/server/md/pages';
import { PageRef } from '../../../lib/shared/validation/md';
import { routeAccess, OWNER } from '../../../lib/shared/access';

/** The markdown of a page for its editors, with the revision an edit starts from. */
export const GET = api(async (ctx) => {
  const member = requireUser(ctx);
  const { book: name, name: pageName } = await readInput(ctx, PageRef);
  const book = await editableBook(ctx.locals.runtime, name, member);
  const found = await findPage(ctx.locals.runtime.db, book.id, pageName);
  if (!found) throw new AppError('md.pageMissing', { status: 404 });
  const { page } = found;
  return ok({ id: page.id, name: page.name, title: page.title, content: page.content, revision_id: page.revisionId, parent_id: page.parentId, update_time: page.updateTime });
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'docs/edit',
  GET: { ...OWNER, other: 'denied', developer: 'denied', moderator: 'denied', admin: 'ok', input: PageRef },
});
