import { api, ok, readInput } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { createApiToken, listApiTokens, revokeApiToken } from '../../../lib/server/market/remote';
import { translateAny } from '../../../lib/i18n';
import { ApiTokenInput } from '../../../lib/shared/validation/market';
import { routeAccess, MEMBERS } from '../../../lib/shared/access';

/** The member's API tokens for installing from this market on another site (names and dates, never the tokens). */
export const GET = api(async (ctx) => {
  const member = requireUser(ctx);
  const rows = await listApiTokens(ctx.locals.runtime.db, member.id);
  return ok({ list: rows.map((r) => ({ id: r.id, name: r.name, create_time: r.createTime, last_use_time: r.lastUseTime })) });
});

/** Makes a token (answered this once: only its sha256 is kept) or revokes one of the member's own. */
export const POST = api(async (ctx) => {
  const member = requireUser(ctx);
  const input = await readInput(ctx, ApiTokenInput);
  const { runtime, apiLocale } = ctx.locals;
  if (input.action === 'create') {
    const made = await createApiToken(runtime.db, member.id, input.name);
    return ok({ id: made.id, token: made.token }, translateAny(apiLocale, 'market.remote.tokenCreated'));
  }
  await revokeApiToken(runtime.db, member.id, input.id);
  return ok({ id: input.id }, translateAny(apiLocale, 'market.remote.tokenRevoked'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  GET: { ...MEMBERS },
  POST: { ...MEMBERS, input: ApiTokenInput },
});
