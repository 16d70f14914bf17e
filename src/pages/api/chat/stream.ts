import { api, readInput } from '../../../lib/server/http';
import { ChatIdInput } from '../../../lib/shared/validation/chat';
import { askerOf } from '../../../lib/server/chat/api';
import { resumeReply } from '../../../lib/server/chat/reply';

/** Resumes the reply still being written in a chat; 204 when there is none. */
export const GET = api(async (ctx) => {
  const { id } = await readInput(ctx, ChatIdInput);
  const response = await resumeReply(ctx.locals.runtime, askerOf(ctx), id);
  return response ?? new Response(null, { status: 204 });
});
