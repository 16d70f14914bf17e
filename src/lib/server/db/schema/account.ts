import { sql } from 'drizzle-orm';
import { bigint, check, index, integer, pgTable, serial, smallint, text, uniqueIndex, varchar } from 'drizzle-orm/pg-core';

/** Members. Money is in cents; times are unix seconds (BuildAdmin's wire shape). */
export const user = pgTable('user', {
  id: serial('id').primaryKey(),
  groupId: integer('group_id').notNull().default(1),
  username: varchar('username', { length: 32 }).notNull(),
  nickname: varchar('nickname', { length: 50 }).notNull().default(''),
  email: varchar('email', { length: 100 }).notNull().default(''),
  mobile: varchar('mobile', { length: 11 }).notNull().default(''),
  avatar: varchar('avatar', { length: 255 }).notNull().default(''),
  gender: smallint('gender').notNull().default(0),
  birthday: varchar('birthday', { length: 10 }),
  money: bigint('money', { mode: 'number' }).notNull().default(0),
  score: integer('score').notNull().default(0),
  /** The points this member was given for signing up (the site's `reg_score` at that moment). */
  regScore: integer('reg_score').notNull().default(0),
  lastLoginTime: bigint('last_login_time', { mode: 'number' }).notNull().default(0),
  lastLoginIp: varchar('last_login_ip', { length: 50 }).notNull().default(''),
  loginFailure: integer('login_failure').notNull().default(0),
  joinIp: varchar('join_ip', { length: 50 }).notNull().default(''),
  joinTime: bigint('join_time', { mode: 'number' }).notNull().default(0),
  motto: varchar('motto', { length: 255 }).notNull().default(''),
  /** The IANA zone the member reads times in; '' follows the site's `time_zone`. */
  timeZone: varchar('time_zone', { length: 64 }).notNull().default(''),
  /** `scrypt$N$r$p$salt$hash`: the parameters travel with the hash so they can be raised later. */
  password: varchar('password', { length: 255 }).notNull(),
  status: varchar('status', { length: 10 }).notNull().default('enable'),
  showOpenSourceStarTime: bigint('show_open_source_star_time', { mode: 'number' }).notNull().default(0),
  isUserOpenSourceStar: smallint('is_user_open_source_star').notNull().default(0),
  updateTime: bigint('update_time', { mode: 'number' }).notNull().default(0),
  createTime: bigint('create_time', { mode: 'number' }).notNull().default(0),
}, (t) => [
  uniqueIndex('user_username_uq').on(sql`lower(${t.username})`),
  uniqueIndex('user_email_uq').on(sql`lower(${t.email})`).where(sql`${t.email} <> ''`),
  uniqueIndex('user_mobile_uq').on(t.mobile).where(sql`${t.mobile} <> ''`),
  check('user_status_chk', sql`${t.status} in ('enable','disable')`),
  check('user_gender_chk', sql`${t.gender} in (0,1,2)`),
]);

/** Balance changes, append-only; `after` of the newest row always equals `user.money`. */
export const userMoneyLog = pgTable('user_money_log', {
  id: serial('id').primaryKey(),
  userId: integer('user_id').notNull(),
  money: bigint('money', { mode: 'number' }).notNull(),
  before: bigint('before', { mode: 'number' }).notNull(),
  after: bigint('after', { mode: 'number' }).notNull(),
  memo: varchar('memo', { length: 255 }).notNull(),
  /** What the entry says, as a message key and its values, rendered in the reader's language ('' : `memo` as written). */
  memoKey: varchar('memo_key', { length: 64 }).notNull().default(''),
  memoParams: text('memo_params').notNull().default('{}'),
  createTime: bigint('create_time', { mode: 'number' }).notNull(),
}, (t) => [index('user_money_log_user_idx').on(t.userId, t.id)]);

/** Points changes, append-only, like the money log. */
export const userScoreLog = pgTable('user_score_log', {
  id: serial('id').primaryKey(),
  userId: integer('user_id').notNull(),
  score: integer('score').notNull(),
  before: integer('before').notNull(),
  after: integer('after').notNull(),
  memo: varchar('memo', { length: 255 }).notNull(),
  memoKey: varchar('memo_key', { length: 64 }).notNull().default(''),
  memoParams: text('memo_params').notNull().default('{}'),
  createTime: bigint('create_time', { mode: 'number' }).notNull(),
}, (t) => [index('user_score_log_user_idx').on(t.userId, t.id)]);

/**
 * Every login attempt on a member's account: when, from which address (as TRUST_PROXY resolves it)
 * and browser, how (password, register, install) and the outcome (`ok` or the refusal). Kept
 * bounded per member: each insert prunes that member's rows past LOGIN_HISTORY_KEEP or older than
 * LOGIN_HISTORY_DAYS in the same statement.
 */
export const userLoginLog = pgTable('user_login_log', {
  id: serial('id').primaryKey(),
  userId: integer('user_id').notNull(),
  method: varchar('method', { length: 20 }).notNull().default('password'),
  result: varchar('result', { length: 20 }).notNull(),
  ip: varchar('ip', { length: 50 }).notNull().default(''),
  userAgent: varchar('user_agent', { length: 255 }).notNull().default(''),
  createTime: bigint('create_time', { mode: 'number' }).notNull(),
}, (t) => [
  index('user_login_log_user_idx').on(t.userId, t.id),
  check('user_login_log_result_chk', sql`${t.result} in ('ok','wrong_password','locked','disabled')`),
]);

