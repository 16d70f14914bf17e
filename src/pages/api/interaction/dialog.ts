import { api, ok, readInput } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { readDialog } from '../../../lib/server/messages/dialog';
import { DialogInput } from '../../../lib/shared/validation/messages';
import { routeAccess, MEMBERS } from '../../../lib/shared/access';

/** A private conversation with `user_id`, newest first (`before`: older pages); opening it marks it read. */
export const GET = api(async (ctx) => {
  const member = requireUser(ctx);
  const input = await readInput(ctx, DialogInput);
  return ok(await readDialog(ctx.locals.runtime.db, member.id, input.user_id, input.before));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'messageCenter',
  GET: { ...MEMBERS, input: DialogInput },
});
