import { api, envelope, ok, readInput } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { editableBook } from '../../../lib/server/md/books';
import { savePage } from '../../../lib/server/md/pages';
import { SaveInput } from '../../../lib/shared/validation/md';
import { Code } from '../../../lib/shared/codes';
import { translateAny } from '../../../lib/i18n';
import { routeAccess, OWNER } from '../../../lib/shared/access';
import { requireEditor } from '../../../lib/server/modules/editor';

/**
 * Saves a page from the revision the editor started from. If someone saved in between, nothing is
 * written: code 0 with `data.conflict` (their version), so the editor can show both and merge.
 */
export const POST = api(async (ctx) => {
  const member = requireUser(ctx);
  const input = await readInput(ctx, SaveInput);
  const { runtime, apiLocale } = ctx.locals;
  const book = await editableBook(runtime, input.book, member);
  // Pages are written in the editor module (spec §5/§8: "Editor required" without it).
  await requireEditor(runtime);
  const result = await savePage(runtime.db, { bookId: book.id, name: input.name, title: input.title, content: input.content, baseRevision: input.base_revision, message: input.message, authorId: member.id });
  if ('conflict' in result) {
    const c = result.conflict;
    return envelope({ code: Code.error, msg: translateAny(apiLocale, 'md.conflict'), data: { conflict: { revision_id: c.revisionId, title: c.title, content: c.content, author: c.author, time: c.time } } });
  }
  return ok({ revision_id: result.revisionId }, translateAny(apiLocale, 'md.saved'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'docs/edit',
  POST: { ...OWNER, other: 'denied', developer: 'denied', moderator: 'denied', admin: 'ok', input: SaveInput },
});
