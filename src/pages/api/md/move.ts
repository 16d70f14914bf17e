import { api, ok, readInput } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { editableBook } from '../../../lib/server/md/books';
import { movePage } from '../../../lib/server/md/pages';
import { MoveInput } from '../../../lib/shared/validation/md';
import { translateAny } from '../../../lib/i18n';
import { routeAccess, OWNER } from '../../../lib/shared/access';

/** Moves a page up or down among its siblings, or under another parent (`parent` '' or null: top level). */
export const POST = api(async (ctx) => {
  const member = requireUser(ctx);
  const input = await readInput(ctx, MoveInput);
  const { runtime, apiLocale } = ctx.locals;
  const book = await editableBook(runtime, input.book, member);
  await movePage(runtime.db, book.id, input.name, { direction: input.direction, ...(input.parent !== undefined ? { parent: input.parent || null } : {}) });
  return ok(null, translateAny(apiLocale, 'md.moved'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'docs/edit',
  POST: { ...OWNER, other: 'denied', developer: 'denied', moderator: 'denied', admin: 'ok', input: MoveInput },
});
