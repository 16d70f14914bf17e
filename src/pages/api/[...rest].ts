import type { APIRoute } from 'astro';
import { envelope } from '../../lib/server/http';
import { translator } from '../../lib/i18n';
import { routeAccess, ANYONE, as } from '../../lib/shared/access';

/** Any /api path without a handler: HTTP 404 with the envelope, never the HTML 404 page. */
export const ALL: APIRoute = (ctx) => envelope({ code: 0, msg: translator(ctx.locals.apiLocale, 'api')('api.notFound', { path: ctx.url.pathname }), data: null }, 404);

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  ALL: as(ANYONE, 'notfound'),
});
