import { api, ok, readInput } from '../../../lib/server/http';
import { requireSection } from '../../../lib/server/admin/guard';
import { recordAction } from '../../../lib/server/admin/audit';
import { translateAny } from '../../../lib/i18n';
import { sortRules } from '../../../lib/server/admin/rules';
import { RuleSortInput, ruleIdList } from '../../../lib/shared/validation/admin';
import { routeAccess, ADMINS } from '../../../lib/shared/access';

/** Puts the children of `pid` in the order of `ids` (the console's drag and its move up/down buttons). */
export const POST = api(async (ctx) => {
  const { member, actor } = await requireSection(ctx, 'groups');
  const input = await readInput(ctx, RuleSortInput);
  const { runtime, apiLocale } = ctx.locals;
  const order = await sortRules(runtime, { groupId: member.groupId, memberId: member.id }, input.pid, ruleIdList(input.ids));
  await recordAction(runtime.db, actor, 'rule:sort', String(input.pid), '', order.map((r) => r.name).join(','));
  return ok(null, translateAny(apiLocale, 'admin.rules.sorted'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'admin/groups',
  POST: { ...ADMINS, input: RuleSortInput },
});
