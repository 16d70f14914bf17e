import { eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { moduleInstall } from '../db/schema';

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

/** Installs (or re-records the version of) a shipped site module; false for an unknown uid. */
export async function installModule(db: Db, uid: string, installedBy = 0): Promise<boolean> {
  const known = SITE_MODULES[uid];
  if (!known) return false;
  const createTime = Math.floor(Date.now() / 1000);
  await db.insert(moduleInstall).values({ uid, version: known.version, installedBy, createTime })
    .onConflictDoUpdate({ target: moduleInstall.uid, set: { version: known.version, installedBy, createTime } });
  return true;
}

export async function uninstallModule(db: Db, uid: string): Promise<boolean> {
  const gone = await db.delete(moduleInstall).where(eq(moduleInstall.uid, uid)).returning({ uid: moduleInstall.uid });
  return gone.length > 0;
}
