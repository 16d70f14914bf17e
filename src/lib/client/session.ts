// Logging out (spec §4): the server ends the session named by the HttpOnly cookies (the page holds no
// refresh token to post) and clears them on the site's parent domain; on code 1 the page reloads.
import { request } from './api';
import { forgetUser } from './stores/user';

export async function logout(): Promise<void> {
  await request('/api/user/logout', { data: {}, loading: true });
  forgetUser();
  location.reload();
}
