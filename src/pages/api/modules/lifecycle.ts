import { api, ok, readInput } from '../../../lib/server/http';
import { requireRule } from '../../../lib/server/auth/guard';
import { INSTALL_RULE } from '../../../lib/server/market/review';
import { ModuleStepInput } from '../../../lib/shared/validation/market';
import { translateAny } from '../../../lib/i18n';
import { actorOf } from '../../../lib/server/admin/guard';
import { moduleStep } from '../../../lib/server/modules/lifecycle';
import { routeAccess, ADMINS, as } from '../../../lib/shared/access';

/**
 * One lifecycle step on a module of this site (install, upgrade, rollback, enable, disable,
 * uninstall, purge): the wanted state changes, every instance follows within a moment.
 */
export const POST = api(async (ctx) => {
  const member = await requireRule(ctx, INSTALL_RULE);
  const input = await readInput(ctx, ModuleStepInput);
  const { runtime, apiLocale } = ctx.locals;
  const done = await moduleStep(runtime, input, actorOf(ctx, member));
  return ok(done, translateAny(apiLocale, done.messageKey, { uid: input.uid, version: done.version ?? '' }));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'market/install',
  POST: { ...as(ADMINS, 'refused'), input: ModuleStepInput },
});
