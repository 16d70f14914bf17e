import { api, ok, readInput } from '../../../lib/server/http';
import { userCard } from '../../../lib/server/messages/dialog';
import { UserCardInput } from '../../../lib/shared/validation/messages';
import { viewerTimeZone } from '../../../lib/server/site/time-zone';
import { formatDate } from '../../../lib/shared/date';
import { routeAccess, ANYONE } from '../../../lib/shared/access';

/** The small card of a member (no login needed): public fields and whether the viewer may write to them. */
export const GET = api(async (ctx) => {
  const { user_id } = await readInput(ctx, UserCardInput);
  const card = await userCard(ctx.locals.runtime.db, ctx.locals.user?.id ?? null, user_id);
  // The join day on the reader's clock (their own zone, else the site's), like every date on the pages.
  return ok({ ...card, join_date: formatDate(card.join_time, 'yyyy-mm-dd', await viewerTimeZone(ctx.locals)) });
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  GET: { ...ANYONE, input: UserCardInput },
});
