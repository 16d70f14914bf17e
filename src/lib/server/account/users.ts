import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { user } from '../db/schema';
import { AppError } from '../http';
import type { Runtime } from '../runtime';
import { accountKind } from '../../shared/validation/account';
import { DUMMY_HASH, hashPassword, needsRehash, verifyPassword } from '../auth/password';
import { endOtherSessions, startSession, type IssuedSession } from '../auth/sessions';
import { recordLogin, type LoginAttempt } from './login-history';
import { displayNameSql, type UserRow } from '../db/rows';
import { recordModuleEvent } from '../modules/events';

// Beside the schema since they are shared (db/rows.ts); still exported here for this area's callers.
export { displayNameSql, type UserRow };

/** After this many failed logins an account (known or not) is refused for LOCK_SECONDS. */
export const LOGIN_RETRY = 10;
export const LOCK_SECONDS = 3600;

const now = (): number => Math.floor(Date.now() / 1000);

/** Cents → '12.34' (the wire shape of money). */
export function formatMoney(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** The member as the client sees it (reference §2 userInfo), tokens included when just issued. */
export function toUserInfo(row: UserRow, session?: Pick<IssuedSession, 'token' | 'refreshToken'>) {
  return {
    id: row.id, username: row.username, nickname: row.nickname, email: row.email, mobile: row.mobile,
    avatar: row.avatar, gender: row.gender, birthday: row.birthday, money: formatMoney(row.money), score: row.score, reg_score: row.regScore,
    last_login_time: row.lastLoginTime, last_login_ip: row.lastLoginIp, join_time: row.joinTime, motto: row.motto,
    show_open_source_star_time: row.showOpenSourceStarTime, is_user_open_source_star: row.isUserOpenSourceStar,
    token: session?.token ?? '', refresh_token: session?.refreshToken ?? '',
  };
}
export type UserInfo = ReturnType<typeof toUserInfo>;

export async function findByAccount(db: Db, account: string): Promise<UserRow | null> {
  const kind = accountKind(account);
  if (!kind) return null;
  const where = kind === 'mobile' ? eq(user.mobile, account)
    : kind === 'email' ? sql`lower(${user.email}) = lower(${account})`
    : sql`lower(${user.username}) = lower(${account})`;
  const [row] = await db.select().from(user).where(where).limit(1);
  return row ?? null;
}

export async function findById(db: Db, id: number): Promise<UserRow | null> {
  const [row] = await db.select().from(user).where(eq(user.id, id));
  return row ?? null;
}

/** Which of username, e-mail and mobile are already used, as field errors. */
export async function takenFields(db: Db, fields: { username?: string; email?: string; mobile?: string }, exceptId = 0): Promise<Record<string, string>> {
  const taken: Record<string, string> = {};
  const check = async (name: 'username' | 'email' | 'mobile', value: string | undefined, key: string): Promise<void> => {
    if (!value) return;
    const other = await findByAccount(db, value);
    if (other && other.id !== exceptId && (name !== 'username' || other.username.toLowerCase() === value.toLowerCase())) taken[name] = key;
  };
  await check('username', fields.username, 'account.usernameTaken');
  await check('email', fields.email, 'account.emailTaken');
  await check('mobile', fields.mobile, 'account.mobileTaken');
  return taken;
}

export interface NewUser {
  username: string;
  password: string;
  email?: string;
  mobile?: string;
  nickname?: string;
  ip?: string;
  groupId?: number;
  /** Signing up logs the member in: their last login is this moment, from `ip`. */
  loggedIn?: boolean;
  /** The points given for signing up, recorded as `reg_score` (the ledger entry is the caller's). */
  regScore?: number;
}

/** Creates a member; a name, e-mail or mobile already in use is a field error, also under a race. */
export async function createUser(db: Db, input: NewUser): Promise<UserRow> {
  const taken = await takenFields(db, input);
  if (Object.keys(taken).length) throw takenError(taken);
  const t = now();
  try {
    const [row] = await db.insert(user).values({
      username: input.username, nickname: input.nickname || input.username, email: input.email ?? '', mobile: input.mobile ?? '',
      password: await hashPassword(input.password), groupId: input.groupId ?? 1, joinIp: input.ip ?? '', joinTime: t, createTime: t, updateTime: t, regScore: input.regScore ?? 0,
      ...(input.loggedIn ? { lastLoginTime: t, lastLoginIp: input.ip ?? '' } : {}),
    }).returning();
    await recordModuleEvent(db, 'member.joined', { id: row!.id, username: row!.username });
    return row!;
  } catch (err) {
    if (isUniqueViolation(err)) {
      throw takenError(await takenFields(db, input));
    }
    throw err;
  }
}

/** PostgreSQL's unique_violation, on the error itself or (drizzle wraps driver errors) its cause. */
export function isUniqueViolation(err: unknown): boolean {
  for (let e: unknown = err; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: unknown }).code === '23505') return true;
  }
  return false;
}

