import { api, ok, readInput } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { deleteMessages } from '../../../lib/server/messages/inbox';
import { DelMessageInput } from '../../../lib/shared/validation/messages';
import { translateAny } from '../../../lib/i18n';
import { routeAccess, OWNER } from '../../../lib/shared/access';

/** Deletes the member's own messages (`{ids}`); private conversations are kept. */
export const POST = api(async (ctx) => {
  const member = requireUser(ctx);
  const { ids } = await readInput(ctx, DelMessageInput);
  return ok({ ids: await deleteMessages(ctx.locals.runtime.db, member.id, ids) }, translateAny(ctx.locals.apiLocale, 'messages.deleted'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'messageCenter',
  POST: { ...OWNER, input: DelMessageInput },
});
