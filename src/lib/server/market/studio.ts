// The developer's side of the market: their modules and versions, sales, earnings and withdrawals.
// Every function takes the developer's member id and only ever touches that developer's rows.
import { and, count, desc, eq, gte, ilike, inArray, lt, or, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/client';
import { attachment, config, developer, developerEarning, developerWithdrawal, module, moduleOrder, moduleVersion, user } from '../db/schema';
import { AppError } from '../http';
import { displayNameSql, formatMoney } from '../account/users';
import { notify } from '../messages/notify';
import { SITE_MODULES } from '../modules/installs';
import { moduleText } from './text';
import type { PackageInspection } from '../modules/inspect';
import { Code } from '../../shared/codes';
import { formatDate } from '../../shared/date';
import { compareVersions, type ModuleStatus } from '../../shared/market';
import { YUAN, yuanToCents, type ModuleValues, type SalesFilter, type VersionValues } from '../../shared/validation/studio';
import { inTransaction, touched } from '../write-scope';
import { marketArea } from './cache-tags';

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
const now = (): number => Math.floor(Date.now() / 1000);
const PAGE_SIZE = 20;

const missing = (): AppError => new AppError('devstudio.error.moduleMissing', { status: 404 });

/** Refuses members who are not approved developers (the studio's one gate, before any ownership check). */
export async function requireDeveloper(db: Db, userId: number): Promise<void> {
  const [row] = await db.select({ status: developer.status }).from(developer).where(eq(developer.userId, userId)).limit(1);
  if (row?.status !== 'approved') throw new AppError('devstudio.notDeveloper', { code: Code.noPermission });
}

/** A text setting straight from the configuration table (fresh inside a transaction). */
async function setting(db: Db | Tx, name: string, fallback: string): Promise<string> {
  const [row] = await db.select({ value: config.value }).from(config).where(eq(config.name, name)).limit(1);
  return row?.value ?? fallback;
}

// ---------------------------------------------------------------------------------------------
// Modules

export interface StudioModule {
  id: number; uid: string; name: string; status: ModuleStatus; reviewReason: string; latestVersion: string;
  price: number; scorePrice: number; downloads: number; purchases: number; versionsInReview: number; updateTime: number;
}

/** One page of the developer's modules, most recently created first. */
export async function myModules(db: Db, developerId: number, page: number, limit = PAGE_SIZE): Promise<{ list: StudioModule[]; total: number }> {
  const where = eq(module.developerId, developerId);
  const [list, [totals]] = await Promise.all([
    db.select({
      id: module.id, uid: module.uid, name: module.name, status: module.status, reviewReason: module.reviewReason, latestVersion: module.latestVersion,
      price: module.price, scorePrice: module.scorePrice, downloads: module.downloads, purchases: module.purchases, updateTime: module.updateTime,
      versionsInReview: sql<number>`(select count(*)::int from ${moduleVersion} where ${moduleVersion.moduleId} = ${module.id} and ${moduleVersion.status} = 'review')`,
    }).from(module).where(where).orderBy(desc(module.id)).limit(limit).offset((page - 1) * limit),
    db.select({ n: count() }).from(module).where(where),
  ]);
  return { list: list.map((m) => ({ ...m, status: m.status as ModuleStatus })), total: totals?.n ?? 0 };
}

export interface StudioModuleDetail {
  id: number; uid: string; name: string; summary: string; description: string; nameEn: string; summaryEn: string; descriptionEn: string; cover: string; screenshots: string[];
  category: string; tags: string[]; price: number; scorePrice: number; status: ModuleStatus; reviewReason: string; latestVersion: string;
}

/** One of the developer's own modules as the edit form needs it; null when missing or someone else's. */
export async function ownModule(db: Db, developerId: number, id: number): Promise<StudioModuleDetail | null> {
  const [row] = await db.select({
    id: module.id, uid: module.uid, name: module.name, summary: module.summary, description: module.description, cover: module.cover,
    nameEn: module.nameEn, summaryEn: module.summaryEn, descriptionEn: module.descriptionEn,
    screenshots: module.screenshots, category: module.category, tags: module.tags, price: module.price, scorePrice: module.scorePrice,
    status: module.status, reviewReason: module.reviewReason, latestVersion: module.latestVersion,
  }).from(module).where(and(eq(module.id, id), eq(module.developerId, developerId))).limit(1);
  return row ? { ...row, status: row.status as ModuleStatus } : null;
}

export interface StudioVersion {
  id: number; version: string; changelog: string; minAtrium: string; packageName: string; packageSize: number; sha1: string;
  status: string; reviewReason: string; publishTime: number; createTime: number;
}

/** The versions of one of the developer's modules, highest first; null when the module is not theirs. */
export async function moduleVersions(db: Db, developerId: number, moduleId: number): Promise<StudioVersion[] | null> {
  const [own] = await db.select({ id: module.id }).from(module).where(and(eq(module.id, moduleId), eq(module.developerId, developerId))).limit(1);
  if (!own) return null;
  const rows = await db.select({
    id: moduleVersion.id, version: moduleVersion.version, changelog: moduleVersion.changelog, minAtrium: moduleVersion.minAtrium,
    packageName: moduleVersion.packageName, packageSize: moduleVersion.packageSize, sha1: moduleVersion.sha1, status: moduleVersion.status,
    reviewReason: moduleVersion.reviewReason, publishTime: moduleVersion.publishTime, createTime: moduleVersion.createTime,
  }).from(moduleVersion).where(eq(moduleVersion.moduleId, moduleId));
  return rows.sort((a, b) => compareVersions(b.version, a.version));
}

/** What a new version might be called: the next patch after the highest (a pre-release's own release), or 1.0.0. */
export function nextVersion(versions: readonly string[]): string {
  const highest = [...versions].sort(compareVersions).at(-1);
  if (!highest) return '1.0.0';
  const [core = '', pre] = highest.split('-', 2);
  const [major = 0, minor = 0, patch = 0] = core.split('.').map(Number);
  return pre ? `${major}.${minor}.${patch}` : `${major}.${minor}.${patch + 1}`;
}

/** In a cloud upload mode: the attachment `storage` of its rows and the object key behind one of its public URLs. */
export interface CloudImages {
  storage: string;
  keyOf(url: string): string | null;
}

/** Cover and screenshots must be raster images this developer uploaded (their own attachment rows). */
async function checkImages(tx: Tx, developerId: number, cover: string, screenshots: readonly string[], cloud?: CloudImages): Promise<void> {
  const urls = [...new Set([cover, ...screenshots].filter(Boolean))];
  if (!urls.length) return;
  const rows = await tx.select({ url: attachment.url }).from(attachment).where(and(
    eq(attachment.userId, developerId), eq(attachment.storage, 'local'), inArray(attachment.url, urls), sql`${attachment.width} > 0`,
  ));
  const mine = new Set(rows.map((r) => r.url));
  // Cloud mode: a public URL of the store names an `uploads/<id>/…` object this developer stored.
  const keys = new Map<string, string>();
  for (const url of urls) {
    const key = cloud && !mine.has(url) ? cloud.keyOf(url) : null;
    if (key) keys.set(`/${key}`, url);
  }
  if (cloud && keys.size) {
    const cloudRows = await tx.select({ url: attachment.url }).from(attachment).where(and(
      eq(attachment.userId, developerId), eq(attachment.storage, cloud.storage), inArray(attachment.url, [...keys.keys()]), sql`${attachment.width} > 0`,
    ));
    for (const r of cloudRows) mine.add(keys.get(r.url)!);
  }
  const fieldKeys: Record<string, string> = {};
  if (cover && !mine.has(cover)) fieldKeys.cover = 'devstudio.error.image';
  if (screenshots.some((s) => !mine.has(s))) fieldKeys.screenshots = 'devstudio.error.image';
  if (Object.keys(fieldKeys).length) throw new AppError('devstudio.error.image', { fieldKeys });
}

/**
 * Creates a module (a draft) or saves an edit of one of the developer's own. The uid is fixed once
 * created (it is in URLs and installs); an edited module keeps its status, so a published one stays
 * on the market with the new text at once.
 */
export async function saveModule(db: Db, developerId: number, input: ModuleValues, cloud?: CloudImages): Promise<{ id: number; created: boolean; status: ModuleStatus }> {
  const text = await moduleText(input);
  return inTransaction(db, async (tx) => {
    await checkImages(tx, developerId, input.cover, input.screenshots, cloud);
    const t = now();
    const values = {
      name: input.name, summary: input.summary, description: input.description, descriptionHtml: text.descriptionHtml,
      nameEn: input.nameEn, summaryEn: input.summaryEn, descriptionEn: input.descriptionEn, descriptionEnHtml: text.descriptionEnHtml,
      cover: input.cover, screenshots: input.screenshots, category: input.category, tags: input.tags, price: input.price, scorePrice: input.scorePrice,
      searchVector: text.searchVector, titleVector: text.titleVector, updateTime: t,
    };
    if (input.id) {
      const [row] = await tx.select({ id: module.id, uid: module.uid, status: module.status }).from(module)
        .where(and(eq(module.id, input.id), eq(module.developerId, developerId))).for('update');
      if (!row) throw missing();
      if (row.uid !== input.uid) throw new AppError('devstudio.error.uidFixed', { fieldKeys: { uid: 'devstudio.error.uidFixed' } });
      await tx.update(module).set(values).where(eq(module.id, row.id));
      // A listed module's page and the market lists show the new text at once (a draft is on neither).
      if (row.status === 'published' || row.status === 'delisted') touched(marketArea);
      return { id: row.id, created: false, status: row.status as ModuleStatus };
    }
    // The site's own modules (the editor) keep their uids even before the seed lists them.
    if (Object.hasOwn(SITE_MODULES, input.uid)) throw new AppError('devstudio.error.uidTaken', { fieldKeys: { uid: 'devstudio.error.uidTaken' } });
    const [row] = await tx.insert(module).values({ ...values, uid: input.uid, developerId, status: 'draft', createTime: t })
      .onConflictDoNothing({ target: module.uid }).returning({ id: module.id });
    if (!row) throw new AppError('devstudio.error.uidTaken', { fieldKeys: { uid: 'devstudio.error.uidTaken' } });
    return { id: row.id, created: true, status: 'draft' };
  });
}

async function lockOwn(tx: Tx, developerId: number, moduleId: number) {
  const [row] = await tx.select({ id: module.id, uid: module.uid, status: module.status }).from(module)
    .where(and(eq(module.id, moduleId), eq(module.developerId, developerId))).for('update');
  if (!row) throw missing();
  return row;
}

/** Sends a draft to the operators; it needs a version they can publish with it. */
export async function submitModule(db: Db, developerId: number, moduleId: number): Promise<void> {
  await db.transaction(async (tx) => {
    const row = await lockOwn(tx, developerId, moduleId);
    if (row.status !== 'draft') throw new AppError('devstudio.error.notDraft');
    const [versions] = await tx.select({ n: count() }).from(moduleVersion)
      .where(and(eq(moduleVersion.moduleId, row.id), inArray(moduleVersion.status, ['review', 'published'])));
    if (!versions?.n) throw new AppError('devstudio.error.noVersion');
    await tx.update(module).set({ status: 'review', reviewReason: '', updateTime: now() }).where(eq(module.id, row.id));
  });
}

async function moveStatus(db: Db, developerId: number, moduleId: number, from: ModuleStatus, to: ModuleStatus, refusal: 'devstudio.error.notPublished' | 'devstudio.error.notDelisted'): Promise<void> {
  await inTransaction(db, async (tx) => {
    const row = await lockOwn(tx, developerId, moduleId);
    if (row.status !== from) throw new AppError(refusal);
    await tx.update(module).set({ status: to, updateTime: now() }).where(eq(module.id, row.id));
    touched(marketArea);
  });
}

/** Takes a published module off the market (owners keep their downloads). */
export function delistModule(db: Db, developerId: number, moduleId: number): Promise<void> {
  return moveStatus(db, developerId, moduleId, 'published', 'delisted', 'devstudio.error.notPublished');
}

/** Puts a delisted module back on the market. */
export function relistModule(db: Db, developerId: number, moduleId: number): Promise<void> {
  return moveStatus(db, developerId, moduleId, 'delisted', 'published', 'devstudio.error.notDelisted');
}

/**
 * Adds a version for review: higher than every version the module has had, with the developer's
 * own uploaded package. The module row is locked, so two uploads cannot both pass the check.
 * `inspect` reads the package (refusing every problem of it, a manifest of another module or
 * version included); what it returns (manifest, files, sha256) is what the reviewer will see.
 */
export async function addVersion(
  db: Db, developerId: number, input: VersionValues,
  inspect?: (pkg: { url: string; size: number }, expected: { uid: string; version: string }) => Promise<PackageInspection>,
): Promise<{ id: number; version: string; status: 'review' }> {
  return db.transaction(async (tx) => {
    const own = await lockOwn(tx, developerId, input.moduleId);
    const [pkg] = await tx.select().from(attachment).where(and(
      eq(attachment.id, input.packageId), eq(attachment.userId, developerId), eq(attachment.topic, 'package'), eq(attachment.storage, 'private'),
    )).limit(1);
    if (!pkg) throw new AppError('devstudio.error.package', { fieldKeys: { package_id: 'devstudio.error.package' } });
    const existing = await tx.select({ version: moduleVersion.version }).from(moduleVersion).where(eq(moduleVersion.moduleId, own.id));
    const highest = existing.map((v) => v.version).sort(compareVersions).at(-1);
    if (highest && compareVersions(input.version, highest) <= 0) {
      throw new AppError('devstudio.error.versionNotHigher', { values: { latest: highest }, fieldKeys: { version: 'devstudio.error.versionNotHigher' } });
    }
    const inspection = inspect ? await inspect(pkg, { uid: own.uid, version: input.version }) : undefined;
    const [row] = await tx.insert(moduleVersion).values({
      moduleId: own.id, version: input.version, changelog: input.changelog, minAtrium: input.minAtrium,
      packagePath: pkg.url, packageName: pkg.name, packageSize: pkg.size, sha1: pkg.sha1, status: 'review', createTime: now(),
      ...(inspection ? { sha256: inspection.sha256, manifest: inspection.manifest, files: inspection.files } : {}),
    }).onConflictDoNothing().returning({ id: moduleVersion.id });
    if (!row) throw new AppError('devstudio.error.versionNotHigher', { values: { latest: input.version }, fieldKeys: { version: 'devstudio.error.versionNotHigher' } });
    await tx.update(module).set({ updateTime: now() }).where(eq(module.id, own.id));
    return { id: row.id, version: input.version, status: 'review' };
  });
}

// ---------------------------------------------------------------------------------------------
// Time: site-time-zone days and months as Unix seconds

/** Seconds the time zone's wall clock is ahead of UTC at `seconds`. */
function zoneOffset(seconds: number, timeZone: string): number {
  const [y, mo, d, h, mi, s] = formatDate(new Date(seconds * 1000), 'yyyy-mm-dd-hh-MM-ss', timeZone).split('-').map(Number) as number[];
  return Date.UTC(y!, mo! - 1, d!, h!, mi!, s!) / 1000 - seconds;
}

/** Unix seconds of midnight starting that calendar day in the time zone (month and day may overflow, as Date.UTC allows). */
export function zonedMidnight(year: number, month: number, day: number, timeZone: string): number {
  const wall = Date.UTC(year, month - 1, day) / 1000;
  const first = wall - zoneOffset(wall, timeZone);
  // Once more with the offset in force at that instant (a daylight-saving change in between).
  return wall - zoneOffset(first, timeZone);
}

/** 'yyyy-mm-dd' → Unix seconds of its start; `next` gives the start of the following day. */
export function dayStart(day: string, timeZone: string, next = false): number {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return zonedMidnight(y, m, d + (next ? 1 : 0), timeZone);
}

/** The last `months` calendar months up to the one `at` falls in: labels 'yyyy-mm' and `months + 1` boundaries. */
export function monthWindows(months: number, timeZone: string, at = Date.now()): { labels: string[]; bounds: number[] } {
  const [y, m] = formatDate(new Date(at), 'yyyy-mm', timeZone).split('-').map(Number) as [number, number];
  const labels: string[] = [];
  const bounds: number[] = [];
  for (let i = 0; i <= months; i++) {
    const index = y * 12 + (m - 1) - (months - 1) + i;
    const year = Math.floor(index / 12);
    const month = (index % 12) + 1;
    bounds.push(zonedMidnight(year, month, 1, timeZone));
    if (i < months) labels.push(`${year}-${String(month).padStart(2, '0')}`);
  }
  return { labels, bounds };
}

// ---------------------------------------------------------------------------------------------
// Sales

export interface Sale {
  id: number; orderNo: string; moduleId: number; moduleUid: string; moduleName: string; buyerId: number; buyerName: string;
  payType: string; amount: number; commission: number; net: number; status: string; payTime: number; createTime: number;
}

export interface SalesTotals {
  /** Orders matching the filters. */
  count: number;
  /** Paid orders only: cents for balance, points for score, gross and after commission. */
  money: { gross: number; net: number };
  score: { gross: number; net: number };
}

/** Escapes LIKE wildcards so a search for `50%` means those characters. */
const likeText = (q: string): string => `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** One page of the developer's sales with filters, and the totals of everything the filters match. */
export async function salesPage(db: Db, developerId: number, filter: SalesFilter, timeZone: string, limit = PAGE_SIZE): Promise<{ list: Sale[]; total: number; totals: SalesTotals }> {
  const where: SQL[] = [eq(moduleOrder.developerId, developerId)];
  if (filter.status) where.push(eq(moduleOrder.status, filter.status));
  if (filter.payType) where.push(eq(moduleOrder.payType, filter.payType));
  if (filter.from) where.push(gte(moduleOrder.createTime, dayStart(filter.from, timeZone)));
  if (filter.to) where.push(lt(moduleOrder.createTime, dayStart(filter.to, timeZone, true)));
  if (filter.q) {
    const like = likeText(filter.q);
    where.push(or(ilike(moduleOrder.orderNo, like), ilike(user.username, like), ilike(user.nickname, like))!);
  }
  const paid = (payType: string): SQL => sql`${moduleOrder.status} = 'paid' and ${moduleOrder.payType} = ${payType}`;
  const [rows, [sums]] = await Promise.all([
    db.select({
      id: moduleOrder.id, orderNo: moduleOrder.orderNo, moduleId: moduleOrder.moduleId, moduleUid: module.uid, moduleName: module.name,
      buyerId: moduleOrder.userId, buyerName: displayNameSql, payType: moduleOrder.payType, amount: moduleOrder.amount,
      commission: moduleOrder.commission, status: moduleOrder.status, payTime: moduleOrder.payTime, createTime: moduleOrder.createTime,
    }).from(moduleOrder).innerJoin(module, eq(module.id, moduleOrder.moduleId)).leftJoin(user, eq(user.id, moduleOrder.userId))
      .where(and(...where)).orderBy(desc(moduleOrder.id)).limit(limit).offset((filter.page - 1) * limit),
    db.select({
      n: count(),
      moneyGross: sql<string>`coalesce(sum(${moduleOrder.amount}) filter (where ${paid('balance')}), 0)::bigint`,
      moneyNet: sql<string>`coalesce(sum(${moduleOrder.amount} - ${moduleOrder.commission}) filter (where ${paid('balance')}), 0)::bigint`,
      scoreGross: sql<string>`coalesce(sum(${moduleOrder.amount}) filter (where ${paid('score')}), 0)::bigint`,
      scoreNet: sql<string>`coalesce(sum(${moduleOrder.amount} - ${moduleOrder.commission}) filter (where ${paid('score')}), 0)::bigint`,
    }).from(moduleOrder).leftJoin(user, eq(user.id, moduleOrder.userId)).where(and(...where)),
  ]);
  return {
    list: rows.map((r) => ({ ...r, buyerName: r.buyerName ?? `#${r.buyerId}`, net: r.amount - r.commission })),
    total: sums?.n ?? 0,
    totals: {
      count: sums?.n ?? 0,
      money: { gross: Number(sums?.moneyGross ?? 0), net: Number(sums?.moneyNet ?? 0) },
      score: { gross: Number(sums?.scoreGross ?? 0), net: Number(sums?.scoreNet ?? 0) },
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Earnings and withdrawals

export interface EarningsSummary {
  /** Cents. `total` is after commission; available = total − pending − withdrawn. */
  money: { gross: number; commission: number; total: number; withdrawn: number; pending: number; available: number };
  score: { total: number };
  /** Sales credited to the developer (one earnings row each). */
  sales: number;
}

/** The developer's earnings from the ledger and the withdrawals, in cents and points. */
export async function earningsSummary(db: Db | Tx, developerId: number): Promise<EarningsSummary> {
  const [[e], [w]] = await Promise.all([
    db.select({
      sales: count(),
      gross: sql<string>`coalesce(sum(${developerEarning.gross}) filter (where ${developerEarning.kind} = 'money'), 0)::bigint`,
      commission: sql<string>`coalesce(sum(${developerEarning.commission}) filter (where ${developerEarning.kind} = 'money'), 0)::bigint`,
      money: sql<string>`coalesce(sum(${developerEarning.amount}) filter (where ${developerEarning.kind} = 'money'), 0)::bigint`,
      score: sql<string>`coalesce(sum(${developerEarning.amount}) filter (where ${developerEarning.kind} = 'score'), 0)::bigint`,
    }).from(developerEarning).where(eq(developerEarning.developerId, developerId)),
    db.select({
      paid: sql<string>`coalesce(sum(${developerWithdrawal.amount}) filter (where ${developerWithdrawal.status} = 'paid'), 0)::bigint`,
      pending: sql<string>`coalesce(sum(${developerWithdrawal.amount}) filter (where ${developerWithdrawal.status} = 'pending'), 0)::bigint`,
    }).from(developerWithdrawal).where(eq(developerWithdrawal.developerId, developerId)),
  ]);
  const total = Number(e?.money ?? 0);
  const withdrawn = Number(w?.paid ?? 0);
  const pending = Number(w?.pending ?? 0);
  return {
    money: { gross: Number(e?.gross ?? 0), commission: Number(e?.commission ?? 0), total, withdrawn, pending, available: Math.max(0, total - pending - withdrawn) },
    score: { total: Number(e?.score ?? 0) },
    sales: e?.sales ?? 0,
  };
}

/** Money earned (cents, after commission) in each of the last `months` calendar months of the site's time zone, oldest first. */
export async function monthlyEarnings(db: Db, developerId: number, months = 12, timeZone = 'UTC', at = Date.now()): Promise<{ month: string; cents: number }[]> {
  const { labels, bounds } = monthWindows(months, timeZone, at);
  // width_bucket numbers the months 1…n by their start times: one grouped query, no per-month round trip.
  const thresholds = sql.raw(`array[${bounds.map((b) => Math.trunc(b)).join(',')}]::bigint[]`);
  const bucket = sql<number>`width_bucket(${developerEarning.createTime}, ${thresholds})`;
  const rows = await db.select({ bucket, cents: sql<string>`sum(${developerEarning.amount})::bigint` }).from(developerEarning).where(and(
    eq(developerEarning.developerId, developerId), eq(developerEarning.kind, 'money'),
    gte(developerEarning.createTime, bounds[0]!), lt(developerEarning.createTime, bounds[months]!),
  )).groupBy(bucket);
  const byBucket = new Map(rows.map((r) => [Number(r.bucket), Number(r.cents)]));
  return labels.map((month, i) => ({ month, cents: byBucket.get(i + 1) ?? 0 }));
}

/** The smallest withdrawal in cents (config `market_withdraw_min`, in yuan; 100 yuan when unreadable). */
export async function withdrawMinimum(db: Db | Tx): Promise<number> {
  const raw = (await setting(db, 'market_withdraw_min', '100.00')).trim();
  return Math.max(1, YUAN.test(raw) ? yuanToCents(raw) : 10_000);
}

/**
 * Asks for a payout. The developer's row is locked first, so requests made at the same time are
 * checked one after another against what is still available: together they never overdraw.
 */
export async function requestWithdrawal(db: Db, developerId: number, input: { amount: number; account: string }): Promise<{ id: number; amount: number; available: number }> {
  return db.transaction(async (tx) => {
    const [dev] = await tx.select({ status: developer.status }).from(developer).where(eq(developer.userId, developerId)).for('update');
    if (dev?.status !== 'approved') throw new AppError('devstudio.notDeveloper', { code: Code.noPermission });
    const min = await withdrawMinimum(tx);
    if (input.amount < min) {
      throw new AppError('devstudio.withdraw.belowMin', { values: { min: formatMoney(min) }, fieldKeys: { amount: 'devstudio.withdraw.belowMin' } });
    }
    const { money } = await earningsSummary(tx, developerId);
    if (input.amount > money.available) {
      throw new AppError('devstudio.withdraw.overAvailable', { values: { available: formatMoney(money.available) }, fieldKeys: { amount: 'devstudio.withdraw.overAvailable' } });
    }
    const t = now();
    const [row] = await tx.insert(developerWithdrawal).values({ developerId, amount: input.amount, account: input.account, status: 'pending', createTime: t, updateTime: t })
      .returning({ id: developerWithdrawal.id });
    return { id: row!.id, amount: input.amount, available: money.available - input.amount };
  });
}

export type WithdrawalRow = typeof developerWithdrawal.$inferSelect;

/** One page of the developer's withdrawal requests, newest first. */
export async function withdrawalsPage(db: Db, developerId: number, page: number, limit = PAGE_SIZE): Promise<{ list: WithdrawalRow[]; total: number }> {
  const where = eq(developerWithdrawal.developerId, developerId);
  const [list, [totals]] = await Promise.all([
    db.select().from(developerWithdrawal).where(where).orderBy(desc(developerWithdrawal.id)).limit(limit).offset((page - 1) * limit),
    db.select({ n: count() }).from(developerWithdrawal).where(where),
  ]);
  return { list, total: totals?.n ?? 0 };
}

/** Pending requests for the operators, oldest first, with who asked. */
export async function pendingWithdrawals(db: Db, limit = 200): Promise<(WithdrawalRow & { username: string })[]> {
  const rows = await db.select({ w: developerWithdrawal, username: user.username }).from(developerWithdrawal)
    .leftJoin(user, eq(user.id, developerWithdrawal.developerId)).where(eq(developerWithdrawal.status, 'pending'))
    .orderBy(developerWithdrawal.id).limit(limit);
  return rows.map((r) => ({ ...r.w, username: r.username ?? '' }));
}

/**
 * An operator's decision on a pending request: paid (money sent outside Atrium) or rejected (the
 * amount is available again). The developer is told; null when there is no such pending request.
 */
export async function decideWithdrawal(db: Db, id: number, status: 'paid' | 'rejected', remark: string): Promise<WithdrawalRow | null> {
  return db.transaction(async (tx) => {
    const [row] = await tx.update(developerWithdrawal).set({ status, remark: remark.trim().slice(0, 255), updateTime: now() })
      .where(and(eq(developerWithdrawal.id, id), eq(developerWithdrawal.status, 'pending'))).returning();
    if (!row) return null;
    // The title is a message key: the message center shows it in the reader's language.
    await notify(tx, [{
      type: 'market_withdrawal', senderId: 0, recipientId: row.developerId,
      title: status === 'paid' ? 'devstudio.notice.withdrawalPaid' : 'devstudio.notice.withdrawalRejected',
      summary: `¥${formatMoney(row.amount)}${row.remark ? `: ${row.remark}` : ''}`, link: '/user/developer/earnings',
    }]);
    return row;
  });
}

// ---------------------------------------------------------------------------------------------
// The monthly chart (drawn as inline SVG by the earnings page)

/** The smallest 1, 2 or 5 × 10ⁿ at or above `value` (an axis top that reads well); 1 for nothing. */
export function niceCeiling(value: number): number {
  if (!(value > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  const step = [1, 2, 5, 10].find((s) => s * power >= value * (1 - 1e-12)) ?? 10;
  return step * power;
}

export interface ChartBar { label: string; value: number; x: number; y: number; width: number; height: number }

/** Bars for `points` in a `width` × `plotHeight` area whose baseline is at `baseline`, scaled to a round top value. */
export function chartBars(points: readonly { label: string; value: number }[], size: { width: number; baseline: number; plotHeight: number }): { bars: ChartBar[]; top: number } {
  const top = niceCeiling(Math.max(0, ...points.map((p) => p.value)));
  const slot = size.width / Math.max(1, points.length);
  const width = slot * 0.6;
  const bars = points.map((p, i) => {
    const height = p.value > 0 ? Math.max(1, (p.value / top) * size.plotHeight) : 0;
    return { label: p.label, value: p.value, x: i * slot + (slot - width) / 2, y: size.baseline - height, width, height };
  });
  return { bars, top };
}
