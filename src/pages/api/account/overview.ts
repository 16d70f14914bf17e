import { api, ok } from '../../../lib/server/http';
import { viewerTimeZone } from '../../../lib/server/site/time-zone';
import { requireUser } from '../../../lib/server/auth/guard';
import { overview } from '../../../lib/server/account/ledger';
import { routeAccess, MEMBERS } from '../../../lib/shared/access';

/** Daily sums of points and balance for the last 7 days, oldest first. */
export const GET = api(async (ctx) => {
  const member = requireUser(ctx);
  const { runtime } = ctx.locals;
  return ok(await overview(runtime.db, member.id, await viewerTimeZone(ctx.locals)));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'account/overview',
  GET: { ...MEMBERS },
});
