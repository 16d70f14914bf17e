import { api, ok, readInput } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { hubFor } from '../../../lib/server/messages/live';
import { pollingInterval } from '../../../lib/server/messages/settings';
import { CountInput } from '../../../lib/shared/validation/messages';
import { routeAccess, MEMBERS } from '../../../lib/shared/access';

/**
 * The member's unread count, from memory (dropped on every instance when it changes), and how often
 * to ask again. The Node server answers the common case itself, without Astro (a valid token, no or
 * a plain `push`, within the rate limit: src/server/stream.ts answerCount, in the table of
 * src/server/raw-routes.ts with this file's `access`); this route answers the rest and `astro dev`.
 */
export const GET = api(async (ctx) => {
  const member = requireUser(ctx);
  const { push } = await readInput(ctx, CountInput);
  const { runtime } = ctx.locals;
  const [count, interval] = await Promise.all([hubFor(runtime.bus, runtime.db).count(member.id), pollingInterval(runtime.site, !!push)]);
  return ok({ count, pollingInterval: interval });
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  GET: { ...MEMBERS, input: CountInput },
});
