import { api, ok } from '../../../lib/server/http';
import { askerOf } from '../../../lib/server/chat/api';
import { readerModels } from '../../../lib/server/chat/catalog';
import { routeAccess, ANYONE } from '../../../lib/shared/access';

/** The models this reader may use, the site assistant last, and the one the page starts with. */
export const GET = api(async (ctx) => ok(await readerModels(ctx.locals.runtime, askerOf(ctx))));

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  GET: { ...ANYONE },
});
