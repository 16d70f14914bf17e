import { api, ok, readInput } from '../../../lib/server/http';
import { requireSection } from '../../../lib/server/admin/guard';
import { translateAny } from '../../../lib/i18n';
import { connectRemote, disconnectRemote, marketUrl, remotes, servedKey } from '../../../lib/server/modules/remote';
import { RemoteMarketInput } from '../../../lib/shared/validation/market';
import { routeAccess, ADMINS, as } from '../../../lib/shared/access';

/** The markets of other Atrium sites this site is connected to (never their tokens). */
export const GET = api(async (ctx) => {
  await requireSection(ctx, 'modules');
  const list = await remotes(ctx.locals.runtime);
  return ok({ list: list.map((r) => ({ id: r.id, url: r.url, fingerprint: r.fingerprint, create_time: r.createTime })) });
});

/**
 * `key`: the fingerprint of the key a market serves now, to show the administrator (nothing is
 * stored); `connect`: connects with a member's token there, pinning that key only if it still has
 * the fingerprint the administrator confirmed; `disconnect`: forgets a market's token. Audited.
 */
export const POST = api(async (ctx) => {
  const { actor } = await requireSection(ctx, 'modules');
  const input = await readInput(ctx, RemoteMarketInput);
  const { runtime, apiLocale } = ctx.locals;
  if (input.action === 'key') {
    const url = marketUrl(input.url);
    const { fingerprint } = await servedKey(url);
    return ok({ url, fingerprint }, translateAny(apiLocale, 'market.remote.keyRead', { url, fingerprint }));
  }
  if (input.action === 'connect') {
    const { remote, modules } = await connectRemote(runtime, { url: input.url, token: input.token, expectFingerprint: input.fingerprint }, actor);
    const values = { url: remote.url, fingerprint: remote.fingerprint, n: modules.length };
    return ok({ id: remote.id, url: remote.url, fingerprint: remote.fingerprint, modules: modules.length }, translateAny(apiLocale, 'market.remote.connected', values));
  }
  const gone = await disconnectRemote(runtime, input.id, actor);
  return ok({ id: gone.id }, translateAny(apiLocale, 'market.remote.disconnected', { url: gone.url }));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'admin/modules',
  GET: { ...ADMINS },
  POST: { ...as(ADMINS, 'refused'), input: RemoteMarketInput },
});
