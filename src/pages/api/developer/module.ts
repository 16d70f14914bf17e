import { api, AppError, ok, readInput } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { moduleVersions, ownModule, requireDeveloper } from '../../../lib/server/market/studio';
import { ModuleIdInput } from '../../../lib/shared/validation/studio';
import { routeAccess, DEVELOPERS } from '../../../lib/shared/access';

/** One of the developer's own modules with its versions (what the edit and version forms show). */
export const GET = api(async (ctx) => {
  const member = requireUser(ctx);
  const { db } = ctx.locals.runtime;
  await requireDeveloper(db, member.id);
  const { id } = await readInput(ctx, ModuleIdInput);
  const found = await ownModule(db, member.id, id);
  if (!found) throw new AppError('devstudio.error.moduleMissing', { status: 404 });
  return ok({ module: found, versions: (await moduleVersions(db, member.id, id)) ?? [] });
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'developer/modules',
  GET: { ...DEVELOPERS, developer: 'notfound', input: ModuleIdInput },
});
