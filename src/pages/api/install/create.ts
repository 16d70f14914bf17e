import { api, ok, readInput, requestIp } from '../../../lib/server/http';
import { completeInstall } from '../../../lib/server/admin/setup';
import { startSession } from '../../../lib/server/auth/sessions';
import { recordLogin } from '../../../lib/server/account/login-history';
import { cookieScope, setSessionCookies, setUserInfoCookie } from '../../../lib/server/auth/guard';
import { InstallInput } from '../../../lib/shared/validation/admin';
import { translateAny } from '../../../lib/i18n';
import { routeAccess, ANYONE, as } from '../../../lib/shared/access';

/** First start: creates the administrator with the one-time setup token and logs them in. */
export const POST = api(async (ctx) => {
  const { runtime, apiLocale } = ctx.locals;
  const input = await readInput(ctx, InstallInput);
  const ip = requestIp(ctx);
  const row = await completeInstall(runtime, input, ip);
  const [session] = await Promise.all([
    startSession(runtime.db, runtime.tokenSecret, row.id, true),
    recordLogin(runtime.db, { userId: row.id, method: 'install', result: 'ok', ip, userAgent: ctx.request.headers.get('user-agent') ?? '' }),
  ]);
  const scope = cookieScope(ctx);
  setSessionCookies(ctx.cookies, session.token, session.refreshToken, scope);
  setUserInfoCookie(ctx.cookies, row, scope);
  return ok({ routePath: '/admin' }, translateAny(apiLocale, 'admin.install.done'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  POST: { ...as(ANYONE, 'refused'), input: InstallInput },
});
