import { and, desc, eq, ne, sql } from 'drizzle-orm';
import type { Locale } from '../../i18n';
import type { Db } from '../db/client';
import { developer, module, user } from '../db/schema';
import { AppError } from '../http';
import { serialised } from '../db/serialise';
import { notify } from '../messages/notify';
import { displayNameSql } from '../account/users';
import { areaName, cities } from '../area/area';
import { maskMobile, type DeveloperApply } from '../../shared/validation/developer';
import { maskIdNumber } from '../../shared/validation/idcard';

export type DeveloperRow = typeof developer.$inferSelect;
export type DeveloperStatus = 'pending' | 'approved' | 'rejected';

const now = (): number => Math.floor(Date.now() / 1000);

/** The member's developer application, if any. */
export async function developerOf(db: Db, userId: number): Promise<DeveloperRow | null> {
  const [row] = await db.select().from(developer).where(eq(developer.userId, userId)).limit(1);
  return row ?? null;
}

/** Whether the member may use the developer pages and APIs. */
export async function isApprovedDeveloper(db: Db, userId: number): Promise<boolean> {
  return (await developerOf(db, userId))?.status === 'approved';
}

/**
 * Files the member's application, or replaces a pending or rejected one (which goes back to
 * pending). An approved developer cannot apply again: one statement, so two tabs cannot race it.
 */
export async function applyDeveloper(db: Db, userId: number, input: DeveloperApply): Promise<DeveloperRow> {
  // The schema checks the shape of the codes; only the division data knows whether they exist.
  if (!areaName(input.province)) throw new AppError('api.invalidInput', { fieldKeys: { province: 'developer.field.province' } });
  if (!cities(input.province).some((c) => c.value === input.city)) throw new AppError('api.invalidInput', { fieldKeys: { city: 'developer.field.city' } });
  const t = now();
  // One identity, one developer: an ID number on another member's pending or approved application
  // is refused. The transaction lock on the number makes two accounts applying at once take turns.
  return serialised(db, 'developer-id', input.id_number, async (tx) => {
    const [other] = await tx.select({ userId: developer.userId }).from(developer)
      .where(and(eq(developer.idNumber, input.id_number), ne(developer.userId, userId), ne(developer.status, 'rejected'))).limit(1);
    if (other) throw new AppError('developer.apply.idNumberTaken', { fieldKeys: { id_number: 'developer.apply.idNumberTaken' } });
    return upsertApplication(tx as unknown as Db, userId, input, t);
  });
}

async function upsertApplication(db: Db, userId: number, input: DeveloperApply, t: number): Promise<DeveloperRow> {
  const fields = {
    realName: input.real_name, idNumber: input.id_number, mobile: input.mobile, email: input.email,
    province: input.province, city: input.city, intro: input.intro,
  };
  const [row] = await db.insert(developer).values({ userId, ...fields, status: 'pending', createTime: t, updateTime: t })
    .onConflictDoUpdate({
      target: developer.userId,
      set: { ...fields, status: 'pending', reason: '', reviewerId: 0, reviewTime: 0, updateTime: t },
      setWhere: ne(developer.status, 'approved'),
    })
    .returning();
  if (!row) throw new AppError('developer.apply.approved');
  return row;
}

/** An operator approves or rejects a pending application (a rejection says why); the applicant is told. */
export async function decideDeveloper(db: Db, input: { userId: number; approve: boolean; reason?: string; reviewerId: number }): Promise<DeveloperRow> {
  const reason = (input.reason ?? '').trim().slice(0, 255);
  if (!input.approve && !reason) throw new AppError('developer.field.reason', { fieldKeys: { reason: 'developer.field.reason' } });
  return db.transaction(async (tx) => {
    const t = now();
    const [row] = await tx.update(developer)
      .set({ status: input.approve ? 'approved' : 'rejected', reason: input.approve ? '' : reason, reviewerId: input.reviewerId, reviewTime: t, updateTime: t })
      .where(and(eq(developer.userId, input.userId), eq(developer.status, 'pending')))
      .returning();
    if (!row) throw new AppError('developer.review.notPending', { status: 404 });
    // The title is a message key: the message center shows it in the reader's language.
    await notify(tx, [{
      type: 'market_developer', senderId: input.reviewerId, recipientId: row.userId,
      title: input.approve ? 'developer.notice.approved' : 'developer.notice.rejected', summary: row.reason, link: '/user/developer/verif',
    }]);
    return row;
  });
}

export interface DeveloperListItem extends DeveloperRow {
  username: string;
  displayName: string;
  provinceName: string;
  cityName: string;
}

/** Applications in one status, newest change first, 20 a page: the reviewers' list. */
export async function developerList(db: Db, query: { status: DeveloperStatus; page: number }, limit = 20, locale: Locale = 'zh-cn'): Promise<{ total: number; list: DeveloperListItem[] }> {
  const [{ total } = { total: 0 }] = await db.select({ total: sql<number>`count(*)::int` }).from(developer).where(eq(developer.status, query.status));
  const rows = await db.select({ d: developer, username: user.username, displayName: displayNameSql })
    .from(developer).innerJoin(user, eq(user.id, developer.userId))
    .where(eq(developer.status, query.status))
    .orderBy(desc(developer.updateTime), desc(developer.userId))
    .limit(limit).offset((Math.max(1, query.page) - 1) * limit);
  return { total, list: rows.map((r) => ({ ...r.d, username: r.username, displayName: r.displayName, provinceName: areaName(r.d.province, locale) ?? r.d.province, cityName: areaName(r.d.city, locale) ?? r.d.city })) };
}

export interface DeveloperCard {
  userId: number;
  name: string;
  avatar: string;
  /** When the member joined the site (seconds). */
  joinTime: number;
  modules: number;
  downloads: number;
}

/** What a module's detail page shows about its developer; null when the member is gone. */
export async function developerCard(db: Db, userId: number): Promise<DeveloperCard | null> {
  const [[row], [stats]] = await Promise.all([
    db.select({ userId: user.id, name: displayNameSql, avatar: user.avatar, joinTime: user.joinTime, createTime: user.createTime })
      .from(user).where(eq(user.id, userId)).limit(1),
    db.select({ modules: sql<number>`count(*)::int`, downloads: sql<number>`coalesce(sum(${module.downloads}), 0)::int` })
      .from(module).where(and(eq(module.developerId, userId), eq(module.status, 'published'))),
  ]);
  if (!row) return null;
  return {
    userId: row.userId, name: row.name, avatar: row.avatar, joinTime: row.joinTime || row.createTime,
    modules: stats?.modules ?? 0, downloads: stats?.downloads ?? 0,
  };
}

export interface MaskedApplication {
  real_name: string;
  id_number: string;
  mobile: string;
  email: string;
  province: string;
  city: string;
  province_name: string;
  city_name: string;
  intro: string;
  status: DeveloperStatus;
  reason: string;
  create_time: number;
  update_time: number;
  review_time: number;
}

/** The application as its member sees it: ID number and mobile masked. */
export function maskedApplication(row: DeveloperRow, locale: Locale = 'zh-cn'): MaskedApplication {
  return {
    real_name: row.realName, id_number: maskIdNumber(row.idNumber), mobile: maskMobile(row.mobile), email: row.email,
    province: row.province, city: row.city, province_name: areaName(row.province, locale) ?? row.province, city_name: areaName(row.city, locale) ?? row.city, intro: row.intro, status: row.status as DeveloperStatus, reason: row.reason,
    create_time: row.createTime, update_time: row.updateTime, review_time: row.reviewTime,
  };
}
