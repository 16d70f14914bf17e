import { createHash, randomInt, timingSafeEqual } from 'node:crypto';
import { and, eq, gt, gte, lt, lte, or, sql } from 'drizzle-orm';
import { captcha } from '../db/schema';
import { AppError } from '../http';
import type { Runtime } from '../runtime';
import { translateAny, type Locale } from '../../i18n';
import type { CodeEvent } from '../../shared/validation/account';
import { findByAccount } from './users';

/** Codes are valid this long, may be resent after RESEND seconds and survive MAX_ATTEMPTS wrong tries. */
export const CODE_TTL = 600;
export const RESEND = 60;
export const MAX_ATTEMPTS = 5;

export type Channel = 'email' | 'mobile';

const now = (): number => Math.floor(Date.now() / 1000);
const keyOf = (channel: Channel, to: string, event: CodeEvent): string => createHash('sha256').update(`code:${channel}:${to.toLowerCase()}:${event}`).digest('hex');
const hashCode = (secret: string, code: string): string => createHash('sha256').update(`${secret}:${code.toUpperCase()}`).digest('hex');

/** Events that need the address to be new, and those that need it to belong to an account. */
const NEEDS_NEW: readonly CodeEvent[] = ['user_register', 'user_change_email', 'user_change_mobile'];

export interface SendCode {
  channel: Channel;
  to: string;
  event: CodeEvent;
  ip: string;
  locale: Locale;
  /** The logged-in member, for the verify events. */
  userId: number | null;
}

/** Sends a fresh code by e-mail or text message, after the reference's rules and our limits. */
export async function sendCode(rt: Runtime, input: SendCode): Promise<void> {
  const field = input.channel;
  if (input.event.includes('email') && field !== 'email') throw new AppError('account.codeEvent');
  if (input.event.includes('mobile') && field !== 'mobile') throw new AppError('account.codeEvent');
  const owner = await findByAccount(rt.db, input.to);
  if (NEEDS_NEW.includes(input.event)) {
    if (owner) throw new AppError(field === 'email' ? 'account.emailTaken' : 'account.mobileTaken', { fieldKeys: { [field]: field === 'email' ? 'account.emailTaken' : 'account.mobileTaken' } });
  } else if (!owner) {
    throw new AppError(field === 'email' ? 'account.emailUnknown' : 'account.mobileUnknown', { fieldKeys: { [field]: field === 'email' ? 'account.emailUnknown' : 'account.mobileUnknown' } });
  } else if (input.event.endsWith('_verify') && owner.id !== input.userId) {
    throw new AppError('api.noPermission', { code: 401 });
  }

  const perIp = await rt.limiter.hit(`code-ip:${input.ip}`, 20, 3600);
  const perTo = await rt.limiter.hit(`code-to:${input.to.toLowerCase()}`, 10, 3600);
  if (!perIp.allowed || !perTo.allowed) throw new AppError('account.codeTooFrequent', { values: { seconds: Math.max(perIp.retryAfter, perTo.retryAfter) } });

  const key = keyOf(field, input.to, input.event);
  await rt.db.delete(captcha).where(lt(captcha.expireTime, now()));
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  const t = now();
  // One statement decides and writes: a code younger than RESEND seconds (and still valid) is not
  // replaced, so of many requests at once, on any instance, exactly one gets a code to send.
  const [fresh] = await rt.db.insert(captcha).values({ key, code: hashCode(rt.tokenSecret, code), createTime: t, expireTime: t + CODE_TTL })
    .onConflictDoUpdate({
      target: captcha.key,
      set: { code: hashCode(rt.tokenSecret, code), attempts: 0, createTime: t, expireTime: t + CODE_TTL },
      setWhere: or(lte(captcha.createTime, t - RESEND), lte(captcha.expireTime, t)),
    })
    .returning({ key: captcha.key });
  if (!fresh) {
    const [existing] = await rt.db.select({ createTime: captcha.createTime }).from(captcha).where(eq(captcha.key, key));
    throw new AppError('account.codeTooFrequent', { values: { seconds: Math.max(1, (existing?.createTime ?? t) + RESEND - now()) } });
  }

  const site = await rt.site.get('site_name', 'Atrium');
  const eventName = translateAny(input.locale, `account.event.${input.event}`);
  const text = translateAny(input.locale, 'account.mailBody', { code, minutes: CODE_TTL / 60 });
  if (field === 'email') {
    await rt.mailer.sendMail({ to: input.to, subject: translateAny(input.locale, 'account.mailSubject', { event: eventName, site }), text });
  } else {
    await rt.mailer.sendSms(input.to, input.event, `【${site}】${text}`);
  }
}

/**
 * Checks a code; it is used up on success, and voided after MAX_ATTEMPTS tries. The try is counted
 * before the comparison, in one conditional update that also says whether a try was left, so at
 * most MAX_ATTEMPTS guesses are ever compared, however many arrive at once.
 */
export async function verifyCode(rt: Runtime, channel: Channel, to: string, event: CodeEvent, code: string, fieldName = 'captcha'): Promise<void> {
  const key = keyOf(channel, to, event);
  const expired = (): AppError => new AppError('account.codeExpired', { fieldKeys: { [fieldName]: 'account.codeExpired' } });
  const [row] = await rt.db.update(captcha).set({ attempts: sql`${captcha.attempts} + 1` })
    .where(and(eq(captcha.key, key), lt(captcha.attempts, MAX_ATTEMPTS), gt(captcha.expireTime, now())))
    .returning({ code: captcha.code });
  if (!row) {
    await rt.db.delete(captcha).where(and(eq(captcha.key, key), or(gte(captcha.attempts, MAX_ATTEMPTS), lte(captcha.expireTime, now()))));
    throw expired();
  }
  const expected = Buffer.from(row.code, 'hex');
  const actual = Buffer.from(hashCode(rt.tokenSecret, code.trim()), 'hex');
  if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) {
    throw new AppError('account.codeWrong', { fieldKeys: { [fieldName]: 'account.codeWrong' } });
  }
  // Two right answers at once: only the one that deletes the row goes on.
  const used = await rt.db.delete(captcha).where(and(eq(captcha.key, key), eq(captcha.code, row.code))).returning({ key: captcha.key });
  if (!used.length) throw expired();
}