/**
 * Access and refresh tokens, stored only as HMAC hashes. A login starts a `family`; refreshing
 * marks the old refresh token used and issues a new one in the same family, so presenting a used
 * one again (a stolen copy) revokes the whole family.
 */
export const token = pgTable('token', {
  token: varchar('token', { length: 64 }).primaryKey(),
  type: varchar('type', { length: 20 }).notNull(),
  userId: integer('user_id').notNull(),
  family: varchar('family', { length: 32 }).notNull().default(''),
  usedTime: bigint('used_time', { mode: 'number' }).notNull().default(0),
  createTime: bigint('create_time', { mode: 'number' }).notNull(),
  expireTime: bigint('expire_time', { mode: 'number' }).notNull(),
}, (t) => [index('token_user_idx').on(t.userId, t.type), index('token_family_idx').on(t.family)]);

/** Click captchas and e-mail/SMS codes: hashed answers with an expiry and an attempt counter. */
export const captcha = pgTable('captcha', {
  key: varchar('key', { length: 64 }).primaryKey(),
  code: varchar('code', { length: 128 }).notNull().default(''),
  captcha: text('captcha').notNull().default(''),
  attempts: smallint('attempts').notNull().default(0),
  createTime: bigint('create_time', { mode: 'number' }).notNull(),
  expireTime: bigint('expire_time', { mode: 'number' }).notNull(),
}, (t) => [index('captcha_expire_idx').on(t.expireTime)]);

/** Uploaded files, deduplicated by sha1 + topic + storage. */
export const attachment = pgTable('attachment', {
  id: serial('id').primaryKey(),
  topic: varchar('topic', { length: 20 }).notNull().default('default'),
  adminId: integer('admin_id').notNull().default(0),
  userId: integer('user_id').notNull().default(0),
  url: varchar('url', { length: 255 }).notNull(),
  width: integer('width').notNull().default(0),
  height: integer('height').notNull().default(0),
  name: varchar('name', { length: 120 }).notNull().default(''),
  size: bigint('size', { mode: 'number' }).notNull().default(0),
  mimetype: varchar('mimetype', { length: 100 }).notNull().default(''),
  quote: integer('quote').notNull().default(1),
  storage: varchar('storage', { length: 50 }).notNull().default('local'),
  sha1: varchar('sha1', { length: 40 }).notNull(),
  createTime: bigint('create_time', { mode: 'number' }).notNull(),
  lastUploadTime: bigint('last_upload_time', { mode: 'number' }).notNull(),
}, (t) => [index('attachment_sha1_idx').on(t.sha1, t.topic, t.storage)]);

/** Daily check-ins: one row per member and calendar day (site time zone); the unique key makes it concurrency-safe. */
export const userSignIn = pgTable('user_sign_in', {
  id: serial('id').primaryKey(),
  userId: integer('user_id').notNull(),
  day: varchar('day', { length: 10 }).notNull(),
  streak: integer('streak').notNull().default(1),
  score: integer('score').notNull().default(0),
  createTime: bigint('create_time', { mode: 'number' }).notNull(),
}, (t) => [uniqueIndex('user_sign_in_day_uq').on(t.userId, t.day)]);

/** Site notices members read in the member center. */
export const notice = pgTable('notice', {
  id: serial('id').primaryKey(),
  title: varchar('title', { length: 120 }).notNull(),
  content: text('content').notNull().default(''),
  status: smallint('status').notNull().default(1),
  createTime: bigint('create_time', { mode: 'number' }).notNull(),
}, (t) => [index('notice_status_idx').on(t.status, t.id)]);

/** Which member read which notice, and when. */
export const noticeRead = pgTable('notice_read', {
  userId: integer('user_id').notNull(),
  noticeId: integer('notice_id').notNull(),
  readTime: bigint('read_time', { mode: 'number' }).notNull(),
}, (t) => [uniqueIndex('notice_read_uq').on(t.userId, t.noticeId)]);

/** Invoice requests for amounts a member has paid; an operator issues or rejects them. */
export const invoice = pgTable('invoice', {
  id: serial('id').primaryKey(),
  userId: integer('user_id').notNull(),
  /** Cents. */
  amount: bigint('amount', { mode: 'number' }).notNull(),
  title: varchar('title', { length: 120 }).notNull(),
  taxId: varchar('tax_id', { length: 30 }).notNull().default(''),
  email: varchar('email', { length: 100 }).notNull(),
  status: varchar('status', { length: 10 }).notNull().default('pending'),
  remark: varchar('remark', { length: 255 }).notNull().default(''),
  /** The module order the invoice is for, when requested from the order list (0: none). */
  orderId: integer('order_id').notNull().default(0),
  createTime: bigint('create_time', { mode: 'number' }).notNull(),
  updateTime: bigint('update_time', { mode: 'number' }).notNull(),
}, (t) => [
  index('invoice_user_idx').on(t.userId, t.id),
  check('invoice_status_chk', sql`${t.status} in ('pending','issued','rejected')`),
]);
