// The member as the browser keeps it: the spec's persisted subset under `userInfo-v5`.
import { atom } from 'nanostores';
import { readUser, USER_INFO_KEY, TOKEN_KEY, type StoredUser } from '../auth-token';

export const $user = atom<StoredUser>(typeof window === 'undefined' ? {} : readUser());

/** After login or registration: keep the spec's persisted subset (§3), nothing more. */
export function rememberUser(info: Required<Pick<StoredUser, 'id' | 'username' | 'nickname' | 'avatar' | 'token'>> & { refresh_token?: string; show_open_source_star_time?: number }): void {
  const stored: StoredUser = {
    id: info.id, show_open_source_star_time: info.show_open_source_star_time ?? 0, username: info.username, nickname: info.nickname, avatar: info.avatar,
    token: info.token, refresh_token: info.refresh_token ?? '',
  };
  localStorage.setItem(USER_INFO_KEY, JSON.stringify(stored));
  localStorage.setItem(TOKEN_KEY, info.token);
  $user.set(stored);
}

export function forgetUser(): void {
  localStorage.removeItem(USER_INFO_KEY);
  localStorage.removeItem(TOKEN_KEY);
  $user.set({});
}

/** After a profile save: the new name and avatar, kept and shown by everything that shows the member. */
export function updateUser(patch: Pick<StoredUser, 'username' | 'nickname' | 'avatar'>): void {
  const stored = { ...$user.get(), ...patch };
  if (stored.id) localStorage.setItem(USER_INFO_KEY, JSON.stringify(stored));
  $user.set(stored);
}
