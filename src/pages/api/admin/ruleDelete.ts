import { api, ok, readInput } from '../../../lib/server/http';
import { requireSection } from '../../../lib/server/admin/guard';
import { recordAction } from '../../../lib/server/admin/audit';
import { translateAny } from '../../../lib/i18n';
import { deleteRule, ruleSummary } from '../../../lib/server/admin/rules';
import { RuleIdInput } from '../../../lib/shared/validation/admin';
import { routeAccess, ADMINS } from '../../../lib/shared/access';

/** Deletes a rule an administrator made; system rules are refused (they may be disabled instead). */
export const POST = api(async (ctx) => {
  const { member, actor } = await requireSection(ctx, 'groups');
  const input = await readInput(ctx, RuleIdInput);
  const { runtime, apiLocale } = ctx.locals;
  const rule = await deleteRule(runtime, { groupId: member.groupId, memberId: member.id }, input.id);
  await recordAction(runtime.db, actor, 'rule:delete', rule.name, ruleSummary(rule), '');
  return ok(null, translateAny(apiLocale, 'admin.rules.deleted'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'admin/groups',
  POST: { ...ADMINS, input: RuleIdInput },
});
