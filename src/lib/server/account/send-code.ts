import type { APIContext } from 'astro';
import { z } from 'zod';
import { ok, readInput, requestIp } from '../http';
import { consumeCaptcha } from '../captcha/consume';
import { CODE_EVENTS, email, mobile } from '../../shared/validation/account';
import { translateAny } from '../../i18n';
import { sendCode, type Channel } from './codes';

const common = { event: z.enum(CODE_EVENTS), captchaId: z.string().max(64).optional(), captchaInfo: z.string().max(200).optional(), altcha: z.string().max(2000).optional(), extras: z.unknown().optional() };
export const EmsInput = z.object({ email, ...common }).strict();
export const SmsInput = z.object({ mobile, template_code: z.enum(CODE_EVENTS), captchaId: common.captchaId, captchaInfo: common.captchaInfo, altcha: common.altcha, extras: common.extras }).strict();

/** `POST /api/Ems/send` and `POST /api/Sms/send`: one captcha (click or proof-of-work), then the code. */
export async function handleSendCode(ctx: APIContext, channel: Channel): Promise<Response> {
  const rt = ctx.locals.runtime;
  const input = channel === 'email'
    ? await readInput(ctx, EmsInput).then((i) => ({ to: i.email, event: i.event, captchaId: i.captchaId, captchaInfo: i.captchaInfo, altcha: i.altcha }))
    : await readInput(ctx, SmsInput).then((i) => ({ to: i.mobile, event: i.template_code, captchaId: i.captchaId, captchaInfo: i.captchaInfo, altcha: i.altcha }));
  await consumeCaptcha(rt, requestIp(ctx), input);
  await sendCode(rt, {
    channel, to: input.to, event: input.event, locale: ctx.locals.apiLocale,
    ip: requestIp(ctx), userId: ctx.locals.session?.row.id ?? null,
  });
  return ok(null, translateAny(ctx.locals.apiLocale, 'account.codeSent'));
}
