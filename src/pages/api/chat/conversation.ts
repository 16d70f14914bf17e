import { api, ok, readInput } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { ChatIdInput } from '../../../lib/shared/validation/chat';
import { messagesOf, ownConversation } from '../../../lib/server/chat/conversations';
import { routeAccess, OWNER } from '../../../lib/shared/access';

/** One of the member's conversations: every message of every branch, and the branch shown. */
export const GET = api(async (ctx) => {
  const member = requireUser(ctx);
  const { id } = await readInput(ctx, ChatIdInput);
  const db = ctx.locals.runtime.db;
  const row = await ownConversation(db, member.id, id);
  return ok({ id: row.id, title: row.title, model: row.model, leafId: row.leafId, messages: await messagesOf(db, id) });
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'chat/history',
  GET: { ...OWNER, input: ChatIdInput },
});
