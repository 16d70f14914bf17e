import { api, AppError, ok, readInput } from '../../../lib/server/http';
import { requireRule } from '../../../lib/server/auth/guard';
import { uninstallModule } from '../../../lib/server/modules/installs';
import { INSTALL_RULE } from '../../../lib/server/market/review';
import { UidInput } from '../../../lib/shared/validation/market';
import { translateAny } from '../../../lib/i18n';
import { recordAction } from '../../../lib/server/admin/audit';
import { actorOf } from '../../../lib/server/admin/guard';
import { routeAccess, ADMINS, as } from '../../../lib/shared/access';

/** Uninstalls a site module; what needs it shows 'Please install editor' again at once. */
export const POST = api(async (ctx) => {
  const member = await requireRule(ctx, INSTALL_RULE);
  const { uid } = await readInput(ctx, UidInput);
  const { runtime, apiLocale } = ctx.locals;
  if (!(await uninstallModule(runtime.db, uid))) throw new AppError('market.notInstalled', { values: { uid } });
  await recordAction(runtime.db, actorOf(ctx, member), 'module:uninstall', uid, 'installed', 'uninstalled');
  await runtime.pageCache.invalidate(['modules', 'ask', 'md']);
  return ok({ installed: false, version: null }, translateAny(apiLocale, 'market.uninstalled', { uid }));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'market/install',
  POST: { ...as(ADMINS, 'refused'), input: UidInput },
});
