import { api, ok, readInput } from '../../../lib/server/http';
import { requireSection } from '../../../lib/server/admin/guard';
import { recordAction } from '../../../lib/server/admin/audit';
import { translateAny } from '../../../lib/i18n';
import { createRule, ruleSummary } from '../../../lib/server/admin/rules';
import { RuleCreateInput } from '../../../lib/shared/validation/admin';
import { routeAccess, ADMINS } from '../../../lib/shared/access';

/** A new rule or menu (last among its siblings); groups holding its parent get it too. */
export const POST = api(async (ctx) => {
  const { member, actor } = await requireSection(ctx, 'groups');
  const input = await readInput(ctx, RuleCreateInput);
  const { runtime, apiLocale } = ctx.locals;
  const { rule } = await createRule(runtime, { groupId: member.groupId, memberId: member.id }, input);
  await recordAction(runtime.db, actor, 'rule:create', rule.name, '', ruleSummary(rule));
  return ok({ id: rule.id }, translateAny(apiLocale, 'admin.rules.created'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'admin/groups',
  POST: { ...ADMINS, input: RuleCreateInput },
});
