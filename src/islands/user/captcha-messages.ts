// The captcha's strings for the browser. The dictionaries are plain objects, so importing them here
// ships only these few strings, never the server's i18n module.
import { interpolate, type Locale } from '../../lib/i18n/types';
import zh from '../../lib/i18n/zh-cn/captcha';
import en from '../../lib/i18n/en/captcha';

export type CaptchaKey = keyof typeof zh;

const MESSAGES: Record<Locale, Record<CaptchaKey, string>> = { 'zh-cn': zh, en };

export function captchaMessage(locale: Locale, key: CaptchaKey, values?: Record<string, string | number>): string {
  return interpolate(MESSAGES[locale][key], values);
}
