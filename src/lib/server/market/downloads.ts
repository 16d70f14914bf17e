import { and, desc, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { module, moduleDownload, moduleOrder, moduleVersion } from '../db/schema';
import { AppError } from '../http';
import { compareVersions } from '../../shared/market';
import { inTransaction, touched } from '../write-scope';
import { marketModule } from './cache-tags';

export interface DownloadGrant {
  moduleId: number;
  uid: string;
  versionId: number;
  version: string;
  packagePath: string;
  /** `{uid}-{version}.zip` */
  fileName: string;
  size: number;
  /** Whether the download counts as a public one: the developer's and a reviewer's do not. */
  counted: boolean;
}

/**
 * Decides, per request, whether a member may download a module's package and which file:
 * free modules for every member; paid ones for the owner of a paid order, limited to versions
 * published while their updates last; the developer and market reviewers always.
 * `version` empty = the newest version the member may have.
 */
export async function authoriseDownload(db: Db, input: { userId: number; uid: string; version?: string; reviewer: boolean }): Promise<DownloadGrant> {
  const [m] = await db.select({ id: module.id, uid: module.uid, developerId: module.developerId, price: module.price, scorePrice: module.scorePrice, status: module.status })
    .from(module).where(eq(module.uid, input.uid)).limit(1);
  const privileged = Boolean(m && (m.developerId === input.userId || input.reviewer));
  if (!m || (m.status !== 'published' && !privileged)) throw new AppError('market.notFound');
  let updatesUntil = Infinity;
  if (!privileged && (m.price > 0 || m.scorePrice > 0)) {
    const [order] = await db.select({ updatesUntil: moduleOrder.updatesUntil }).from(moduleOrder)
      .where(and(eq(moduleOrder.userId, input.userId), eq(moduleOrder.moduleId, m.id), eq(moduleOrder.status, 'paid'))).limit(1);
    if (!order) throw new AppError('market.buyFirst');
    updatesUntil = order.updatesUntil;
  }
  const versions = (await db.select().from(moduleVersion).where(eq(moduleVersion.moduleId, m.id)))
    .filter((v) => (privileged || v.status === 'published') && v.packagePath)
    .sort((a, b) => compareVersions(b.version, a.version));
  const allowed = versions.filter((v) => privileged || v.publishTime <= updatesUntil);
  const chosen = input.version ? allowed.find((v) => v.version === input.version) : allowed[0];
  if (!chosen) {
    if (input.version && versions.some((v) => v.version === input.version)) throw new AppError('market.updatesExpired');
    throw new AppError('market.noPackage');
  }
  return { moduleId: m.id, uid: m.uid, versionId: chosen.id, version: chosen.version, packagePath: chosen.packagePath, fileName: `${m.uid}-${chosen.version}.zip`, size: chosen.packageSize, counted: !privileged };
}

/** Counts a download (and remembers who downloaded, which lets a free module's users review it). */
export async function recordDownload(db: Db, userId: number, grant: DownloadGrant): Promise<void> {
  await inTransaction(db, async (tx) => {
    // The module's page shows its downloads; the lists keep theirs until the next catalogue change.
    touched(marketModule(grant.uid));
    await tx.insert(moduleDownload).values({ moduleId: grant.moduleId, versionId: grant.versionId, userId, createTime: Math.floor(Date.now() / 1000) });
    await tx.update(module).set({ downloads: sql`${module.downloads} + 1` }).where(eq(module.id, grant.moduleId));
  });
}

/** The member's latest downloads, newest first (for the order list). */
export async function lastDownloads(db: Db, userId: number, limit = 50) {
  return db.select({ moduleId: moduleDownload.moduleId, time: moduleDownload.createTime }).from(moduleDownload)
    .where(eq(moduleDownload.userId, userId)).orderBy(desc(moduleDownload.id)).limit(limit);
}
