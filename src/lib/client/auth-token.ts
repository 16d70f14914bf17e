// Where the browser keeps the member's tokens (spec §3 storage keys). The members issue writes
// them at login; the request layer only reads, refreshes and clears them.
export const USER_INFO_KEY = 'userInfo-v5';
export const TOKEN_KEY = 'ba-user-token';

/** The spec's persisted subset (§3): id, show_open_source_star_time, username, nickname, avatar, tokens. */
export interface StoredUser {
  id?: number;
  show_open_source_star_time?: number;
  username?: string;
  nickname?: string;
  avatar?: string;
  token?: string;
  refresh_token?: string;
}

function storage(): Storage | null {
  try { return typeof localStorage === 'undefined' ? null : localStorage; } catch { return null; }
}

export function readUser(): StoredUser {
  try { return JSON.parse(storage()?.getItem(USER_INFO_KEY) ?? '{}') as StoredUser; } catch { return {}; }
}

export function getToken(): string {
  return readUser().token || storage()?.getItem(TOKEN_KEY) || '';
}

export function getRefreshToken(): string {
  return readUser().refresh_token ?? '';
}

/** After a refresh: the new access token and, since refresh tokens rotate, the new refresh token. */
export function setToken(token: string, refreshToken?: string): void {
  const user = readUser();
  if (user.id) storage()?.setItem(USER_INFO_KEY, JSON.stringify({ ...user, token, ...(refreshToken ? { refresh_token: refreshToken } : {}) }));
  storage()?.setItem(TOKEN_KEY, token);
}

export function clearToken(): void {
  const user = readUser();
  if (user.id) storage()?.setItem(USER_INFO_KEY, JSON.stringify({ ...user, token: '', refresh_token: '' }));
  storage()?.removeItem(TOKEN_KEY);
}
