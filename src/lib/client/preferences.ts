// Language and theme switches. Both are cookies so the server renders the right language and
// theme on the first byte (no flash); the theme is mirrored in localStorage (spec §3 key).
export const LANG_COOKIE = 'ba-lang';
export const THEME_KEY = 'ba-is-dark';
const YEAR = 60 * 60 * 24 * 365;

function writeCookie(name: string, value: string): void {
  const domain = document.documentElement.dataset.cookieDomain;
  const secure = location.protocol === 'https:' ? '; secure' : '';
  document.cookie = `${name}=${encodeURIComponent(value)}; path=/; max-age=${YEAR}; samesite=lax${domain ? `; domain=.${domain}` : ''}${secure}`;
}

/** Switching the language reloads the page (spec §4) so everything is rendered in it. */
export function setLanguage(locale: string): void {
  writeCookie(LANG_COOKIE, locale);
  location.reload();
}

export function isDark(): boolean {
  return document.documentElement.classList.contains('dark');
}

export function setDark(dark: boolean): void {
  document.documentElement.classList.toggle('dark', dark);
  document.documentElement.dataset.theme = dark ? 'dark' : 'light';
  writeCookie(THEME_KEY, String(dark));
  try { localStorage.setItem(THEME_KEY, String(dark)); } catch { /* private mode */ }
}
