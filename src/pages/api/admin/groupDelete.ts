import { api, ok, readInput } from '../../../lib/server/http';
import { requireSection } from '../../../lib/server/admin/guard';
import { recordAction } from '../../../lib/server/admin/audit';
import { translateAny } from '../../../lib/i18n';
import { deleteGroup, ruleNames } from '../../../lib/server/admin/groups';
import { GroupDeleteInput } from '../../../lib/shared/validation/admin';
import { routeAccess, ADMINS } from '../../../lib/shared/access';

/** Deletes a group, its members moving to the group chosen. */
export const POST = api(async (ctx) => {
  const { member, actor } = await requireSection(ctx, 'groups');
  const input = await readInput(ctx, GroupDeleteInput);
  const { runtime, apiLocale } = ctx.locals;
  const done = await deleteGroup(runtime, { groupId: member.groupId, memberId: member.id }, input.id, input.move_to);
  await recordAction(runtime.db, actor, 'group:delete', done.group.name, { id: done.group.id, name_en: done.group.nameEn, rules: await ruleNames(runtime.db, done.group.rules) }, { moved: done.moved, to: done.target.name });
  return ok({ moved: done.moved }, translateAny(apiLocale, 'admin.groups.deleted', { count: done.moved }));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'admin/groups',
  POST: { ...ADMINS, input: GroupDeleteInput },
});
