import { api, ok, readInput } from '../../../lib/server/http';
import { requireSection } from '../../../lib/server/admin/guard';
import { recordAction } from '../../../lib/server/admin/audit';
import { translateAny } from '../../../lib/i18n';
import { pendingInvoices } from '../../../lib/server/account/invoices';
import { decideInvoiceRequest } from '../../../lib/server/admin/content';
import { DecideInput } from '../../../lib/shared/validation/admin';
import { routeAccess, ADMINS } from '../../../lib/shared/access';

/** Pending invoice requests. */
export const GET = api(async (ctx) => {
  await requireSection(ctx, 'finance');
  return ok({ list: await pendingInvoices(ctx.locals.runtime.db) });
});

/** Issues (approve) or rejects (with a reason) an invoice request. */
export const POST = api(async (ctx) => {
  const { actor } = await requireSection(ctx, 'finance');
  const input = await readInput(ctx, DecideInput);
  await decideInvoiceRequest(ctx.locals.runtime.db, input.id, input.decision === 'approve', input.remark);
  await recordAction(ctx.locals.runtime.db, actor, input.decision === 'approve' ? 'invoice:issue' : 'invoice:reject', input.id, 'pending', { remark: input.remark });
  return ok(null, translateAny(ctx.locals.apiLocale, 'admin.finance.decided'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'admin/finance',
  GET: { ...ADMINS },
  POST: { ...ADMINS, input: DecideInput },
});
