import { api, AppError, envelope, ok, readRaw } from '../../../lib/server/http';
import { hasRule, requireUser } from '../../../lib/server/auth/guard';
import type { ModuleCallError } from '../../../lib/server/modules/host/types';
import { translateAny } from '../../../lib/i18n';
import { ANYONE, as, routeAccess } from '../../../lib/shared/access';

/** Most bytes of a body a module route reads (its own data goes through the module's store). */
const MAX_BODY = 64 * 1024;

/**
 * `/api/m/{uid}/{path}`: the API routes a module declares (`contributes.routes`), answered by its
 * server code in its host process, after the same pipeline as every route (session, origin, rate
 * limit, envelope) and the route's declared access: `public`, `member` (logged in) or `admin`
 * (holds the console's Modules section). The module's reply becomes the envelope's `data`.
 */
export const ALL = api(async (ctx) => {
  const [uid = '', ...rest] = (ctx.params.path ?? '').split('/');
  const path = `/${rest.join('/')}`;
  const method = ctx.request.method === 'HEAD' ? 'GET' : ctx.request.method;
  const { runtime, apiLocale } = ctx.locals;
  const active = runtime.modules.list().find((m) => m.uid === uid);
  const route = active?.manifest.contributes.routes?.find((r) => r.method === method && r.path === path);
  const host = runtime.modules.moduleHost;
  if (!active || !route || !host) throw new AppError('api.notFound', { status: 404, values: { path: ctx.url.pathname } });
  let memberId: number | null = ctx.locals.session?.row.id ?? null;
  if (route.access !== 'public') {
    const member = requireUser(ctx);
    memberId = member.id;
    if (route.access === 'admin' && !(await hasRule(runtime, member.groupId, apiLocale, 'admin/modules'))) throw new AppError('api.noPermission', { code: 401 });
  }
  const length = Number(ctx.request.headers.get('content-length') ?? 0);
  if (length > MAX_BODY) throw new AppError('api.tooLarge', { status: 413, values: { limit: '64 KB' } });
  const body = method === 'GET' ? null : await readRaw(ctx);
  const query = Object.fromEntries(ctx.url.searchParams);
  try {
    const res = await host.call(uid, 'route', [{ method, path, query, body, memberId }], { locale: apiLocale });
    if (res.status < 400) return ok(res.body);
    return envelope({ code: 0, msg: translateAny(apiLocale, 'modules.route.refused', { uid }), data: res.body }, res.status);
  } catch (err) {
    // By name: the host was made by the server's bundle, whose class is not this bundle's copy.
    if (!(err instanceof Error) || err.name !== 'ModuleCallError') throw err;
    const { kind } = err as ModuleCallError;
    runtime.log.error('module route failed', { uid, path, kind, reason: err.message });
    return envelope({ code: 0, msg: translateAny(apiLocale, 'modules.route.failed', { uid }), data: null }, kind === 'timeout' ? 504 : 502);
  }
});

/** Who may call this route (tests/integration/authz-matrix.test.ts): no module declares the sample's path. */
export const access = routeAccess({
  ALL: { ...as(ANYONE, 'notfound') },
});
