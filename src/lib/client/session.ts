// Logging out (spec §4): post the refresh token; on code 1 clear the tokens and reload.
import { request } from './api';
import { getRefreshToken } from './auth-token';
import { forgetUser } from './stores/user';

export async function logout(): Promise<void> {
  await request('/api/user/logout', { data: { refresh_token: getRefreshToken() }, loading: true });
  forgetUser();
  location.reload();
}
