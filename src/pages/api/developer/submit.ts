import { api, ok, rateLimitReply, readInput } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { requireDeveloper, submitModule } from '../../../lib/server/market/studio';
import { ModuleIdInput } from '../../../lib/shared/validation/studio';
import { translateAny } from '../../../lib/i18n';
import { routeAccess, DEVELOPERS } from '../../../lib/shared/access';

/** Sends one of the developer's drafts (with at least one version) to the operators for review. */
export const POST = api(async (ctx) => {
  const member = requireUser(ctx);
  const { runtime, apiLocale } = ctx.locals;
  await requireDeveloper(runtime.db, member.id);
  const { id } = await readInput(ctx, ModuleIdInput);
  const limited = await rateLimitReply(ctx, `studio:status:${member.id}`, 30, 60);
  if (limited) return limited;
  await submitModule(runtime.db, member.id, id);
  return ok({ id, status: 'review' }, translateAny(apiLocale, 'devstudio.module.submitted'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'developer/modules',
  POST: { ...DEVELOPERS, member: 'refused', developer: 'notfound', input: ModuleIdInput },
});
