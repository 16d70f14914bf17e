import { api, ok, readInput } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { recentPartners } from '../../../lib/server/messages/dialog';
import { RecentInput } from '../../../lib/shared/validation/messages';
import { routeAccess, MEMBERS } from '../../../lib/shared/access';

/** The member's conversation partners, latest first, with the last message and the unread count. */
export const GET = api(async (ctx) => {
  const member = requireUser(ctx);
  const { page } = await readInput(ctx, RecentInput);
  return ok({ page, ...(await recentPartners(ctx.locals.runtime.db, member.id, page)) });
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'messageCenter',
  GET: { ...MEMBERS, input: RecentInput },
});
