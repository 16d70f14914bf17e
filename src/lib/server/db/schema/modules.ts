import { sql } from 'drizzle-orm';
import { bigint, check, customType, doublePrecision, index, integer, jsonb, pgTable, serial, smallint, text, uniqueIndex, varchar } from 'drizzle-orm/pg-core';

/** Built in JavaScript as a literal (lib/server/search/text.ts), as for forum posts. */
const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });

/**
 * The wanted state of each module installed on this site (the editor, math, …): which version,
 * enabled or not. Every instance reconciles to it (at start, on the bus's `modules` message, after
 * the bus reconnects); a module with a package runs from the package whose sha256 is pinned here.
 */
export const moduleInstall = pgTable('module_install', {
  uid: varchar('uid', { length: 40 }).primaryKey(),
  version: varchar('version', { length: 20 }).notNull(),
  installedBy: integer('installed_by').notNull().default(0),
  createTime: bigint('create_time', { mode: 'number' }).notNull(),
  /** 1: runs; 0: installed but disabled (by an administrator, safe mode or a failed activation). */
  enabled: smallint('enabled').notNull().default(1),
  /** The sha256 of the installed package, checked when an instance unpacks it ('' : no package). */
  sha256: varchar('sha256', { length: 64 }).notNull().default(''),
  /** The version before the last upgrade, for a rollback ('' : none). */
  previousVersion: varchar('previous_version', { length: 20 }).notNull().default(''),
  /** Why the module is disabled or failed, shown to administrators ('' : nothing to report). */
  reason: varchar('reason', { length: 255 }).notNull().default(''),
  updateTime: bigint('update_time', { mode: 'number' }).notNull().default(0),
});

/**
 * The bytes of the packages this site installed, by sha256 (base64): the shared store every instance
 * unpacks from, whatever the upload storage is (a package on one host's disk is not shared).
 * Kept while the module is installed (its current and previous version), removed on uninstall.
 */
export const modulePackage = pgTable('module_package', {
  sha256: varchar('sha256', { length: 64 }).primaryKey(),
  uid: varchar('uid', { length: 40 }).notNull(),
  version: varchar('version', { length: 20 }).notNull(),
  data: text('data').notNull(),
  size: integer('size').notNull(),
  createTime: bigint('create_time', { mode: 'number' }).notNull(),
}, (t) => [index('module_package_uid_idx').on(t.uid)]);

/** A member's application to sell modules, and the operator's decision on it (one per member). */
export const developer = pgTable('developer', {
  userId: integer('user_id').primaryKey(),
  realName: varchar('real_name', { length: 30 }).notNull(),
  /** Resident identity card number, checksum-validated; shown to the member masked. */
  idNumber: varchar('id_number', { length: 18 }).notNull(),
  mobile: varchar('mobile', { length: 11 }).notNull(),
  email: varchar('email', { length: 100 }).notNull(),
  /** Administrative-division codes from /api/ajax/area. */
  province: varchar('province', { length: 12 }).notNull(),
  city: varchar('city', { length: 12 }).notNull().default(''),
  intro: text('intro').notNull().default(''),
  status: varchar('status', { length: 10 }).notNull().default('pending'),
  reason: varchar('reason', { length: 255 }).notNull().default(''),
  reviewerId: integer('reviewer_id').notNull().default(0),
  reviewTime: bigint('review_time', { mode: 'number' }).notNull().default(0),
  createTime: bigint('create_time', { mode: 'number' }).notNull(),
  updateTime: bigint('update_time', { mode: 'number' }).notNull(),
}, (t) => [
  check('developer_status_chk', sql`${t.status} in ('pending','approved','rejected')`),
  index('developer_status_idx').on(t.status, t.updateTime),
]);