function takenError(taken: Record<string, string>): AppError {
  const first = Object.values(taken)[0] ?? 'account.usernameTaken';
  return new AppError(first as never, { fieldKeys: taken });
}

/**
 * Checks an account and password. Unknown accounts and wrong passwords get the same answer after
 * the same work; ten failures lock the account name for an hour, known or not.
 */
export async function login(rt: Runtime, input: { account: string; password: string; keep: boolean; ip: string; userAgent?: string }): Promise<{ row: UserRow; session: IssuedSession }> {
  const perIp = await rt.limiter.hit(`login-ip:${input.ip}`, rt.config.loginIpLimit, 900);
  if (!perIp.allowed) throw new AppError('account.ipLimited', { status: 429, headers: { 'retry-after': String(perIp.retryAfter) }, values: { minutes: Math.ceil(perIp.retryAfter / 60) } });
  const row = await findByAccount(rt.db, input.account);
  // A known member's attempts go to their login history (unknown names have no one to show them to).
  const attempt = (result: LoginAttempt['result']): LoginAttempt => ({ userId: row!.id, method: 'password', result, ip: input.ip, userAgent: input.userAgent ?? '' });
  // The lock belongs to the account, whichever of its name, e-mail or mobile is typed (the typed
  // text for unknown names). The try is counted before the password is checked, in one atomic
  // increment, so parallel guesses cannot all slip under the limit.
  const failKey = row ? `login-fail:user:${row.id}` : `login-fail:name:${input.account.toLowerCase()}`;
  const tries = await rt.limiter.hit(failKey, LOGIN_RETRY, LOCK_SECONDS);
  if (!tries.allowed) {
    if (row) await recordLogin(rt.db, attempt('locked'));
    throw new AppError('account.locked', { values: { minutes: Math.ceil(LOCK_SECONDS / 60) } });
  }
  const ok = await verifyPassword(input.password, row?.password ?? DUMMY_HASH);
  if (!row || !ok) {
    if (row) {
      await Promise.all([
        rt.db.update(user).set({ loginFailure: sql`${user.loginFailure} + 1`, lastLoginTime: now(), lastLoginIp: input.ip }).where(eq(user.id, row.id)),
        recordLogin(rt.db, attempt('wrong_password')),
      ]);
    }
    throw new AppError('account.wrongCredentials');
  }
  if (row.status !== 'enable') {
    await recordLogin(rt.db, attempt('disabled'));
    throw new AppError('account.disabled');
  }
  await rt.limiter.reset(failKey);
  const update: Partial<typeof user.$inferInsert> = { loginFailure: 0, lastLoginTime: now(), lastLoginIp: input.ip };
  if (needsRehash(row.password)) update.password = await hashPassword(input.password);
  // One transaction, one commit: on PGlite every commit is a disk sync, the largest cost of a login
  // after the KDF. The history row rides in it: one more statement, no more commits.
  return rt.db.transaction(async (tx) => {
    const [fresh] = await tx.update(user).set(update).where(eq(user.id, row.id)).returning();
    await recordLogin(tx as unknown as Db, attempt('ok'));
    return { row: fresh ?? row, session: await startSession(tx as unknown as Db, rt.tokenSecret, row.id, input.keep) };
  });
}

/** Changes the password and logs the member out of every other session. */
export async function changePassword(rt: Runtime, userId: number, family: string | null, oldPassword: string, newPassword: string): Promise<void> {
  const row = await findById(rt.db, userId);
  if (!row || !(await verifyPassword(oldPassword, row.password))) throw new AppError('account.wrongOldPassword', { fieldKeys: { oldPassword: 'account.wrongOldPassword' } });
  await rt.db.update(user).set({ password: await hashPassword(newPassword), updateTime: now() }).where(and(eq(user.id, userId)));
  await endOtherSessions(rt.db, userId, family, rt.sessions);
}
