import { api, ok, readInput } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { ListInput } from '../../../lib/shared/validation/chat';
import { listConversations } from '../../../lib/server/chat/conversations';

/** The member's conversations, newest first; `q` searches titles and text. */
export const GET = api(async (ctx) => {
  const member = requireUser(ctx);
  const { q, page, limit } = await readInput(ctx, ListInput);
  return ok(await listConversations(ctx.locals.runtime.db, member.id, q, page, limit));
});
