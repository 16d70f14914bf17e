import { api, readInput } from '../../../lib/server/http';
import { ResumeInput } from '../../../lib/shared/validation/chat';
import { askerOf } from '../../../lib/server/chat/api';
import { resumeReply } from '../../../lib/server/chat/reply';
import { routeAccess, ANYONE } from '../../../lib/shared/access';

/** Resumes the reply still being written in a chat (or a visitor's that finished meanwhile, see resumeReply); 204 when there is none. */
export const GET = api(async (ctx) => {
  const { id, after } = await readInput(ctx, ResumeInput);
  const asker = askerOf(ctx);
  const response = await resumeReply(ctx.locals.runtime, asker, id, after);
  if (!response) return new Response(null, { status: 204 });
  // A member's resumed reply ends with their session (logout, password change, blocked), on any instance.
  const session = ctx.locals.session;
  return session ? ctx.locals.runtime.sessions.streams.tieResponse(session.ref, asker.ip, response) : response;
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  // Resumes only the caller's own running reply (a visitor's with the key their browser asked with,
  // header x-chat-key): others get 204, none running.
  GET: { ...ANYONE, input: ResumeInput },
});
