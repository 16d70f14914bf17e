import { api, ok, readInput } from '../../../lib/server/http';
import { ChatIdInput } from '../../../lib/shared/validation/chat';
import { askerOf } from '../../../lib/server/chat/api';
import { stopReply } from '../../../lib/server/chat/reply';

/** Stops the reply being written in a chat (the provider request is aborted). */
export const POST = api(async (ctx) => {
  const { id } = await readInput(ctx, ChatIdInput);
  const stopped = await stopReply(ctx.locals.runtime, askerOf(ctx), id);
  return ok({ stopped });
});
