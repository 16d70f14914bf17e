import { api, ok, readInput } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { formatMoney } from '../../../lib/server/account/users';
import { requireDeveloper, withdrawalsPage } from '../../../lib/server/market/studio';
import { PageInput } from '../../../lib/shared/validation/studio';
import { routeAccess, DEVELOPERS } from '../../../lib/shared/access';

/** The developer's withdrawal requests, newest first, with status and the operator's remark. */
export const GET = api(async (ctx) => {
  const member = requireUser(ctx);
  const { db } = ctx.locals.runtime;
  await requireDeveloper(db, member.id);
  const { page } = await readInput(ctx, PageInput);
  const { list, total } = await withdrawalsPage(db, member.id, page);
  return ok({
    list: list.map((w) => ({ id: w.id, amount: formatMoney(w.amount), account: w.account, status: w.status, remark: w.remark, createTime: w.createTime, updateTime: w.updateTime })),
    total, page,
  });
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'developer/earnings',
  GET: { ...DEVELOPERS, input: PageInput },
});
