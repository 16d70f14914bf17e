/** The locales Atrium speaks; the first is the default. */
export const LOCALES = ['zh-cn', 'en'] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = 'zh-cn';

/** A dictionary with the same keys as `T`, every value a string: a missing or extra key is a type error. */
export type Messages<T> = { readonly [K in keyof T]: string };

export function isLocale(value: unknown): value is Locale {
  return typeof value === 'string' && (LOCALES as readonly string[]).includes(value);
}

const plurals = new Intl.PluralRules('en');

/**
 * Replaces `{name}` placeholders with values; unknown placeholders stay as written. English
 * plural forms are written `{count|reply|replies}`: the form `Intl.PluralRules` picks for the
 * value (`1` → one, anything else → other; "1,234" and "10,000+" read as numbers).
 */
export function interpolate(template: string, values?: Record<string, string | number>): string {
  if (!values) return template;
  return template
    .replace(/\{(\w+)\|([^|{}]*)\|([^|{}]*)\}/g, (whole, name: string, one: string, other: string) => {
      if (!(name in values)) return whole;
      const n = Number(String(values[name]).replace(/[,+\s]/g, ''));
      return Number.isFinite(n) && plurals.select(n) === 'one' ? one : other;
    })
    .replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
}
