import { api, ok, readInput } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { markRead } from '../../../lib/server/messages/inbox';
import { MarkReadInput } from '../../../lib/shared/validation/messages';
import { routeAccess, OWNER } from '../../../lib/shared/access';

/** Marks the member's own messages read: `{ids}`, or `{all: true, tab}`. */
export const POST = api(async (ctx) => {
  const member = requireUser(ctx);
  const input = await readInput(ctx, MarkReadInput);
  return ok({ ids: await markRead(ctx.locals.runtime.db, member.id, input) });
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'messageCenter',
  POST: { ...OWNER, input: MarkReadInput },
});
