import { api, ok, readInput } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { RenameInput } from '../../../lib/shared/validation/chat';
import { renameConversation } from '../../../lib/server/chat/conversations';
import { routeAccess, OWNER } from '../../../lib/shared/access';

export const POST = api(async (ctx) => {
  const member = requireUser(ctx);
  const { id, title } = await readInput(ctx, RenameInput);
  await renameConversation(ctx.locals.runtime.db, member.id, id, title);
  return ok({ id, title });
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'chat/history',
  POST: { ...OWNER, input: RenameInput },
});
