import { api, ok, readInput } from '../../../lib/server/http';
import { requireSection } from '../../../lib/server/admin/guard';
import { recordAction } from '../../../lib/server/admin/audit';
import { translateAny } from '../../../lib/i18n';
import { installRemote } from '../../../lib/server/modules/remote';
import { quietly } from '../../../lib/server/modules/lifecycle';
import { marketOffers } from '../../../lib/server/modules/remote-console';
import { RemoteInstallInput } from '../../../lib/shared/validation/market';
import { routeAccess, ADMINS, as } from '../../../lib/shared/access';

/** What each connected market offers this site's token (free, or bought by its member), beside what is installed here. */
export const GET = api(async (ctx) => {
  await requireSection(ctx, 'modules');
  const markets = await marketOffers(ctx.locals.runtime, ctx.locals.apiLocale, true);
  return ok({
    markets: markets.map((m) => ({
      id: m.id, url: m.url, fingerprint: m.fingerprint, error: m.error,
      modules: m.modules.map((o) => ({ uid: o.uid, name: o.name, latest: o.latest, free: o.free, installed: o.installed, installable: o.installable, capabilities: o.capabilities })),
    })),
  });
});

/**
 * Installs or upgrades a module from the connected market offering it, through the checks the CLI
 * makes (the signature under the pinned key, the sha256, the manifest, the Atrium range).
 */
export const POST = api(async (ctx) => {
  const { actor } = await requireSection(ctx, 'modules');
  const input = await readInput(ctx, RemoteInstallInput);
  const { runtime, apiLocale } = ctx.locals;
  // One audit row, as the CLI writes one per command: this one, naming the market.
  const done = await installRemote(runtime, input.uid, input.version, quietly(actor));
  await recordAction(runtime.db, actor, 'module:remote:install', input.uid, '', `${done.version} from ${done.url}`);
  return ok({ uid: input.uid, version: done.version, url: done.url }, translateAny(apiLocale, 'market.remote.installed', { uid: input.uid, version: done.version, url: done.url }));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'admin/modules',
  GET: { ...ADMINS },
  POST: { ...as(ADMINS, 'refused'), input: RemoteInstallInput },
});
