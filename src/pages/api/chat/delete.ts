import { api, ok, readInput } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { ChatIdInput } from '../../../lib/shared/validation/chat';
import { deleteConversation } from '../../../lib/server/chat/conversations';
import { routeAccess, OWNER } from '../../../lib/shared/access';

export const POST = api(async (ctx) => {
  const member = requireUser(ctx);
  const { id } = await readInput(ctx, ChatIdInput);
  await deleteConversation(ctx.locals.runtime.db, member.id, id);
  return ok({ id });
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'chat/history',
  POST: { ...OWNER, input: ChatIdInput },
});
