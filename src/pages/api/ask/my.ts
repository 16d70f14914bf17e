import { z } from 'zod';
import { api, ok, readInput } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { myCollections, myPosts, myReplies } from '../../../lib/server/ask/mine';
import { routeAccess, MEMBERS } from '../../../lib/shared/access';

const Input = z.object({ kind: z.enum(['post', 'comment', 'collect']), page: z.coerce.number().int().min(1).max(10_000).default(1) });

/** The member's posts, replies and comments, or collections. */
export const GET = api(async (ctx) => {
  const member = requireUser(ctx);
  const { kind, page } = await readInput(ctx, Input);
  const { db } = ctx.locals.runtime;
  const result = kind === 'post' ? await myPosts(db, member.id, page) : kind === 'collect' ? await myCollections(db, member.id, page) : await myReplies(db, member.id, page);
  return ok(result);
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  GET: { ...MEMBERS, input: Input },
});
