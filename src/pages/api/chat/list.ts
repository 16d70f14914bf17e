import { api, ok, readInput } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { ListInput } from '../../../lib/shared/validation/chat';
import { listConversations } from '../../../lib/server/chat/conversations';
import { routeAccess, MEMBERS } from '../../../lib/shared/access';

/** The member's conversations, newest first; `q` searches titles and text. */
export const GET = api(async (ctx) => {
  const member = requireUser(ctx);
  const { q, page, limit } = await readInput(ctx, ListInput);
  return ok(await listConversations(ctx.locals.runtime.db, member.id, q, page, limit));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'chat/history',
  GET: { ...MEMBERS, input: ListInput },
});
