import { api, AppError, ok, parseInput, readRaw, requestIp } from '../../../lib/server/http';
import { requireVisitor } from '../../../lib/server/auth/guard';
import { createUser, login } from '../../../lib/server/account/users';
import { verifyCode } from '../../../lib/server/account/codes';
import { sessionReply } from '../../../lib/server/account/session-reply';
import { startSession } from '../../../lib/server/auth/sessions';
import { recordLogin } from '../../../lib/server/account/login-history';
import { adjustScore, LEDGER_MAX } from '../../../lib/server/account/ledger';
import { captchaTypes, consumeCaptcha } from '../../../lib/server/captcha/consume';
import { LoginInput, RegisterInput } from '../../../lib/shared/validation/account';
import { translateAny } from '../../../lib/i18n';
import { routeAccess, VISITORS } from '../../../lib/shared/access';

async function memberCenterOpen(ctx: Parameters<Parameters<typeof api>[0]>[0]): Promise<void> {
  if ((await ctx.locals.runtime.site.get('open_member_center', '1')) !== '1') throw new AppError('account.memberCenterClosed');
}

/** What the login form needs to know (reference §1). */
export const GET = api(async (ctx) => {
  await memberCenterOpen(ctx);
  requireVisitor(ctx);
  const { site } = ctx.locals.runtime;
  return ok({
    userLoginCaptchaSwitch: (await site.get('user_login_captcha', '1')) === '1',
    captchaTypes: await captchaTypes(site),
    accountVerificationType: ['email', 'mobile'],
  });
});

/** Login (`tab: 'login'`) or registration (`tab: 'register'`). */
export const POST = api(async (ctx) => {
  await memberCenterOpen(ctx);
  requireVisitor(ctx);
  const raw = await readRaw(ctx);
  const tab = (raw as { tab?: unknown } | null)?.tab;
  const rt = ctx.locals.runtime;
  const ip = requestIp(ctx);
  const userAgent = ctx.request.headers.get('user-agent') ?? '';
  const locale = ctx.locals.apiLocale;

  if (tab === 'login') {
    const input = parseInput(ctx, LoginInput, raw);
    if ((await rt.site.get('user_login_captcha', '1')) === '1') {
      await consumeCaptcha(rt, ip, input);
    }
    const keep = input.keep === true || input.keep === 1 || input.keep === '1';
    const { row, session } = await login(rt, { account: input.username, password: input.password, keep, ip, userAgent });
    return sessionReply(ctx, row, session, translateAny(locale, 'account.loginSucceeded'));
  }
  if (tab === 'register') {
    const input = parseInput(ctx, RegisterInput, raw);
    const perIp = await rt.limiter.hit(`register-ip:${ip}`, 10, 3600);
    if (!perIp.allowed) throw new AppError('account.registerLimited', { values: { minutes: Math.ceil(perIp.retryAfter / 60) } });
    const channel = input.registerType;
    const address = channel === 'email' ? input.email! : input.mobile!;
    await verifyCode(rt, channel, address, 'user_register', input.captcha);
    // The site's sign-up reward (§3 reg_score): recorded on the member and in the points log.
    const regScore = Math.min(LEDGER_MAX.score, Math.max(0, Math.floor(Number(await rt.site.get('reg_score', '0')) || 0)));
    let row = await createUser(rt.db, {
      username: input.username, password: input.password, ip, loggedIn: true, regScore,
      ...(channel === 'email' ? { email: address } : { mobile: address }),
    });
    if (regScore > 0) {
      const { after } = await adjustScore(rt.db, row.id, regScore, 'Signing up', { key: 'user.ledger.memo.signUp', params: {} });
      row = { ...row, score: after };
    }
    const keep = input.keep === true || input.keep === 1 || input.keep === '1';
    const [session] = await Promise.all([
      startSession(rt.db, rt.tokenSecret, row.id, keep),
      recordLogin(rt.db, { userId: row.id, method: 'register', result: 'ok', ip, userAgent }),
    ]);
    return sessionReply(ctx, row, session, translateAny(locale, 'account.registerSucceeded'));
  }
  throw new AppError('account.unknownOperation');
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  GET: { ...VISITORS },
  POST: { ...VISITORS, visitor: 'refused' },
});
