import { api, ok, rateLimitReply, readInput } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { requireDeveloper, saveModule } from '../../../lib/server/market/studio';
import { cloudImages } from '../../../lib/server/upload/cloud-api';
import { ModuleInput } from '../../../lib/shared/validation/studio';
import { translateAny } from '../../../lib/i18n';
import { routeAccess, DEVELOPERS } from '../../../lib/shared/access';
import { requireEditor } from '../../../lib/server/modules/editor';

/** Creates a module (a draft), or saves an edit of one of the developer's own when `id` is given. */
export const POST = api(async (ctx) => {
  const member = requireUser(ctx);
  const { runtime, apiLocale } = ctx.locals;
  await requireDeveloper(runtime.db, member.id);
  // The description and the changelog are written in the editor module (spec §5/§8: "Editor required" without it).
  await requireEditor(runtime);
  const input = await readInput(ctx, ModuleInput);
  const limited = await rateLimitReply(ctx, `studio:save:${member.id}`, 30, 60);
  if (limited) return limited;
  const result = await saveModule(runtime.db, member.id, input, await cloudImages(runtime));
  return ok(result, translateAny(apiLocale, result.created ? 'devstudio.module.created' : 'devstudio.module.saved'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'developer/modules',
  POST: { ...DEVELOPERS, developer: 'notfound', input: ModuleInput },
});
