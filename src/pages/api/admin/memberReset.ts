import { api, ok, readInput } from '../../../lib/server/http';
import { requireSection } from '../../../lib/server/admin/guard';
import { recordAction } from '../../../lib/server/admin/audit';
import { translateAny } from '../../../lib/i18n';
import { findById } from '../../../lib/server/account/users';
import { resetLinkPath } from '../../../lib/server/admin/setup';
import { MemberIdInput } from '../../../lib/shared/validation/admin';
import { AppError } from '../../../lib/server/http';
import { routeAccess, ADMINS } from '../../../lib/shared/access';

/** A one-time password-reset link for a member (valid a day), to pass on to them. */
export const POST = api(async (ctx) => {
  const { actor } = await requireSection(ctx, 'members');
  const { id } = await readInput(ctx, MemberIdInput);
  const row = await findById(ctx.locals.runtime.db, id);
  if (!row) throw new AppError('admin.member.notFound', { status: 404 });
  const url = new URL(await resetLinkPath(ctx.locals.runtime, id), ctx.url.origin).href;
  await recordAction(ctx.locals.runtime.db, actor, 'member:reset-link', id, '', 'link made');
  return ok({ url }, translateAny(ctx.locals.apiLocale, 'admin.member.resetLinkDone', { url }));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'admin/members',
  POST: { ...ADMINS, input: MemberIdInput },
});
