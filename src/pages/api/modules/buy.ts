import { api, ok, readInput } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { buyModule } from '../../../lib/server/market/orders';
import { BuyInput } from '../../../lib/shared/validation/market';
import { DEFAULT_COMMISSION } from '../../../lib/shared/market';
import { translateAny } from '../../../lib/i18n';
import { siteTimeZone } from '../../../lib/server/site/time-zone';
import { routeAccess, MEMBERS } from '../../../lib/shared/access';

/** Buys a module with balance or points; a retried click with the same nonce returns the same order. */
export const POST = api(async (ctx) => {
  const member = requireUser(ctx);
  const input = await readInput(ctx, BuyInput);
  const { runtime, apiLocale } = ctx.locals;
  const commission = Number(await runtime.site.get('market_commission', String(DEFAULT_COMMISSION)));
  const { order } = await buyModule(runtime.db, { userId: member.id, uid: input.uid, payType: input.pay_type, nonce: input.nonce, commission, timeZone: await siteTimeZone(runtime.site) });
  return ok({
    order: { order_no: order.orderNo, status: order.status, pay_type: order.payType, amount: order.amount, pay_time: order.payTime, updates_until: order.updatesUntil },
  }, translateAny(apiLocale, 'market.paid'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'account/moduleOrders',
  POST: { ...MEMBERS, member: 'refused', developer: 'refused', input: BuyInput },
});
