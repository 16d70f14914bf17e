// What the console does to a member: find, look at, change group, block, adjust money and points,
// reset the password. Every change ends cached sessions so it takes effect on the next request.
import { and, desc, eq, ilike, or, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/client';
import { token, user, userGroup, userMoneyLog, userScoreLog } from '../db/schema';
import type { Runtime } from '../runtime';
import { AppError } from '../http';
import { adjustMoney, adjustScore } from '../account/ledger';
import { findById, formatMoney, type UserRow } from '../account/users';
import { endOtherSessions } from '../auth/sessions';
import { loginHistory, type LoginHistoryItem } from '../account/login-history';
import { memberCard } from '../account/cache-tags';

export const MEMBERS_PER_PAGE = 20;

export interface MemberItem { id: number; username: string; nickname: string; email: string; mobile: string; groupId: number; groupName: string; groupNameEn: string; status: string; money: string; score: number; joinTime: number; lastLoginTime: number }

export async function searchMembers(db: Db, filter: { q?: string; group?: number; page: number }): Promise<{ list: MemberItem[]; total: number }> {
  const where: SQL[] = [];
  if (filter.q) {
    const like = `%${filter.q.replace(/[%_\\]/g, (c) => `\\${c}`)}%`;
    const byId = /^\d{1,9}$/.test(filter.q) ? [eq(user.id, Number(filter.q))] : [];
    where.push(or(ilike(user.username, like), ilike(user.nickname, like), ilike(user.email, like), ilike(user.mobile, like), ...byId)!);
  }
  if (filter.group) where.push(eq(user.groupId, filter.group));
  const cond = where.length ? and(...where) : undefined;
  const [rows, [count]] = await Promise.all([
    db.select({ u: user, groupName: userGroup.name, groupNameEn: userGroup.nameEn }).from(user).leftJoin(userGroup, eq(userGroup.id, user.groupId)).where(cond)
      .orderBy(desc(user.id)).limit(MEMBERS_PER_PAGE).offset((filter.page - 1) * MEMBERS_PER_PAGE),
    db.select({ n: sql<number>`count(*)::int` }).from(user).where(cond),
  ]);
  return {
    total: count?.n ?? 0,
    list: rows.map(({ u, groupName, groupNameEn }) => ({
      id: u.id, username: u.username, nickname: u.nickname, email: u.email, mobile: u.mobile, groupId: u.groupId, groupName: groupName ?? '', groupNameEn: groupNameEn ?? '',
      status: u.status, money: formatMoney(u.money), score: u.score, joinTime: u.joinTime, lastLoginTime: u.lastLoginTime,
    })),
  };
}

export interface MemberDetail {
  member: MemberItem & { motto: string; joinIp: string; lastLoginIp: string; loginFailure: number };
  money: { money: string; before: string; after: string; memo: string; memoKey: string; memoParams: string; createTime: number }[];
  score: { score: number; before: number; after: number; memo: string; memoKey: string; memoParams: string; createTime: number }[];
  sessions: { family: string; createTime: number; expireTime: number }[];
  logins: { list: LoginHistoryItem[]; total: number; page: number; pages: number };
}

export async function memberDetail(db: Db, id: number, loginPage = 1): Promise<MemberDetail | null> {
  const [row] = await db.select({ u: user, groupName: userGroup.name, groupNameEn: userGroup.nameEn }).from(user).leftJoin(userGroup, eq(userGroup.id, user.groupId)).where(eq(user.id, id));
  if (!row) return null;
  const u = row.u;
  const now = Math.floor(Date.now() / 1000);
  const [money, score, sessions, logins] = await Promise.all([
    db.select().from(userMoneyLog).where(eq(userMoneyLog.userId, id)).orderBy(desc(userMoneyLog.id)).limit(20),
    db.select().from(userScoreLog).where(eq(userScoreLog.userId, id)).orderBy(desc(userScoreLog.id)).limit(20),
    db.select({ family: token.family, createTime: sql<number>`min(${token.createTime})::bigint`, expireTime: sql<number>`max(${token.expireTime})::bigint` })
      .from(token).where(and(eq(token.userId, id), sql`${token.type} in ('user', 'user-refresh')`, sql`${token.expireTime} > ${now}`))
      .groupBy(token.family).orderBy(desc(sql`min(${token.createTime})`)).limit(20),
    loginHistory(db, id, loginPage),
  ]);
  return {
    member: {
      id: u.id, username: u.username, nickname: u.nickname, email: u.email, mobile: u.mobile, groupId: u.groupId, groupName: row.groupName ?? '', groupNameEn: row.groupNameEn ?? '',
      status: u.status, money: formatMoney(u.money), score: u.score, joinTime: u.joinTime, lastLoginTime: u.lastLoginTime,
      motto: u.motto, joinIp: u.joinIp, lastLoginIp: u.lastLoginIp, loginFailure: u.loginFailure,
    },
    money: money.map((m) => ({ money: formatMoney(m.money), before: formatMoney(m.before), after: formatMoney(m.after), memo: m.memo, memoKey: m.memoKey, memoParams: m.memoParams, createTime: m.createTime })),
    score: score.map((s) => ({ score: s.score, before: s.before, after: s.after, memo: s.memo, memoKey: s.memoKey, memoParams: s.memoParams, createTime: s.createTime })),
    sessions: sessions.map((s) => ({ family: s.family, createTime: Number(s.createTime), expireTime: Number(s.expireTime) })),
    logins,
  };
}

async function memberOr404(db: Db, id: number): Promise<UserRow> {
  const row = await findById(db, id);
  if (!row) throw new AppError('admin.member.notFound', { status: 404 });
  return row;
}

/** Moves a member to a group; their rules change on the next request. */
export async function setMemberGroup(rt: Runtime, id: number, groupId: number): Promise<{ before: number; after: number }> {
  const row = await memberOr404(rt.db, id);
  const [group] = await rt.db.select({ id: userGroup.id }).from(userGroup).where(eq(userGroup.id, groupId));
  if (!group) throw new AppError('admin.member.noGroup', { fieldKeys: { group_id: 'admin.member.noGroup' } });
  await rt.db.update(user).set({ groupId, updateTime: Math.floor(Date.now() / 1000) }).where(eq(user.id, id));
  await rt.sessions.forgetUser(id);
  await rt.invalidation.touched(memberCard(id));
  return { before: row.groupId, after: groupId };
}

/** Blocks (ending every session) or unblocks a member. */
export async function setMemberStatus(rt: Runtime, id: number, status: 'enable' | 'disable'): Promise<{ before: string; after: string }> {
  const row = await memberOr404(rt.db, id);
  await rt.db.update(user).set({ status, updateTime: Math.floor(Date.now() / 1000) }).where(eq(user.id, id));
  if (status === 'disable') await endOtherSessions(rt.db, id, null, rt.sessions);
  await rt.sessions.forgetUser(id);
  await rt.invalidation.touched(memberCard(id));
  return { before: row.status, after: status };
}

/** Adds or takes balance (yuan, two decimals) or points through the ledger, with a memo. */
export async function adjustMember(rt: Runtime, id: number, kind: 'money' | 'score', amount: string, memo: string): Promise<{ before: string; after: string }> {
  await memberOr404(rt.db, id);
  try {
    const result = kind === 'money'
      ? await adjustMoney(rt.db, id, Math.round(Number(amount) * 100), memo).then((r) => ({ before: formatMoney(r.before), after: formatMoney(r.after) }))
      : await adjustScore(rt.db, id, Number(amount), memo).then((r) => ({ before: String(r.before), after: String(r.after) }));
    await rt.sessions.forgetUser(id);
    return result;
  } catch (err) {
    // The ledger refuses (api.invalidInput) a change that would leave a negative balance.
    if (err instanceof AppError && err.key !== 'api.invalidInput') throw err;
    throw new AppError('admin.member.negative', { fieldKeys: { amount: 'admin.member.negative' } });
  }
}

export async function groupList(db: Db): Promise<{ id: number; name: string; nameEn: string; rules: string; status: number }[]> {
  return db.select({ id: userGroup.id, name: userGroup.name, nameEn: userGroup.nameEn, rules: userGroup.rules, status: userGroup.status }).from(userGroup).orderBy(userGroup.id);
}
