import { api, ok, readInput } from '../../../lib/server/http';
import { requireSection } from '../../../lib/server/admin/guard';
import { recordAction } from '../../../lib/server/admin/audit';
import { translateAny } from '../../../lib/i18n';
import { setRuleStatus } from '../../../lib/server/admin/rules';
import { RuleStatusInput } from '../../../lib/shared/validation/admin';
import { routeAccess, ADMINS } from '../../../lib/shared/access';

/** Enables (1) or disables (0) a rule: a disabled rule is in nobody's tree, its children with it. */
export const POST = api(async (ctx) => {
  const { member, actor } = await requireSection(ctx, 'groups');
  const input = await readInput(ctx, RuleStatusInput);
  const { runtime, apiLocale } = ctx.locals;
  const rule = await setRuleStatus(runtime, { groupId: member.groupId, memberId: member.id }, input.id, input.status);
  await recordAction(runtime.db, actor, input.status ? 'rule:enable' : 'rule:disable', rule.name, String(rule.status), String(input.status));
  return ok(null, translateAny(apiLocale, input.status ? 'admin.rules.enabled' : 'admin.rules.disabled'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'admin/groups',
  POST: { ...ADMINS, input: RuleStatusInput },
});
