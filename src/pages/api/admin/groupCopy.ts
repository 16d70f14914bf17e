import { api, ok, readInput } from '../../../lib/server/http';
import { requireSection } from '../../../lib/server/admin/guard';
import { recordAction } from '../../../lib/server/admin/audit';
import { translateAny } from '../../../lib/i18n';
import { copyGroup, ruleNames } from '../../../lib/server/admin/groups';
import { GroupCopyInput } from '../../../lib/shared/validation/admin';
import { routeAccess, ADMINS } from '../../../lib/shared/access';

/** A new group holding another group's rules. */
export const POST = api(async (ctx) => {
  const { member, actor } = await requireSection(ctx, 'groups');
  const input = await readInput(ctx, GroupCopyInput);
  const { runtime, apiLocale } = ctx.locals;
  const group = await copyGroup(runtime, { groupId: member.groupId, memberId: member.id }, input.id, { name: input.name, nameEn: input.name_en });
  await recordAction(runtime.db, actor, 'group:copy', group.name, { from: input.id }, { id: group.id, name: group.name, name_en: group.nameEn, rules: await ruleNames(runtime.db, group.rules) });
  return ok({ id: group.id }, translateAny(apiLocale, 'admin.groups.copied'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'admin/groups',
  POST: { ...ADMINS, input: GroupCopyInput },
});
