// What the browser knows of the member's session (spec §3, §9): the user-info cookie `userInfo-v5`,
// which the server sets on the site's parent domain (so ask./doc./modules. share it) with what is
// not secret. The tokens live in HttpOnly cookies no script reads; requests carry them by themselves.
export const USER_INFO_KEY = 'userInfo-v5';
/** Where older releases kept the access token in localStorage (cleared on load, see clearLegacyTokens). */
const LEGACY_TOKEN_KEY = 'ba-user-token';

/** The spec's persisted subset (§3) without the tokens: id, show_open_source_star_time, username, nickname, avatar. */
export interface StoredUser {
  id?: number;
  show_open_source_star_time?: number;
  username?: string;
  nickname?: string;
  avatar?: string;
}

/** The user-info cookie's value, or {} for a visitor (or a cookie that does not parse). */
export function readUser(cookie: string = typeof document === 'undefined' ? '' : document.cookie): StoredUser {
  for (const part of cookie.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== USER_INFO_KEY) continue;
    try {
      const value = JSON.parse(decodeURIComponent(part.slice(eq + 1).trim())) as StoredUser | null;
      return value && typeof value === 'object' && typeof value.id === 'number' ? value : {};
    } catch {
      return {};
    }
  }
  return {};
}

/**
 * Older releases kept the tokens in localStorage, where any script could read them. The same login
 * also set the HttpOnly cookies the site now uses alone, so the session goes on without them: they
 * are removed on the first page load.
 */
export function clearLegacyTokens(): void {
  try {
    if (typeof localStorage === 'undefined') return;
    localStorage.removeItem(LEGACY_TOKEN_KEY);
    localStorage.removeItem(USER_INFO_KEY);
  } catch { /* storage blocked: nothing was kept there */ }
}
