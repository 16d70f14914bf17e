import { api, readRaw } from '../../../lib/server/http';
import { SendInput } from '../../../lib/shared/validation/chat';
import { askerOf, sendChat } from '../../../lib/server/chat/api';
import { routeAccess, OWNER } from '../../../lib/shared/access';

/**
 * Asks a question: answers the AI SDK UI message stream (text/event-stream). The Node server
 * answers this call itself, without Astro's request and middleware: src/server/chat-send.ts
 * handleChatSend, the same steps, listed in src/server/raw-routes.ts with this file's `access`.
 * This route serves `astro dev` and tells which methods the path takes.
 */
export const POST = api(async (ctx) => {
  const reply = await sendChat(ctx.locals.runtime, askerOf(ctx), () => readRaw(ctx));
  return reply instanceof Response ? reply : reply.toResponse();
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  // A visitor's chat is not stored: the id names nobody's conversation.
  POST: { ...OWNER, visitor: 'ok', input: SendInput },
});
