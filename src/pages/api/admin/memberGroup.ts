import { api, ok, readInput } from '../../../lib/server/http';
import { requireSection } from '../../../lib/server/admin/guard';
import { recordAction } from '../../../lib/server/admin/audit';
import { translateAny } from '../../../lib/i18n';
import { setMemberGroup } from '../../../lib/server/admin/members';
import { MemberGroupInput } from '../../../lib/shared/validation/admin';
import { routeAccess, ADMINS } from '../../../lib/shared/access';

/** Moves a member to another group. */
export const POST = api(async (ctx) => {
  const { actor } = await requireSection(ctx, 'members');
  const input = await readInput(ctx, MemberGroupInput);
  const change = await setMemberGroup(ctx.locals.runtime, input.id, input.group_id);
  await recordAction(ctx.locals.runtime.db, actor, 'member:group', input.id, { group: change.before }, { group: change.after });
  return ok(null, translateAny(ctx.locals.apiLocale, 'admin.saved'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  POST: { ...ADMINS, input: MemberGroupInput },
});
