import { AppError, api, ok, readInput } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { editableBook } from '../../../lib/server/md/books';
import { findPage, pageHistory } from '../../../lib/server/md/pages';
import { PageRef } from '../../../lib/shared/validation/md';
import { routeAccess, OWNER } from '../../../lib/shared/access';

/** A page's revisions, newest first, for its editors. */
export const GET = api(async (ctx) => {
  const member = requireUser(ctx);
  const input = await readInput(ctx, PageRef);
  const { runtime } = ctx.locals;
  const book = await editableBook(runtime, input.book, member);
  const found = await findPage(runtime.db, book.id, input.name);
  if (!found) throw new AppError('md.pageMissing', { status: 404 });
  const list = await pageHistory(runtime.db, found.page.id);
  return ok({ current: found.page.revisionId, list: list.map((r) => ({ id: r.id, title: r.title, message: r.message, author: r.author, size: r.size, create_time: r.createTime })) });
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'docs/edit',
  GET: { ...OWNER, other: 'denied', developer: 'denied', moderator: 'denied', admin: 'ok', input: PageRef },
});
