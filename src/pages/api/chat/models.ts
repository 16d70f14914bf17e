import { api, ok } from '../../../lib/server/http';
import { askerOf } from '../../../lib/server/chat/api';
import { readerModels } from '../../../lib/server/chat/catalog';

/** The models this reader may use, the site assistant last, and the one the page starts with. */
export const GET = api(async (ctx) => ok(await readerModels(ctx.locals.runtime, askerOf(ctx))));
