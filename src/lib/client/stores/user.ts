// The member as the browser knows them: the user-info cookie (spec §3 persisted subset, no tokens).
import { atom } from 'nanostores';
import { readUser, type StoredUser } from '../auth-token';

export const $user = atom<StoredUser>(typeof window === 'undefined' ? {} : readUser());

/** After login or registration: the reply set the cookies; the page keeps the subset, never a token. */
export function rememberUser(info: Required<Pick<StoredUser, 'id' | 'username' | 'nickname' | 'avatar'>> & { show_open_source_star_time?: number }): void {
  $user.set({ id: info.id, show_open_source_star_time: info.show_open_source_star_time ?? 0, username: info.username, nickname: info.nickname, avatar: info.avatar });
}

/** After logout: the reply cleared the cookies on every subdomain. */
export function forgetUser(): void {
  $user.set({});
}

/** After a profile save: the new name and avatar, shown by everything that shows the member (the next page load rewrites the cookie). */
export function updateUser(patch: Pick<StoredUser, 'username' | 'nickname' | 'avatar'>): void {
  $user.set({ ...$user.get(), ...patch });
}
