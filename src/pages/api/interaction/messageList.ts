import { api, ok, readInput } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { listMessages } from '../../../lib/server/messages/inbox';
import { MessageListInput } from '../../../lib/shared/validation/messages';
import { routeAccess, MEMBERS } from '../../../lib/shared/access';

/** The member's messages by tab (`tab`, `unread`, `page`), newest first, with unread counts per tab. */
export const GET = api(async (ctx) => {
  const member = requireUser(ctx);
  const input = await readInput(ctx, MessageListInput);
  return ok(await listMessages(ctx.locals.runtime.db, member.id, ctx.locals.apiLocale, input));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'messageCenter',
  GET: { ...MEMBERS, input: MessageListInput },
});
