// The only dictionaries shipped to the browser: small on purpose.
import zh from './zh-cn/client';
import en from './en/client';
import { DEFAULT_LOCALE, interpolate, isLocale, type Locale } from './types';

export type ClientKey = keyof typeof zh;
const CLIENT: Record<Locale, Record<ClientKey, string>> = { 'zh-cn': zh, en };

/** The page's locale, read from `<html lang>` that the server rendered. */
export function pageLocale(): Locale {
  const lang = typeof document === 'undefined' ? '' : document.documentElement.lang.toLowerCase();
  return isLocale(lang) ? lang : DEFAULT_LOCALE;
}

export function tc(key: ClientKey, locale: Locale = pageLocale(), values?: Record<string, string | number>): string {
  return interpolate(CLIENT[locale][key], values);
}
