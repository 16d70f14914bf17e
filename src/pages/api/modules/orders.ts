import { api, ok, readInput } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { ordersPage } from '../../../lib/server/market/orders';
import { PageInput } from '../../../lib/shared/validation/market';
import { routeAccess, MEMBERS } from '../../../lib/shared/access';

/** The member's module orders, newest first. */
export const GET = api(async (ctx) => {
  const member = requireUser(ctx);
  const { page } = await readInput(ctx, PageInput);
  const { rows, total, limit } = await ordersPage(ctx.locals.runtime.db, member.id, page, 20, ctx.locals.apiLocale);
  return ok({
    total, page, limit,
    list: rows.map((o) => ({
      id: o.id, order_no: o.orderNo, uid: o.uid, name: o.name, pay_type: o.payType, amount: o.amount, status: o.status,
      pay_time: o.payTime, updates_until: o.updatesUntil, create_time: o.createTime, latest_version: o.latestVersion,
    })),
  });
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'account/moduleOrders',
  GET: { ...MEMBERS, input: PageInput },
});
