import { eq } from 'drizzle-orm';
import { api, AppError, ok, readInput } from '../../../lib/server/http';
import { requireRule } from '../../../lib/server/auth/guard';
import { module } from '../../../lib/server/db/schema';
import { installReviewed, SITE_MODULES } from '../../../lib/server/modules/installs';
import { INSTALL_RULE } from '../../../lib/server/market/review';
import { UidInput } from '../../../lib/shared/validation/market';
import { translateAny } from '../../../lib/i18n';
import { recordAction } from '../../../lib/server/admin/audit';
import { actorOf } from '../../../lib/server/admin/guard';
import { routeAccess, ADMINS } from '../../../lib/shared/access';

/** Installs a site module this codebase ships (such as the editor), or updates its recorded version. */
export const POST = api(async (ctx) => {
  const member = await requireRule(ctx, INSTALL_RULE);
  const { uid } = await readInput(ctx, UidInput);
  const { runtime, apiLocale } = ctx.locals;
  const [m] = await runtime.db.select({ siteModule: module.siteModule, status: module.status }).from(module).where(eq(module.uid, uid)).limit(1);
  if (!m || m.status !== 'published') throw new AppError('market.notFound');
  if (!m.siteModule || !SITE_MODULES[uid]) throw new AppError('market.notSiteModule');
  const version = await installReviewed(runtime, uid, member.id);
  if (!version) throw new AppError('market.notSiteModule');
  await recordAction(runtime.db, actorOf(ctx, member), 'module:install', uid, '', `installed ${version}`);
  // Forms that need the module (forum, docs) are rendered differently once it is there.
  await runtime.pageCache.invalidate(['modules', 'ask', 'md']);
  return ok({ installed: true, version }, translateAny(apiLocale, 'market.installed', { uid, version }));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'market/install',
  POST: { ...ADMINS, input: UidInput },
});
