import { api, ok, readInput } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { vote } from '../../../lib/server/ask/interactions';
import { writeLimit } from '../../../lib/server/ask/access';
import { VoteInput } from '../../../lib/shared/validation/ask';
import { routeAccess, MEMBERS } from '../../../lib/shared/access';

/** Up or down on a post or reply; the same vote again takes it back. */
export const POST = api(async (ctx) => {
  const member = requireUser(ctx);
  const input = await readInput(ctx, VoteInput);
  const limited = await writeLimit(ctx, member, 'vote');
  if (limited) return limited;
  const { runtime } = ctx.locals;
  const result = await vote(runtime.db, member.id, input.type, input.id, input.value as 1 | -1);
  return ok({ my_vote: result.myVote, score: result.score });
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'forum/interact',
  POST: { ...MEMBERS, input: VoteInput },
});
