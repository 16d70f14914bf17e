import { z } from 'zod';
import { eq } from 'drizzle-orm';
import { api, ok, readInput } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { user } from '../../../lib/server/db/schema';
import { routeAccess, MEMBERS } from '../../../lib/shared/access';

export const StarInput = z.object({ starred: z.boolean() }).strict();

/** Records that the star dialog was shown (it waits 30 days) and whether the member starred. */
export const POST = api(async (ctx) => {
  const member = requireUser(ctx);
  const { starred } = await readInput(ctx, StarInput);
  await ctx.locals.runtime.db.update(user)
    .set({ showOpenSourceStarTime: Math.floor(Date.now() / 1000), ...(starred ? { isUserOpenSourceStar: 1 } : {}) })
    .where(eq(user.id, member.id));
  await ctx.locals.runtime.sessions.forgetUser(member.id);
  return ok(null);
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  POST: { ...MEMBERS, input: StarInput },
});
