import { z } from 'zod';
import { api, ok, readInput } from '../../../lib/server/http';
import { SESSION_COOKIE } from '../../../lib/server/request-context';

// Both spellings are accepted: BuildAdmin reads `refreshToken`, its Nuxt client posts `refresh_token`.
export const LogoutInput = z.object({ refresh_token: z.string().max(200).optional(), refreshToken: z.string().max(200).optional() }).strict();

/** Ends the session: the cookie is cleared and, for members, the tokens are revoked. Always code 1. */
export const POST = api(async (ctx) => {
  await readInput(ctx, LogoutInput);
  ctx.cookies.delete(SESSION_COOKIE, { path: '/' });
  return ok(null);
});
