import { api, ok } from '../../../lib/server/http';
import { requireSection } from '../../../lib/server/admin/guard';
import { activity, attention, systemState } from '../../../lib/server/admin/dashboard';
import { routeAccess, ADMINS } from '../../../lib/shared/access';

/** The dashboard's figures: 30 days of activity, what waits for a decision, the system. */
export const GET = api(async (ctx) => {
  await requireSection(ctx, 'dashboard');
  const { runtime } = ctx.locals;
  const tz = await runtime.site.get('time_zone', 'Asia/Shanghai');
  const [chart, waiting, system] = await Promise.all([activity(runtime.db, tz), attention(runtime.db), systemState(runtime)]);
  return ok({ ...chart, attention: waiting, system });
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'admin/dashboard',
  GET: { ...ADMINS },
});
