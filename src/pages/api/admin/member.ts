import { routeAccess, ADMINS } from '../../../lib/shared/access';
import { api, ok, readInput, AppError } from '../../../lib/server/http';
import { requireSection } from '../../../lib/server/admin/guard';
import { memberDetail } from '../../../lib/server/admin/members';
import { MemberDetailInput } from '../../../lib/shared/validation/admin';

/** One member: profile, group, balance and points logs, open sessions, a page of login history. */
export const GET = api(async (ctx) => {
  await requireSection(ctx, 'members');
  const { id, login_page } = await readInput(ctx, MemberDetailInput);
  const detail = await memberDetail(ctx.locals.runtime.db, id, login_page);
  if (!detail) throw new AppError('admin.member.notFound', { status: 404 });
  return ok(detail);
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'admin/members',
  GET: { ...ADMINS, input: MemberDetailInput },
});
