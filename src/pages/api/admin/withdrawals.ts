import { api, ok, readInput } from '../../../lib/server/http';
import { requireSection } from '../../../lib/server/admin/guard';
import { recordAction } from '../../../lib/server/admin/audit';
import { translateAny } from '../../../lib/i18n';
import { pendingWithdrawals } from '../../../lib/server/market/studio';
import { decideWithdrawalRequest } from '../../../lib/server/admin/content';
import { DecideInput } from '../../../lib/shared/validation/admin';
import { routeAccess, ADMINS } from '../../../lib/shared/access';

/** Pending developer withdrawals. */
export const GET = api(async (ctx) => {
  await requireSection(ctx, 'finance');
  return ok({ list: await pendingWithdrawals(ctx.locals.runtime.db) });
});

/** Marks a withdrawal paid (after paying outside Atrium) or rejects it with a reason. */
export const POST = api(async (ctx) => {
  const { actor } = await requireSection(ctx, 'finance');
  const input = await readInput(ctx, DecideInput);
  const done = await decideWithdrawalRequest(ctx.locals.runtime.db, input.id, input.decision === 'approve', input.remark);
  await recordAction(ctx.locals.runtime.db, actor, input.decision === 'approve' ? 'withdraw:pay' : 'withdraw:reject', input.id, 'pending', { amount: done.amount, remark: input.remark });
  return ok(null, translateAny(ctx.locals.apiLocale, 'admin.finance.decided'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'admin/finance',
  GET: { ...ADMINS },
  POST: { ...ADMINS, input: DecideInput },
});
