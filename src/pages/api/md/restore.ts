import { api, ok, readInput } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { editableBook } from '../../../lib/server/md/books';
import { restoreRevision } from '../../../lib/server/md/pages';
import { RestoreInput } from '../../../lib/shared/validation/md';
import { translateAny } from '../../../lib/i18n';
import { routeAccess, OWNER } from '../../../lib/shared/access';

/** Restores an old revision of a page as a new revision. */
export const POST = api(async (ctx) => {
  const member = requireUser(ctx);
  const input = await readInput(ctx, RestoreInput);
  const { runtime, apiLocale } = ctx.locals;
  const book = await editableBook(runtime, input.book, member);
  const result = await restoreRevision(runtime.db, book.id, input.name, input.revision_id, member.id, `${translateAny(apiLocale, 'md.restored')} #${input.revision_id}`);
  return ok({ revision_id: result.revisionId }, translateAny(apiLocale, 'md.restored'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'docs/edit',
  POST: { ...OWNER, other: 'denied', developer: 'denied', moderator: 'denied', admin: 'ok', input: RestoreInput },
});
