import { z } from 'zod';
import { api, ok, readInput } from '../../../lib/server/http';
import { requireRule, requireUser } from '../../../lib/server/auth/guard';
import { myCollections, myPosts, myReplies } from '../../../lib/server/ask/mine';
import { routeAccess, MEMBERS } from '../../../lib/shared/access';

const Input = z.object({ kind: z.enum(['post', 'comment', 'collect']), page: z.coerce.number().int().min(1).max(10_000).default(1) });

/** The member's posts, replies and comments, or collections. */
export const GET = api(async (ctx) => {
  requireUser(ctx);
  const { kind, page } = await readInput(ctx, Input);
  // Each list is its own member-center page: the route declares any of them, the list asked for is checked here.
  const member = await requireRule(ctx, `ask/${kind}`);
  const { db } = ctx.locals.runtime;
  const result = kind === 'post' ? await myPosts(db, member.id, page) : kind === 'collect' ? await myCollections(db, member.id, page) : await myReplies(db, member.id, page);
  return ok(result);
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: ['ask/post', 'ask/comment', 'ask/collect'],
  GET: { ...MEMBERS, input: Input },
});
