import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { token, user } from '../db/schema';
import { AppError } from '../http';
import type { Runtime } from '../runtime';
import { hashPassword, verifyPassword } from '../auth/password';
import { endOtherSessions, hashToken } from '../auth/sessions';
import { verifyCode, type Channel } from './codes';
import { findByAccount, takenFields, type UserRow } from './users';

const PASS_TTL = 600;
const now = (): number => Math.floor(Date.now() / 1000);

/** Resets a forgotten password with a code sent to the account's e-mail or mobile; every session ends. */
export async function retrievePassword(rt: Runtime, channel: Channel, account: string, code: string, password: string): Promise<void> {
  await verifyCode(rt, channel, account, 'user_retrieve_pwd', code);
  const row = await findByAccount(rt.db, account);
  if (!row) throw new AppError(channel === 'email' ? 'account.emailUnknown' : 'account.mobileUnknown');
  await rt.db.update(user).set({ password: await hashPassword(password), loginFailure: 0, updateTime: now() }).where(eq(user.id, row.id));
  await endOtherSessions(rt.db, row.id, null, rt.sessions);
}

/** Proves the member still owns the current e-mail or mobile: a short-lived pass token for changeBind. */
export async function verifyCurrent(rt: Runtime, member: UserRow, channel: Channel, code: string): Promise<string> {
  const current = channel === 'email' ? member.email : member.mobile;
  if (!current) throw new AppError('api.invalidInput');
  await verifyCode(rt, channel, current, channel === 'email' ? 'user_email_verify' : 'user_mobile_verify', code);
  const pass = randomUUID();
  await rt.db.insert(token).values({ token: hashToken(rt.tokenSecret, pass), type: `${channel}-pass`, userId: member.id, createTime: now(), expireTime: now() + PASS_TTL });
  return pass;
}

/**
 * Binds a new e-mail or mobile. Replacing a bound one needs the pass token from `verifyCurrent`;
 * binding the first one needs the account password. The new address proves itself with its code.
 */
export async function changeBind(rt: Runtime, member: UserRow, channel: Channel, value: string, code: string, passToken: string, password: string): Promise<void> {
  const current = channel === 'email' ? member.email : member.mobile;
  const passHash = passToken ? hashToken(rt.tokenSecret, passToken) : '';
  if (current) {
    const [pass] = passHash
      ? await rt.db.select().from(token).where(and(eq(token.token, passHash), eq(token.type, `${channel}-pass`), eq(token.userId, member.id)))
      : [];
    if (!pass || pass.expireTime <= now()) throw new AppError('account.codeExpired', { fieldKeys: { accountVerificationToken: 'account.codeExpired' } });
  } else if (!(await verifyPassword(password, member.password))) {
    throw new AppError('account.wrongOldPassword', { fieldKeys: { password: 'account.wrongOldPassword' } });
  }
  const taken = await takenFields(rt.db, channel === 'email' ? { email: value } : { mobile: value }, member.id);
  if (Object.keys(taken).length) throw new AppError(Object.values(taken)[0] as never, { fieldKeys: taken });
  await verifyCode(rt, channel, value, channel === 'email' ? 'user_change_email' : 'user_change_mobile', code);
  await rt.db.update(user).set({ [channel]: value, updateTime: now() }).where(eq(user.id, member.id));
  await rt.sessions.forgetUser(member.id);
  if (passHash) await rt.db.delete(token).where(eq(token.token, passHash));
}
