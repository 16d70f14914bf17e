import { api, ok, readInput } from '../../../lib/server/http';
import { viewerTimeZone } from '../../../lib/server/site/time-zone';
import { requireUser } from '../../../lib/server/auth/guard';
import { formatMoney } from '../../../lib/server/account/users';
import { requireDeveloper, salesPage } from '../../../lib/server/market/studio';
import { SalesInput } from '../../../lib/shared/validation/studio';
import { routeAccess, DEVELOPERS } from '../../../lib/shared/access';

/**
 * The developer's sales with filters (status, pay_type, from/to days, q = order number or buyer),
 * and the totals of what the filters match. Balance amounts are yuan strings, points are whole numbers.
 */
export const GET = api(async (ctx) => {
  const member = requireUser(ctx);
  const { runtime } = ctx.locals;
  await requireDeveloper(runtime.db, member.id);
  const filter = await readInput(ctx, SalesInput);
  const { list, total, totals } = await salesPage(runtime.db, member.id, filter, await viewerTimeZone(ctx.locals));
  const show = (payType: string, n: number): string => (payType === 'balance' ? formatMoney(n) : String(n));
  return ok({
    list: list.map((s) => ({ ...s, amount: show(s.payType, s.amount), commission: show(s.payType, s.commission), net: show(s.payType, s.net) })),
    total,
    page: filter.page,
    totals: {
      count: totals.count,
      money: { gross: formatMoney(totals.money.gross), net: formatMoney(totals.money.net) },
      score: totals.score,
    },
  });
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'developer/orders',
  GET: { ...DEVELOPERS, input: SalesInput },
});
