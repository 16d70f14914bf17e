import { api, ok, readInput } from '../../../lib/server/http';
import { requireSection } from '../../../lib/server/admin/guard';
import { recordAction } from '../../../lib/server/admin/audit';
import { translateAny } from '../../../lib/i18n';
import { createGroup, ruleNames } from '../../../lib/server/admin/groups';
import { GroupCreateInput, ruleIdList } from '../../../lib/shared/validation/admin';
import { routeAccess, ADMINS } from '../../../lib/shared/access';

/** A new group with the rules picked (their ancestors come along). */
export const POST = api(async (ctx) => {
  const { member, actor } = await requireSection(ctx, 'groups');
  const input = await readInput(ctx, GroupCreateInput);
  const { runtime, apiLocale } = ctx.locals;
  const group = await createGroup(runtime, { groupId: member.groupId, memberId: member.id }, { name: input.name, nameEn: input.name_en, rules: ruleIdList(input.rules) });
  await recordAction(runtime.db, actor, 'group:create', group.name, '', { id: group.id, name: group.name, name_en: group.nameEn, rules: await ruleNames(runtime.db, group.rules) });
  return ok({ id: group.id }, translateAny(apiLocale, 'admin.groups.created'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'admin/groups',
  POST: { ...ADMINS, input: GroupCreateInput },
});
