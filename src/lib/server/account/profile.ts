import { and, eq } from 'drizzle-orm';
import type { z } from 'zod';
import { attachment, user } from '../db/schema';
import { AppError } from '../http';
import type { Runtime } from '../runtime';
import type { ProfileInput } from '../../shared/validation/account';
import { takenFields, type UserRow } from './users';
import { memberCard } from './cache-tags';

/** Saves the member's own profile; a new username must be free. */
export async function updateProfile(rt: Runtime, member: UserRow, input: z.output<typeof ProfileInput>): Promise<UserRow> {
  if (input.birthday && Number.isNaN(Date.parse(`${input.birthday}T00:00:00Z`))) {
    throw new AppError('api.invalidInput', { fieldKeys: { birthday: 'validation.birthday' } });
  }
  if (input.avatar && /^https?:\/\//.test(input.avatar) && !(await ownsCloudFile(rt, member.id, input.avatar))) {
    throw new AppError('api.invalidInput', { fieldKeys: { avatar: 'validation.avatar' } });
  }
  if (input.username && input.username.toLowerCase() !== member.username.toLowerCase()) {
    const taken = await takenFields(rt.db, { username: input.username }, member.id);
    if (taken.username) throw new AppError('account.usernameTaken', { fieldKeys: taken });
  }
  const [row] = await rt.db.update(user).set({
    nickname: input.nickname,
    gender: input.gender,
    birthday: input.birthday || null,
    motto: input.motto ?? member.motto,
    ...(input.time_zone !== undefined ? { timeZone: input.time_zone } : {}),
    ...(input.avatar !== undefined ? { avatar: input.avatar } : {}),
    ...(input.username ? { username: input.username } : {}),
    updateTime: Math.floor(Date.now() / 1000),
  }).where(eq(user.id, member.id)).returning();
  await rt.invalidation.touched(memberCard(member.id));
  await rt.sessions.forgetUser(member.id);
  return row!;
}

/** A cloud upload's URL (`…/uploads/<id>/…`) is an avatar only when this member uploaded that object. */
async function ownsCloudFile(rt: Runtime, userId: number, url: string): Promise<boolean> {
  let path: string;
  try { path = decodeURIComponent(new URL(url).pathname); } catch { return false; }
  const key = /\/(uploads\/\d+\/.+)$/.exec(path)?.[1];
  if (!key) return false;
  const [row] = await rt.db.select({ id: attachment.id }).from(attachment)
    .where(and(eq(attachment.url, `/${key}`), eq(attachment.userId, userId))).limit(1);
  return Boolean(row);
}
