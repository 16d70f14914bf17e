// One gate for the business calls that want a captcha (login, sending sign-up and reset codes):
// either a click-captcha answer or a solved proof-of-work challenge, whichever the operator offers.
import { AppError } from '../http';
import type { Runtime } from '../runtime';
import type { ConfigStore } from '../site/config';
import { consumeClickCaptcha, type ClickCheck } from './click-captcha';
import { consumePowSolution, countPowFailure, powSecrets, type PowCheck } from './pow-captcha';

/** Which captchas the site offers (setting `user_captcha_types`): both (pictures first), the click captcha only, or proof-of-work only. */
export const CAPTCHA_TYPES = ['both', 'click', 'pow'] as const;
export type CaptchaTypes = (typeof CAPTCHA_TYPES)[number];
export const DEFAULT_CAPTCHA_TYPES: CaptchaTypes = 'both';

export async function captchaTypes(site: ConfigStore): Promise<CaptchaTypes> {
  const value = await site.get('user_captcha_types', DEFAULT_CAPTCHA_TYPES);
  return (CAPTCHA_TYPES as readonly string[]).includes(value) ? (value as CaptchaTypes) : DEFAULT_CAPTCHA_TYPES;
}

export function offersClick(types: CaptchaTypes): boolean {
  return types !== 'pow';
}

export function offersPow(types: CaptchaTypes): boolean {
  return types !== 'click';
}

export interface CaptchaProof {
  captchaId?: string | undefined;
  captchaInfo?: string | undefined;
  /** ALTCHA's payload: base64 of the challenge and its solution. */
  altcha?: string | undefined;
}

/**
 * Uses up the captcha a business call carries, or throws the spec's captcha error
 * (`account.captchaFailed` on the `captcha` field). A kind the site does not offer is refused.
 */
export async function consumeCaptcha(rt: Runtime, ip: string, proof: CaptchaProof): Promise<void> {
  const types = await captchaTypes(rt.site);
  let result: ClickCheck | PowCheck = 'wrong';
  if (proof.altcha) {
    if (offersPow(types)) {
      result = await consumePowSolution(rt.db, powSecrets(rt.tokenSecret), proof.altcha);
      if (result !== 'ok') await countPowFailure(rt.limiter, ip);
    }
  } else if (proof.captchaId && proof.captchaInfo && offersClick(types)) {
    result = await consumeClickCaptcha(rt.db, proof.captchaId, proof.captchaInfo);
  }
  if (result !== 'ok') throw new AppError('account.captchaFailed', { fieldKeys: { captcha: 'account.captchaFailed' } });
}
