import { api, ok, readInput } from '../../../lib/server/http';
import { requireSection } from '../../../lib/server/admin/guard';
import { recordAction } from '../../../lib/server/admin/audit';
import { translateAny } from '../../../lib/i18n';
import { editRule, ruleSummary } from '../../../lib/server/admin/rules';
import { RuleEditInput } from '../../../lib/shared/validation/admin';
import { routeAccess, ADMINS } from '../../../lib/shared/access';

/** Edits a rule: titles, parent, path, menu type, target, redirect (a system rule keeps its name and type). */
export const POST = api(async (ctx) => {
  const { member, actor } = await requireSection(ctx, 'groups');
  const { id, ...input } = await readInput(ctx, RuleEditInput);
  const { runtime, apiLocale } = ctx.locals;
  const { before, after } = await editRule(runtime, { groupId: member.groupId, memberId: member.id }, id, input);
  await recordAction(runtime.db, actor, 'rule:edit', after.name, ruleSummary(before), ruleSummary(after));
  return ok(null, translateAny(apiLocale, 'admin.rules.saved'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'admin/groups',
  POST: { ...ADMINS, input: RuleEditInput },
});
