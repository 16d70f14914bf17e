import { api, rateLimitReply, readInput } from '../../../lib/server/http';
import { SendInput } from '../../../lib/shared/validation/chat';
import { askerOf } from '../../../lib/server/chat/api';
import { sendReply } from '../../../lib/server/chat/reply';
import { chatSettings } from '../../../lib/server/chat/settings';
import { routeAccess, OWNER } from '../../../lib/shared/access';

/** Asks a question: answers the AI SDK UI message stream (text/event-stream). */
export const POST = api(async (ctx) => {
  const asker = askerOf(ctx);
  const settings = await chatSettings(ctx.locals.runtime.site);
  const limited = (asker.userId ? await rateLimitReply(ctx, `chat:send:u${asker.userId}`, settings.rateMember, 60) : null)
    ?? await rateLimitReply(ctx, `chat:send:ip:${asker.ip}`, settings.rateIp, 60);
  if (limited) return limited;
  const input = await readInput(ctx, SendInput);
  return sendReply(ctx.locals.runtime, asker, input);
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  // A visitor's chat is not stored: the id names nobody's conversation.
  POST: { ...OWNER, visitor: 'ok', input: SendInput },
});
