import { api, ok, rateLimitReply } from '../../../../lib/server/http';
import { memberOfToken, remoteList } from '../../../../lib/server/market/remote';
import { routeAccess, ANYONE, as } from '../../../../lib/shared/access';

/**
 * For another Atrium holding a member's API token (`authorization: Bearer atm_…`): the modules that
 * member may install (free ones, bought ones within their updates), each version with its manifest,
 * its reviewed sha256 and the market's ed25519 signature over them. A session is not accepted here.
 */
export const GET = api(async (ctx) => {
  const { db } = ctx.locals.runtime;
  const userId = await memberOfToken(db, ctx.request.headers.get('authorization'));
  const limited = await rateLimitReply(ctx, `market:remote:${userId}`, 60, 60);
  if (limited) return limited;
  return ok({ modules: await remoteList(db, userId) });
});

/** Who may call this route: a session is not a token, so every actor of the matrix is refused. */
export const access = routeAccess({ GET: as(ANYONE, 'refused') });
