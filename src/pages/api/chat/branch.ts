import { routeAccess, OWNER } from '../../../lib/shared/access';
import { api, ok, readInput } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { BranchInput } from '../../../lib/shared/validation/chat';
import { chooseBranch } from '../../../lib/server/chat/conversations';

/** Remembers the branch the member shows (‹ 1/2 ›), so a reload shows the same one. */
export const POST = api(async (ctx) => {
  const member = requireUser(ctx);
  const { id, leafId } = await readInput(ctx, BranchInput);
  await chooseBranch(ctx.locals.runtime.db, member.id, id, leafId);
  return ok({ id, leafId });
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'chat/history',
  POST: { ...OWNER, input: BranchInput },
});
