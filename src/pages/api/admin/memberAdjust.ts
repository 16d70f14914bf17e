import { api, ok, readInput } from '../../../lib/server/http';
import { requireSection } from '../../../lib/server/admin/guard';
import { recordAction } from '../../../lib/server/admin/audit';
import { translateAny } from '../../../lib/i18n';
import { adjustMember } from '../../../lib/server/admin/members';
import { MemberAdjustInput } from '../../../lib/shared/validation/admin';
import { routeAccess, ADMINS } from '../../../lib/shared/access';

/** Adds or takes balance or points through the ledger, with the reason as its memo. */
export const POST = api(async (ctx) => {
  const { actor } = await requireSection(ctx, 'members');
  const input = await readInput(ctx, MemberAdjustInput);
  const change = await adjustMember(ctx.locals.runtime, input.id, input.kind, input.amount, input.memo);
  await recordAction(ctx.locals.runtime.db, actor, `member:${input.kind}`, input.id, change.before, { after: change.after, amount: input.amount, memo: input.memo });
  return ok(change, translateAny(ctx.locals.apiLocale, 'admin.member.adjusted', change));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'admin/members',
  POST: { ...ADMINS, input: MemberAdjustInput },
});
