import { api, ok, readInput } from '../../../lib/server/http';
import { requireSection } from '../../../lib/server/admin/guard';
import { recordAction } from '../../../lib/server/admin/audit';
import { translateAny } from '../../../lib/i18n';
import { groupTitle, listGroups, ruleNames, setGroupRules } from '../../../lib/server/admin/groups';
import { GroupRulesInput, ruleIdList } from '../../../lib/shared/validation/admin';
import { readSelect, selectGroups, wantsSelect } from '../../../lib/server/admin/select';
import { routeAccess, ADMINS } from '../../../lib/shared/access';

/** Groups with the rule tree each holds, as the member center reads it. */
export const GET = api(async (ctx) => {
  await requireSection(ctx, 'groups');
  const { runtime, apiLocale } = ctx.locals;
  if (wantsSelect(ctx)) return ok(await selectGroups(runtime.db, apiLocale, await readSelect(ctx)));
  const groups = await listGroups(runtime.db);
  return ok({ list: await Promise.all(groups.map(async (g) => ({ ...g, title: groupTitle(g, apiLocale), tree: await runtime.rules.forGroup(g.id, apiLocale) }))) });
});

/** Sets the rules of a group (not of an administrator group, whose rules are *); their ancestors come along. */
export const POST = api(async (ctx) => {
  const { member, actor } = await requireSection(ctx, 'groups');
  const input = await readInput(ctx, GroupRulesInput);
  const { runtime, apiLocale } = ctx.locals;
  const change = await setGroupRules(runtime, { groupId: member.groupId, memberId: member.id }, input.id, ruleIdList(input.rules));
  await recordAction(runtime.db, actor, 'group:rules', change.group.name, await ruleNames(runtime.db, change.before), await ruleNames(runtime.db, change.after));
  return ok(null, translateAny(apiLocale, 'admin.groups.saved'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'admin/groups',
  GET: { ...ADMINS },
  POST: { ...ADMINS, input: GroupRulesInput },
});
