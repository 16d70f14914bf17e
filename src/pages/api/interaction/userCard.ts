import { api, ok, readInput } from '../../../lib/server/http';
import { userCard } from '../../../lib/server/messages/dialog';
import { UserCardInput } from '../../../lib/shared/validation/messages';

/** The small card of a member (no login needed): public fields and whether the viewer may write to them. */
export const GET = api(async (ctx) => {
  const { user_id } = await readInput(ctx, UserCardInput);
  return ok(await userCard(ctx.locals.runtime.db, ctx.locals.user?.id ?? null, user_id));
});
