// First start: while no administrator exists the server prints a one-time link to /install, where
// the operator creates the administrator and names the site. Password-reset links use the same tokens.
import { eq } from 'drizzle-orm';
import type { z } from 'zod';
import { user } from '../db/schema';
import { ADMIN_GROUP } from '../site/seed';
import { AppError } from '../http';
import type { Runtime } from '../runtime';
import { createUser, findById, type UserRow } from '../account/users';
import { hashPassword } from '../auth/password';
import { endOtherSessions } from '../auth/sessions';
import { consumeToken, findToken, hasAdministrator, issueToken } from './tokens';
import { recordAction, type Actor } from './audit';
import type { InstallInput } from '../../shared/validation/admin';

/**
 * At start: when the site has no administrator, a new setup token (earlier ones stop working);
 * null when there is one already.
 */
export async function setupTokenAtStart(rt: Runtime): Promise<string | null> {
  if (await hasAdministrator(rt.db)) return null;
  return issueToken(rt.db, rt.tokenSecret, 'install');
}

/** Whether /install may be shown for this token: no administrator yet and the token is valid. */
export async function installAllowed(rt: Runtime, token: string): Promise<boolean> {
  if (await hasAdministrator(rt.db)) return false;
  return (await findToken(rt.db, rt.tokenSecret, 'install', token)) !== null;
}

/** Creates the first administrator and names the site; the token is used up. */
export async function completeInstall(rt: Runtime, input: z.output<typeof InstallInput>, ip: string): Promise<UserRow> {
  const found = await findToken(rt.db, rt.tokenSecret, 'install', input.token);
  if (!found || (await hasAdministrator(rt.db))) throw new AppError('admin.install.invalid', { status: 404 });
  // Checked before the token is spent: a taken e-mail must not burn the link.
  const row = await createUser(rt.db, { username: input.username, email: input.email, password: input.password, groupId: ADMIN_GROUP, ip });
  if (!(await consumeToken(rt.db, found.id))) {
    // Another browser used the link at the same moment: undo this account.
    await rt.db.delete(user).where(eq(user.id, row.id));
    throw new AppError('admin.install.invalid', { status: 404 });
  }
  const before = await rt.site.get('site_name');
  await rt.site.set('site_name', input.site_name);
  const actor: Actor = { id: row.id, username: row.username, ip };
  await recordAction(rt.db, actor, 'install', row.username, { site_name: before }, { site_name: input.site_name, administrator: row.username });
  return row;
}

/** A one-time password-reset link path for a member (valid a day). */
export async function resetLinkPath(rt: Runtime, userId: number): Promise<string> {
  return `/reset-password?token=${await issueToken(rt.db, rt.tokenSecret, 'reset', userId)}`;
}

/** Sets a new password from a reset link; every session of the member ends. */
export async function resetPassword(rt: Runtime, token: string, password: string, ip: string): Promise<UserRow> {
  const found = await findToken(rt.db, rt.tokenSecret, 'reset', token);
  const row = found ? await findById(rt.db, found.userId) : null;
  if (!found || !row || !(await consumeToken(rt.db, found.id))) throw new AppError('admin.reset.invalid', { fieldKeys: { password: 'admin.reset.invalid' } });
  await rt.db.update(user).set({ password: await hashPassword(password), loginFailure: 0, updateTime: Math.floor(Date.now() / 1000) }).where(eq(user.id, row.id));
  await endOtherSessions(rt.db, row.id, null, rt.sessions);
  await rt.sessions.forgetUser(row.id);
  await recordAction(rt.db, { id: row.id, username: row.username, ip }, 'user:reset-password', row.username, '', 'password set from a reset link');
  return row;
}
