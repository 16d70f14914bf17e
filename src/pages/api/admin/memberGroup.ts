import { api, ok, readInput } from '../../../lib/server/http';
import { requireSection } from '../../../lib/server/admin/guard';
import { recordAction } from '../../../lib/server/admin/audit';
import { translateAny } from '../../../lib/i18n';
import { setMemberGroup } from '../../../lib/server/admin/members';
import { MemberGroupInput } from '../../../lib/shared/validation/admin';
import { assertMayMove } from '../../../lib/server/admin/groups';
import { findById } from '../../../lib/server/account/users';
import { routeAccess, ADMINS } from '../../../lib/shared/access';

/** Moves a member to another group. */
export const POST = api(async (ctx) => {
  const { member, actor } = await requireSection(ctx, 'members');
  const input = await readInput(ctx, MemberGroupInput);
  const target = await findById(ctx.locals.runtime.db, input.id);
  // No escalation: nobody moves a member into or out of a group holding rules they do not hold.
  if (target) await assertMayMove(ctx.locals.runtime.db, { groupId: member.groupId, memberId: member.id }, target.id, target.groupId, input.group_id);
  const change = await setMemberGroup(ctx.locals.runtime, input.id, input.group_id);
  await recordAction(ctx.locals.runtime.db, actor, 'member:group', input.id, { group: change.before }, { group: change.after });
  return ok(null, translateAny(ctx.locals.apiLocale, 'admin.saved'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'admin/members',
  POST: { ...ADMINS, input: MemberGroupInput },
});
