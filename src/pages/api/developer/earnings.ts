import { api, ok } from '../../../lib/server/http';
import { viewerTimeZone } from '../../../lib/server/site/time-zone';
import { requireUser } from '../../../lib/server/auth/guard';
import { formatMoney } from '../../../lib/server/account/users';
import { earningsSummary, monthlyEarnings, requireDeveloper, withdrawMinimum } from '../../../lib/server/market/studio';
import { routeAccess, DEVELOPERS } from '../../../lib/shared/access';

/** Earnings after commission (yuan strings) and points, the last twelve months, and the smallest withdrawal. */
export const GET = api(async (ctx) => {
  const member = requireUser(ctx);
  const { runtime } = ctx.locals;
  await requireDeveloper(runtime.db, member.id);
  const [summary, monthly, min] = await Promise.all([
    earningsSummary(runtime.db, member.id),
    monthlyEarnings(runtime.db, member.id, 12, await viewerTimeZone(ctx.locals)),
    withdrawMinimum(runtime.db),
  ]);
  const money = Object.fromEntries(Object.entries(summary.money).map(([k, v]) => [k, formatMoney(v)]));
  return ok({
    money, score: summary.score, sales: summary.sales,
    monthly: monthly.map((m) => ({ month: m.month, amount: formatMoney(m.cents) })),
    withdrawMin: formatMoney(min),
  });
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'developer/earnings',
  GET: { ...DEVELOPERS },
});