/** A module in the market. Prices: `price` in cents and/or `scorePrice` in points; both 0 = free. */
export const module = pgTable('module', {
  id: serial('id').primaryKey(),
  /** Lower-case letters, digits and dashes; used in URLs and for site installs. */
  uid: varchar('uid', { length: 40 }).notNull().unique(),
  developerId: integer('developer_id').notNull(),
  name: varchar('name', { length: 60 }).notNull(),
  summary: varchar('summary', { length: 150 }).notNull().default(''),
  description: text('description').notNull().default(''),
  /** Rendered once per edit with the site's markdown pipeline. */
  descriptionHtml: text('description_html').notNull().default(''),
  /**
   * The same in English, written by the developer; '' falls back to the fields above. English
   * readers see these, Chinese readers the fields above (which fall back to these when empty).
   */
  nameEn: varchar('name_en', { length: 60 }).notNull().default(''),
  summaryEn: varchar('summary_en', { length: 150 }).notNull().default(''),
  descriptionEn: text('description_en').notNull().default(''),
  descriptionEnHtml: text('description_en_html').notNull().default(''),
  cover: varchar('cover', { length: 255 }).notNull().default(''),
  screenshots: jsonb('screenshots').$type<string[]>().notNull().default(sql`'[]'::jsonb`),
  category: varchar('category', { length: 20 }).notNull(),
  tags: text('tags').array().notNull().default(sql`'{}'::text[]`),
  price: integer('price').notNull().default(0),
  scorePrice: integer('score_price').notNull().default(0),
  /** 1 = a site module this codebase can install (the editor); 0 = a package members download. */
  siteModule: smallint('site_module').notNull().default(0),
  status: varchar('status', { length: 10 }).notNull().default('draft'),
  /** The operator's reason when a submission goes back to draft. */
  reviewReason: varchar('review_reason', { length: 255 }).notNull().default(''),
  latestVersion: varchar('latest_version', { length: 20 }).notNull().default(''),
  downloads: integer('downloads').notNull().default(0),
  purchases: integer('purchases').notNull().default(0),
  ratingSum: integer('rating_sum').notNull().default(0),
  ratingCount: integer('rating_count').notNull().default(0),
  /** ratingSum / ratingCount, kept by the review transaction so "by rating" is one indexed sort. */
  rating: doublePrecision('rating').notNull().default(0),
  searchVector: tsvector('search_vector').notNull().default(sql`''::tsvector`),
  titleVector: tsvector('title_vector').notNull().default(sql`''::tsvector`),
  publishTime: bigint('publish_time', { mode: 'number' }).notNull().default(0),
  createTime: bigint('create_time', { mode: 'number' }).notNull(),
  updateTime: bigint('update_time', { mode: 'number' }).notNull(),
}, (t) => [
  check('module_status_chk', sql`${t.status} in ('draft','review','published','delisted')`),
  check('module_price_chk', sql`${t.price} >= 0 and ${t.scorePrice} >= 0`),
  index('module_developer_idx').on(t.developerId, t.id),
  // Each list sort with its tie-breakers, so a page is read off the index in order (bench/market.mjs).
  index('module_newest_idx').on(t.status, t.publishTime, t.id),
  index('module_popular_idx').on(t.status, t.downloads, t.id),
  index('module_rating_idx').on(t.status, t.rating, t.ratingCount, t.id),
  index('module_price_idx').on(t.status, t.price, t.scorePrice, t.id),
  index('module_category_idx').on(t.status, t.category, t.publishTime, t.id),
  index('module_tags_idx').using('gin', t.tags),
  index('module_search_idx').using('gin', t.searchVector),
]);

