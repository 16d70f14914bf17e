import { api, ok, readInput } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { myModules, requireDeveloper } from '../../../lib/server/market/studio';
import { PageInput } from '../../../lib/shared/validation/studio';
import { routeAccess, DEVELOPERS } from '../../../lib/shared/access';

/** The developer's modules, newest first: status, review reason, latest version, price, counts. */
export const GET = api(async (ctx) => {
  const member = requireUser(ctx);
  const { db } = ctx.locals.runtime;
  await requireDeveloper(db, member.id);
  const { page } = await readInput(ctx, PageInput);
  return ok({ ...(await myModules(db, member.id, page)), page });
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'developer/modules',
  GET: { ...DEVELOPERS, input: PageInput },
});
