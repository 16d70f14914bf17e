import { api, ok, rateLimitReply, readInput } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { formatMoney } from '../../../lib/server/account/users';
import { requestWithdrawal, requireDeveloper } from '../../../lib/server/market/studio';
import { WithdrawInput } from '../../../lib/shared/validation/studio';
import { translateAny } from '../../../lib/i18n';
import { routeAccess, DEVELOPERS } from '../../../lib/shared/access';

/** Asks for a payout of `amount` yuan (at least `market_withdraw_min`, at most what is available) to `account`. */
export const POST = api(async (ctx) => {
  const member = requireUser(ctx);
  const { runtime, apiLocale } = ctx.locals;
  await requireDeveloper(runtime.db, member.id);
  const input = await readInput(ctx, WithdrawInput);
  const limited = await rateLimitReply(ctx, `studio:withdraw:${member.id}`, 10, 60);
  if (limited) return limited;
  const result = await requestWithdrawal(runtime.db, member.id, input);
  return ok({ id: result.id, amount: formatMoney(result.amount), available: formatMoney(result.available) }, translateAny(apiLocale, 'devstudio.withdraw.requested'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'developer/earnings',
  POST: { ...DEVELOPERS, input: WithdrawInput },
});
