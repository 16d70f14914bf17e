import { api, ok, readInput } from '../../../lib/server/http';
import { requireSection } from '../../../lib/server/admin/guard';
import { recordAction } from '../../../lib/server/admin/audit';
import { translateAny } from '../../../lib/i18n';
import { setMemberStatus } from '../../../lib/server/admin/members';
import { MemberStatusInput } from '../../../lib/shared/validation/admin';
import { routeAccess, ADMINS } from '../../../lib/shared/access';

/** Disables a member (ending their sessions) or enables them again. */
export const POST = api(async (ctx) => {
  const { actor } = await requireSection(ctx, 'members');
  const input = await readInput(ctx, MemberStatusInput);
  const change = await setMemberStatus(ctx.locals.runtime, input.id, input.status);
  await recordAction(ctx.locals.runtime.db, actor, 'member:status', input.id, change.before, change.after);
  return ok(null, translateAny(ctx.locals.apiLocale, 'admin.saved'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'admin/members',
  POST: { ...ADMINS, input: MemberStatusInput },
});
