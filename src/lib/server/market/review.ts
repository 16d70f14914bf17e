import { and, asc, desc, eq, inArray, isNotNull, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { module, moduleVersion, user } from '../db/schema';
import { AppError } from '../http';
import { notify } from '../messages/notify';
import { displayNameSql } from '../account/users';
import { compareVersions } from '../../shared/market';
import type { Manifest } from '../modules/manifest';
import { inTransaction, touched } from '../write-scope';
import { marketArea } from './cache-tags';

/** The rule that lets a member decide on developer applications, modules and versions. */
export const REVIEW_RULE = 'market/approve';

/** The rule that lets a member install and uninstall site modules from the market. */
export const INSTALL_RULE = 'market/install';

const now = (): number => Math.floor(Date.now() / 1000);
type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

export interface PendingVersion {
  id: number;
  moduleId: number;
  version: string;
  changelog: string;
  packageName: string;
  packageSize: number;
  minAtrium: string;
  createTime: number;
  /** What the package was inspected to be at submission ('' / null / [] for packages submitted before). */
  sha256: string;
  manifest: Manifest | null;
  files: { path: string; size: number }[];
}

export interface PendingModule {
  id: number;
  uid: string;
  name: string;
  summary: string;
  category: string;
  price: number;
  scorePrice: number;
  developerId: number;
  developerName: string;
  updateTime: number;
  /** The versions submitted with it, newest first. */
  versions: PendingVersion[];
}

/** A new version of a module already on the market. */
export interface PendingUpdate extends PendingVersion {
  uid: string;
  name: string;
  summary: string;
  price: number;
  scorePrice: number;
  developerId: number;
  developerName: string;
}

const versionColumns = {
  id: moduleVersion.id, moduleId: moduleVersion.moduleId, version: moduleVersion.version, changelog: moduleVersion.changelog,
  packageName: moduleVersion.packageName, packageSize: moduleVersion.packageSize, minAtrium: moduleVersion.minAtrium, createTime: moduleVersion.createTime,
  sha256: moduleVersion.sha256, manifest: sql`${moduleVersion.manifest}`.mapWith((v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v) as Manifest | null), files: moduleVersion.files,
};
const byVersionDesc = (a: { version: string }, b: { version: string }): number => compareVersions(b.version, a.version);

/** What waits for an operator: modules submitted for review, and new versions of published modules. */
export async function pendingModules(db: Db): Promise<{ modules: PendingModule[]; versions: PendingUpdate[] }> {
  const modules = await db.select({
    id: module.id, uid: module.uid, name: module.name, summary: module.summary, category: module.category, price: module.price,
    scorePrice: module.scorePrice, developerId: module.developerId, developerName: displayNameSql, updateTime: module.updateTime,
  }).from(module).innerJoin(user, eq(user.id, module.developerId)).where(eq(module.status, 'review')).orderBy(asc(module.updateTime), asc(module.id));
  const submitted = modules.length
    ? await db.select(versionColumns).from(moduleVersion).where(and(inArray(moduleVersion.moduleId, modules.map((m) => m.id)), eq(moduleVersion.status, 'review')))
    : [];
  const versions = await db.select({
    ...versionColumns, uid: module.uid, name: module.name, summary: module.summary, price: module.price, scorePrice: module.scorePrice,
    developerId: module.developerId, developerName: displayNameSql,
  }).from(moduleVersion).innerJoin(module, eq(module.id, moduleVersion.moduleId)).innerJoin(user, eq(user.id, module.developerId))
    .where(and(eq(moduleVersion.status, 'review'), eq(module.status, 'published'))).orderBy(asc(moduleVersion.createTime), asc(moduleVersion.id));
  return {
    modules: modules.map((m) => ({ ...m, versions: submitted.filter((v) => v.moduleId === m.id).sort(byVersionDesc) })),
    versions,
  };
}

/** The highest published version of a module, or '' when none is. */
async function highestPublished(tx: Tx, moduleId: number): Promise<string> {
  const rows = await tx.select({ version: moduleVersion.version }).from(moduleVersion)
    .where(and(eq(moduleVersion.moduleId, moduleId), eq(moduleVersion.status, 'published')));
  return rows.sort(byVersionDesc)[0]?.version ?? '';
}

function requireReason(approve: boolean, reason: string | undefined): string {
  const text = (reason ?? '').trim().slice(0, 255);
  if (!approve && !text) throw new AppError('developer.field.reason', { fieldKeys: { reason: 'developer.field.reason' } });
  return approve ? '' : text;
}

export interface ModuleDecision {
  moduleId: number;
  approve: boolean;
  reason?: string;
  reviewerId: number;
}

/**
 * Decides a module submitted for review. Approving publishes it with every version submitted
 * with it; rejecting sends it back to draft with the reason. The developer is told either way.
 */
export async function decideModule(db: Db, input: ModuleDecision): Promise<{ uid: string; status: 'published' | 'draft'; latestVersion: string }> {
  const reason = requireReason(input.approve, input.reason);
  return inTransaction(db, async (tx) => {
    touched(marketArea);
    const [row] = await tx.select().from(module).where(eq(module.id, input.moduleId)).for('update');
    if (!row || row.status !== 'review') throw new AppError('developer.review.notPending', { status: 404 });
    const t = now();
    let latestVersion = row.latestVersion;
    if (input.approve) {
      // Approval pins what the reviewer saw: install refuses a package that no longer hashes to it.
      await tx.update(moduleVersion).set({ status: 'published', publishTime: t, reviewReason: '', reviewedSha256: sql`${moduleVersion.sha256}` })
        .where(and(eq(moduleVersion.moduleId, row.id), eq(moduleVersion.status, 'review')));
      latestVersion = await highestPublished(tx, row.id);
      // A module nobody could download is not worth publishing.
      if (!latestVersion) throw new AppError('developer.review.noVersion');
      await tx.update(module).set({ status: 'published', publishTime: row.publishTime || t, latestVersion, reviewReason: '', updateTime: t, siteModule: await installsOnSites(tx, row.id, row.siteModule) })
        .where(eq(module.id, row.id));
    } else {
      await tx.update(module).set({ status: 'draft', reviewReason: reason, updateTime: t }).where(eq(module.id, row.id));
    }
    await notify(tx, [{
      type: 'market_module', senderId: input.reviewerId, recipientId: row.developerId,
      title: input.approve ? 'developer.notice.moduleApproved' : 'developer.notice.moduleRejected',
      summary: reason ? `${row.name}: ${reason}` : row.name, link: '/user/developer/modules',
    }]);
    return { uid: row.uid, status: input.approve ? 'published' : 'draft', latestVersion };
  });
}

/** A module with a published package that has a manifest installs on sites (1); else what it was. */
async function installsOnSites(tx: Pick<Db, 'select'>, moduleId: number, was: number): Promise<number> {
  const [packaged] = await tx.select({ id: moduleVersion.id }).from(moduleVersion)
    .where(and(eq(moduleVersion.moduleId, moduleId), eq(moduleVersion.status, 'published'), isNotNull(moduleVersion.manifest))).limit(1);
  return packaged ? 1 : was;
}

export interface VersionDecision {
  versionId: number;
  approve: boolean;
  reason?: string;
  reviewerId: number;
}

/**
 * Decides a new version of a published module: approving publishes it and moves the module's
 * latest version if it is higher; rejecting keeps it off the market with the reason.
 */
export async function decideVersion(db: Db, input: VersionDecision): Promise<{ uid: string; version: string; status: 'published' | 'rejected'; latestVersion: string }> {
  const reason = requireReason(input.approve, input.reason);
  return inTransaction(db, async (tx) => {
    touched(marketArea);
    const [found] = await tx.select({ v: moduleVersion, m: module }).from(moduleVersion)
      .innerJoin(module, eq(module.id, moduleVersion.moduleId)).where(eq(moduleVersion.id, input.versionId)).for('update');
    if (!found || found.v.status !== 'review') throw new AppError('developer.review.notPending', { status: 404 });
    const { v, m } = found;
    // A version submitted with its module is decided with the module.
    if (m.status !== 'published') throw new AppError('developer.review.moduleFirst');
    const t = now();
    let latestVersion = m.latestVersion;
    if (input.approve) {
      await tx.update(moduleVersion).set({ status: 'published', publishTime: t, reviewReason: '', reviewedSha256: sql`${moduleVersion.sha256}` }).where(eq(moduleVersion.id, v.id));
      latestVersion = await highestPublished(tx, m.id);
      await tx.update(module).set({ latestVersion, updateTime: t, siteModule: await installsOnSites(tx, m.id, m.siteModule) }).where(eq(module.id, m.id));
    } else {
      await tx.update(moduleVersion).set({ status: 'rejected', reviewReason: reason }).where(eq(moduleVersion.id, v.id));
    }
    await notify(tx, [{
      type: 'market_module', senderId: input.reviewerId, recipientId: m.developerId,
      title: input.approve ? 'developer.notice.versionApproved' : 'developer.notice.versionRejected',
      summary: `${m.name} ${v.version}${reason ? `: ${reason}` : ''}`, link: '/user/developer/modules',
    }]);
    return { uid: m.uid, version: v.version, status: input.approve ? 'published' : 'rejected', latestVersion };
  });
}

/** A module's id by its uid, for the operator CLI. */
export async function moduleIdByUid(db: Db, uid: string): Promise<number | null> {
  const [row] = await db.select({ id: module.id }).from(module).where(eq(module.uid, uid)).limit(1);
  return row?.id ?? null;
}

/** A version's id by its module's uid and its number, for the operator CLI. */
export async function versionIdOf(db: Db, uid: string, version: string): Promise<number | null> {
  const [row] = await db.select({ id: moduleVersion.id }).from(moduleVersion).innerJoin(module, eq(module.id, moduleVersion.moduleId))
    .where(and(eq(module.uid, uid), eq(moduleVersion.version, version))).orderBy(desc(moduleVersion.id)).limit(1);
  return row?.id ?? null;
}
