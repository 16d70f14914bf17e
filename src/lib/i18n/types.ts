/** The locales Atrium speaks; the first is the default. */
export const LOCALES = ['zh-cn', 'en'] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = 'zh-cn';

/** A dictionary with the same keys as `T`, every value a string: a missing or extra key is a type error. */
export type Messages<T> = { readonly [K in keyof T]: string };

export function isLocale(value: unknown): value is Locale {
  return typeof value === 'string' && (LOCALES as readonly string[]).includes(value);
}

/** Replaces `{name}` placeholders with values; unknown placeholders stay as written. */
export function interpolate(template: string, values?: Record<string, string | number>): string {
  if (!values) return template;
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
}