/** One released version of a module. The package lives in private storage, never under /storage. */
export const moduleVersion = pgTable('module_version', {
  id: serial('id').primaryKey(),
  moduleId: integer('module_id').notNull(),
  version: varchar('version', { length: 20 }).notNull(),
  changelog: text('changelog').notNull().default(''),
  /** The changelog in English ('' : the one above for every reader). */
  changelogEn: text('changelog_en').notNull().default(''),
  /** Path of the zip relative to the private package root. */
  packagePath: varchar('package_path', { length: 255 }).notNull().default(''),
  packageName: varchar('package_name', { length: 120 }).notNull().default(''),
  packageSize: bigint('package_size', { mode: 'number' }).notNull().default(0),
  sha1: varchar('sha1', { length: 40 }).notNull().default(''),
  minAtrium: varchar('min_atrium', { length: 20 }).notNull().default(''),
  /** The package's sha256 when it was submitted and inspected ('' : submitted before packages were inspected). */
  sha256: varchar('sha256', { length: 64 }).notNull().default(''),
  /** The sha256 a reviewer approved: install refuses a package whose bytes no longer hash to it. */
  reviewedSha256: varchar('reviewed_sha256', { length: 64 }).notNull().default(''),
  /** The package's `atrium.json` as inspected at submission (null: none was). */
  manifest: jsonb('manifest'),
  /** The package's files with their unpacked sizes, for the reviewer. */
  files: jsonb('files').$type<{ path: string; size: number }[]>().notNull().default(sql`'[]'::jsonb`),
  status: varchar('status', { length: 10 }).notNull().default('review'),
  reviewReason: varchar('review_reason', { length: 255 }).notNull().default(''),
  publishTime: bigint('publish_time', { mode: 'number' }).notNull().default(0),
  createTime: bigint('create_time', { mode: 'number' }).notNull(),
}, (t) => [
  check('module_version_status_chk', sql`${t.status} in ('review','published','rejected')`),
  uniqueIndex('module_version_uq').on(t.moduleId, t.version),
]);

/**
 * A purchase. `amount` is cents when `payType` is balance, points when it is score, 0 when free.
 * One paid order per member and module (partial unique index): two requests cannot both pay.
 */
export const moduleOrder = pgTable('module_order', {
  id: serial('id').primaryKey(),
  orderNo: varchar('order_no', { length: 24 }).notNull().unique(),
  userId: integer('user_id').notNull(),
  moduleId: integer('module_id').notNull(),
  developerId: integer('developer_id').notNull(),
  payType: varchar('pay_type', { length: 10 }).notNull(),
  amount: integer('amount').notNull().default(0),
  commission: integer('commission').notNull().default(0),
  status: varchar('status', { length: 10 }).notNull().default('unpaid'),
  /** The client's one-time key: a retry of the same click finds this order. */
  nonce: varchar('nonce', { length: 40 }).notNull().default(''),
  /** Updates are included until then (one year from payment). */
  updatesUntil: bigint('updates_until', { mode: 'number' }).notNull().default(0),
  payTime: bigint('pay_time', { mode: 'number' }).notNull().default(0),
  createTime: bigint('create_time', { mode: 'number' }).notNull(),
}, (t) => [
  check('module_order_status_chk', sql`${t.status} in ('unpaid','paid','refunded')`),
  check('module_order_pay_chk', sql`${t.payType} in ('balance','score','free')`),
  uniqueIndex('module_order_owned_uq').on(t.userId, t.moduleId).where(sql`${t.status} = 'paid'`),
  index('module_order_user_idx').on(t.userId, t.id),
  index('module_order_developer_idx').on(t.developerId, t.id),
  index('module_order_nonce_idx').on(t.userId, t.nonce),
]);

/** Verified reviews: one per member and module, by buyers (or downloaders of a free module). */
export const moduleReview = pgTable('module_review', {
  id: serial('id').primaryKey(),
  moduleId: integer('module_id').notNull(),
  userId: integer('user_id').notNull(),
  rating: smallint('rating').notNull(),
  content: text('content').notNull().default(''),
  /** The developer's one reply. */
  reply: text('reply').notNull().default(''),
  replyTime: bigint('reply_time', { mode: 'number' }).notNull().default(0),
  createTime: bigint('create_time', { mode: 'number' }).notNull(),
  updateTime: bigint('update_time', { mode: 'number' }).notNull(),
}, (t) => [
  check('module_review_rating_chk', sql`${t.rating} between 1 and 5`),
  uniqueIndex('module_review_uq').on(t.moduleId, t.userId),
  index('module_review_module_idx').on(t.moduleId, t.id),
]);

/** Who downloaded what: counts, and entitles free-module downloaders to review. */
export const moduleDownload = pgTable('module_download', {
  id: serial('id').primaryKey(),
  moduleId: integer('module_id').notNull(),
  versionId: integer('version_id').notNull(),
  userId: integer('user_id').notNull(),
  createTime: bigint('create_time', { mode: 'number' }).notNull(),
}, (t) => [index('module_download_user_idx').on(t.userId, t.moduleId)]);

