import { eq } from 'drizzle-orm';
import { api, AppError, ok, readInput } from '../../../lib/server/http';
import { requireRule } from '../../../lib/server/auth/guard';
import { module } from '../../../lib/server/db/schema';
import { installable, moduleStep } from '../../../lib/server/modules/lifecycle';
import { INSTALL_RULE } from '../../../lib/server/market/review';
import { UidInput } from '../../../lib/shared/validation/market';
import { translateAny } from '../../../lib/i18n';
import { actorOf } from '../../../lib/server/admin/guard';
import { routeAccess, ADMINS } from '../../../lib/shared/access';

/**
 * Installs a module of this site's market: a site module this codebase ships (the editor), or a
 * packaged module at its newest reviewed version the administrator may have (bought, or free).
 */
export const POST = api(async (ctx) => {
  const member = await requireRule(ctx, INSTALL_RULE);
  const { uid } = await readInput(ctx, UidInput);
  const { runtime, apiLocale } = ctx.locals;
  const [m] = await runtime.db.select({ siteModule: module.siteModule, status: module.status }).from(module).where(eq(module.uid, uid)).limit(1);
  if (!m || m.status !== 'published') throw new AppError('market.notFound');
  const kind = await installable(runtime, uid);
  if (!kind || (kind === 'builtin' && !m.siteModule)) throw new AppError('market.notSiteModule');
  const { version } = await moduleStep(runtime, { uid, action: 'install' }, actorOf(ctx, member));
  return ok({ installed: true, version }, translateAny(apiLocale, 'market.installed', { uid, version: version ?? '' }));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'market/install',
  POST: { ...ADMINS, input: UidInput },
});
