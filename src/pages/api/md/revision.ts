import { AppError, api, ok, readInput } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { editableBook } from '../../../lib/server/md/books';
import { findPage, getRevisions } from '../../../lib/server/md/pages';
import { RevisionInput } from '../../../lib/shared/validation/md';
import { routeAccess, OWNER } from '../../../lib/shared/access';

/** The full text of one or two revisions of a page (`ids=12` or `ids=12,15`), for diffs. */
export const GET = api(async (ctx) => {
  const member = requireUser(ctx);
  const input = await readInput(ctx, RevisionInput);
  const { runtime } = ctx.locals;
  const book = await editableBook(runtime, input.book, member);
  const found = await findPage(runtime.db, book.id, input.name);
  if (!found) throw new AppError('md.pageMissing', { status: 404 });
  const ids = input.ids.split(',').map(Number);
  const rows = await getRevisions(runtime.db, found.page.id, ids);
  if (rows.length !== new Set(ids).size) throw new AppError('md.revisionMissing', { status: 404 });
  return ok({ list: ids.map((id) => rows.find((r) => r.id === id)!).map((r) => ({ id: r.id, title: r.title, content: r.content, message: r.message, create_time: r.createTime })) });
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'docs/edit',
  GET: { ...OWNER, other: 'denied', developer: 'denied', moderator: 'denied', admin: 'ok', input: RevisionInput },
});
