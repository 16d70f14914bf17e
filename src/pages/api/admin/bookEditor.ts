import { z } from 'zod';
import { api, ok, readInput } from '../../../lib/server/http';
import { requireSection } from '../../../lib/server/admin/guard';
import { recordAction } from '../../../lib/server/admin/audit';
import { translateAny } from '../../../lib/i18n';
import { dropEditor } from '../../../lib/server/admin/content';
import { routeAccess, ADMINS } from '../../../lib/shared/access';

const Input = z.object({ name: z.string().trim().regex(/^[A-Za-z0-9][\w.-]{0,99}$/), user_id: z.coerce.number().int().min(1).max(2_147_483_647) }).strict();

/** Stops a member editing a book. */
export const POST = api(async (ctx) => {
  const { actor } = await requireSection(ctx, 'books');
  const input = await readInput(ctx, Input);
  await dropEditor(ctx.locals.runtime, input.name, input.user_id);
  await recordAction(ctx.locals.runtime.db, actor, 'book:editor-remove', input.name, { editor: input.user_id }, '');
  return ok(null, translateAny(ctx.locals.apiLocale, 'admin.books.saved'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'admin/books',
  POST: { ...ADMINS, input: Input },
});
