import { and, eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { module, moduleInstall } from '../db/schema';

/** Site modules this codebase ships; the market lists and installs them. */
export const SITE_MODULES: Record<string, { version: string }> = {
  editor: { version: '1.0.0' },
};

/**
 * Whether a site module is installed. Read from the database on every call (one indexed row), so an
 * install from the CLI or another instance shows at once without a cache to invalidate.
 */
export async function isInstalled(db: Db, uid: string): Promise<boolean> {
  const [row] = await db.select({ uid: moduleInstall.uid }).from(moduleInstall).where(eq(moduleInstall.uid, uid)).limit(1);
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
  const [listed] = await db.select({ version: module.latestVersion }).from(module).where(and(eq(module.uid, uid), eq(module.status, 'published'))).limit(1);
  const version = listed?.version || known.version;
  const createTime = Math.floor(Date.now() / 1000);
  await db.insert(moduleInstall).values({ uid, version, installedBy, createTime })
    .onConflictDoUpdate({ target: moduleInstall.uid, set: { version, installedBy, createTime } });
  return version;
}

export async function uninstallModule(db: Db, uid: string): Promise<boolean> {
  const gone = await db.delete(moduleInstall).where(eq(moduleInstall.uid, uid)).returning({ uid: moduleInstall.uid });
  return gone.length > 0;
}