/**
 * The developer's earnings ledger, append-only: one row per sale (net of commission), in cents
 * (`kind` money) or points (`kind` score). Withdrawals are taken from the money side.
 */
export const developerEarning = pgTable('developer_earning', {
  id: serial('id').primaryKey(),
  developerId: integer('developer_id').notNull(),
  orderId: integer('order_id').notNull(),
  kind: varchar('kind', { length: 5 }).notNull(),
  gross: integer('gross').notNull(),
  commission: integer('commission').notNull(),
  amount: integer('amount').notNull(),
  createTime: bigint('create_time', { mode: 'number' }).notNull(),
}, (t) => [
  check('developer_earning_kind_chk', sql`${t.kind} in ('money','score')`),
  uniqueIndex('developer_earning_order_uq').on(t.orderId),
  index('developer_earning_dev_idx').on(t.developerId, t.createTime),
]);

/** A developer's request to be paid out (cents), decided by an operator. */
export const developerWithdrawal = pgTable('developer_withdrawal', {
  id: serial('id').primaryKey(),
  developerId: integer('developer_id').notNull(),
  amount: integer('amount').notNull(),
  /** Where to pay: bank account or payment account, as the developer typed it. */
  account: varchar('account', { length: 120 }).notNull(),
  status: varchar('status', { length: 10 }).notNull().default('pending'),
  remark: varchar('remark', { length: 255 }).notNull().default(''),
  createTime: bigint('create_time', { mode: 'number' }).notNull(),
  updateTime: bigint('update_time', { mode: 'number' }).notNull(),
}, (t) => [
  check('developer_withdrawal_status_chk', sql`${t.status} in ('pending','paid','rejected')`),
  check('developer_withdrawal_amount_chk', sql`${t.amount} > 0`),
  index('developer_withdrawal_dev_idx').on(t.developerId, t.id),
]);

/**
 * This site's market signing key (one row, id 1): an ed25519 pair made the first time it is needed.
 * The market signs what its reviewers approved with it; another Atrium that installs from this
 * market pins the public key when it connects. The private key (PKCS#8 DER, base64) never leaves the server.
 */
export const marketKey = pgTable('market_key', {
  id: smallint('id').primaryKey(),
  publicKey: text('public_key').notNull(),
  privateKey: text('private_key').notNull(),
  createTime: bigint('create_time', { mode: 'number' }).notNull(),
});

/** A member's API token for installing from this market on another site: only its sha256 is kept. */
export const memberApiToken = pgTable('member_api_token', {
  id: serial('id').primaryKey(),
  userId: integer('user_id').notNull(),
  name: varchar('name', { length: 60 }).notNull(),
  tokenHash: varchar('token_hash', { length: 64 }).notNull(),
  createTime: bigint('create_time', { mode: 'number' }).notNull(),
  lastUseTime: bigint('last_use_time', { mode: 'number' }).notNull().default(0),
}, (t) => [uniqueIndex('member_api_token_hash_idx').on(t.tokenHash), index('member_api_token_user_idx').on(t.userId)]);

/**
 * Another Atrium's market this site installs from: its URL, the member token it was given there and
 * the market's public key pinned when connecting (a key served later is compared, never trusted).
 */
export const moduleRemote = pgTable('module_remote', {
  id: serial('id').primaryKey(),
  url: varchar('url', { length: 255 }).notNull(),
  token: varchar('token', { length: 128 }).notNull(),
  publicKey: text('public_key').notNull(),
  fingerprint: varchar('fingerprint', { length: 64 }).notNull(),
  createTime: bigint('create_time', { mode: 'number' }).notNull(),
}, (t) => [uniqueIndex('module_remote_url_idx').on(t.url)]);

/** Which remote market a module of this site's market came from (a module made here has no row). */
export const moduleRemoteSource = pgTable('module_remote_source', {
  uid: varchar('uid', { length: 40 }).primaryKey(),
  remoteId: integer('remote_id').notNull(),
  createTime: bigint('create_time', { mode: 'number' }).notNull(),
});
