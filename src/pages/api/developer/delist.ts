import { api, ok, rateLimitReply, readInput } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { delistModule, requireDeveloper } from '../../../lib/server/market/studio';
import { ModuleIdInput } from '../../../lib/shared/validation/studio';
import { translateAny } from '../../../lib/i18n';
import { routeAccess, DEVELOPERS } from '../../../lib/shared/access';

/** Takes one of the developer's published modules off the market. */
export const POST = api(async (ctx) => {
  const member = requireUser(ctx);
  const { runtime, apiLocale } = ctx.locals;
  await requireDeveloper(runtime.db, member.id);
  const { id } = await readInput(ctx, ModuleIdInput);
  const limited = await rateLimitReply(ctx, `studio:status:${member.id}`, 30, 60);
  if (limited) return limited;
  await delistModule(runtime.db, member.id, id);
  return ok({ id, status: 'delisted' }, translateAny(apiLocale, 'devstudio.module.delisted'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'developer/modules',
  POST: { ...DEVELOPERS, developer: 'notfound', input: ModuleIdInput },
});
