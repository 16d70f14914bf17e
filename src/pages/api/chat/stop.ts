import { api, ok, readInput } from '../../../lib/server/http';
import { StopInput } from '../../../lib/shared/validation/chat';
import { askerOf } from '../../../lib/server/chat/api';
import { stopReply } from '../../../lib/server/chat/reply';
import { routeAccess, ANYONE } from '../../../lib/shared/access';

/** Stops the reply being written in a chat (the provider request is aborted). */
export const POST = api(async (ctx) => {
  const { id, turn } = await readInput(ctx, StopInput);
  const stopped = await stopReply(ctx.locals.runtime, askerOf(ctx), id, turn);
  return ok({ stopped });
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  // Stops only the caller's own running reply (a visitor's with the key their browser asked with,
  // header x-chat-key): others are told none was running.
  POST: { ...ANYONE, input: StopInput },
});
