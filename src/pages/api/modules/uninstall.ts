import { api, ok, readInput } from '../../../lib/server/http';
import { requireRule } from '../../../lib/server/auth/guard';
import { moduleStep } from '../../../lib/server/modules/lifecycle';
import { INSTALL_RULE } from '../../../lib/server/market/review';
import { UidInput } from '../../../lib/shared/validation/market';
import { translateAny } from '../../../lib/i18n';
import { actorOf } from '../../../lib/server/admin/guard';
import { routeAccess, ADMINS, as } from '../../../lib/shared/access';

/** Uninstalls a module (its data stays); what needs the editor shows 'Please install editor' again at once. */
export const POST = api(async (ctx) => {
  const member = await requireRule(ctx, INSTALL_RULE);
  const { uid } = await readInput(ctx, UidInput);
  const { runtime, apiLocale } = ctx.locals;
  await moduleStep(runtime, { uid, action: 'uninstall' }, actorOf(ctx, member));
  return ok({ installed: false, version: null }, translateAny(apiLocale, 'market.uninstalled', { uid }));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'market/install',
  POST: { ...as(ADMINS, 'refused'), input: UidInput },
});
