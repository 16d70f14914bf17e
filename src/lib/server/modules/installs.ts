import { readFile } from 'node:fs/promises';
import { and, eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { module, moduleInstall, modulePackage, moduleVersion } from '../db/schema';
import type { Runtime } from '../runtime';
import { verifyForInstall } from '../market/package-review';

/** Site modules this codebase ships; the market lists and installs them. */
export const SITE_MODULES: Record<string, { version: string }> = {
  editor: { version: '1.0.0' },
};

/**
 * Whether a site module is installed. Read from the database on every call (one indexed row), so an
 * install from the CLI or another instance shows at once without a cache to invalidate.
 */
export async function isInstalled(db: Db, uid: string): Promise<boolean> {
  const [row] = await db.select({ uid: moduleInstall.uid }).from(moduleInstall).where(and(eq(moduleInstall.uid, uid), eq(moduleInstall.enabled, 1))).limit(1);
  return Boolean(row);
}

export async function installedModules(db: Db): Promise<{ uid: string; version: string; installedBy: number; createTime: number }[]> {
  return db.select().from(moduleInstall).orderBy(moduleInstall.uid);
}

/** The installed version of a site module, or null. */
export async function installedVersion(db: Db, uid: string): Promise<string | null> {
  const [row] = await db.select({ version: moduleInstall.version }).from(moduleInstall).where(eq(moduleInstall.uid, uid)).limit(1);
  return row?.version ?? null;
}

/**
 * Installs (or updates the recorded version of) a shipped site module; false for an unknown uid.
 * The version is the market's latest published one when the market lists the module, else the
 * version this codebase ships.
 */
export async function installModule(db: Db, uid: string, installedBy = 0): Promise<string | false> {
  const known = SITE_MODULES[uid];
  if (!known) return false;
  const [listed] = await db.select({ version: module.latestVersion, sha256: moduleVersion.reviewedSha256, packagePath: moduleVersion.packagePath }).from(module)
    .leftJoin(moduleVersion, and(eq(moduleVersion.moduleId, module.id), eq(moduleVersion.version, module.latestVersion), eq(moduleVersion.status, 'published')))
    .where(and(eq(module.uid, uid), eq(module.status, 'published'))).limit(1);
  const version = listed?.version || known.version;
  // The listed version's reviewed package (the editor's, built from modules/editor), run by every instance.
  const sha256 = listed?.packagePath && listed.sha256 ? listed.sha256 : '';
  const createTime = Math.floor(Date.now() / 1000);
  await db.insert(moduleInstall).values({ uid, version, installedBy, createTime, enabled: 1, sha256, reason: '', updateTime: createTime })
    .onConflictDoUpdate({ target: moduleInstall.uid, set: { version, installedBy, createTime, enabled: 1, sha256, reason: '', updateTime: createTime } });
  return version;
}

/**
 * `installModule` for the administrator's paths (console, market page, CLI): a listed version with
 * a package is installed only when its stored bytes still hash to the sha256 its reviewer approved
 * and its manifest accepts this Atrium (`verifyForInstall`); otherwise the refusal says why.
 */
export async function installReviewed(runtime: Pick<Runtime, 'db' | 'config' | 'site' | 'log'>, uid: string, installedBy = 0): Promise<string | false> {
  if (!SITE_MODULES[uid]) return false;
  const [listed] = await runtime.db.select({ v: moduleVersion }).from(module)
    .innerJoin(moduleVersion, and(eq(moduleVersion.moduleId, module.id), eq(moduleVersion.version, module.latestVersion), eq(moduleVersion.status, 'published')))
    .where(and(eq(module.uid, uid), eq(module.status, 'published'))).limit(1);
  if (listed) await keepPackage(runtime.db, uid, { version: listed.v.version, sha256: listed.v.reviewedSha256 }, await verifyForInstall(runtime, uid, listed.v));
  return installModule(runtime.db, uid, installedBy);
}

/** Copies a verified package (bytes, or the path of its file) into the shared package table every instance unpacks from (once per sha256). */
export async function keepPackage(db: Db, uid: string, v: { version: string; sha256: string }, source: string | Buffer | null): Promise<void> {
  if (!source) return;
  const bytes = typeof source === 'string' ? await readFile(source) : source;
  await db.insert(modulePackage).values({ sha256: v.sha256, uid, version: v.version, data: bytes.toString('base64'), size: bytes.length, createTime: Math.floor(Date.now() / 1000) })
    .onConflictDoNothing();
}

export async function uninstallModule(db: Db, uid: string): Promise<boolean> {
  const gone = await db.delete(moduleInstall).where(eq(moduleInstall.uid, uid)).returning({ uid: moduleInstall.uid });
  return gone.length > 0;
}
