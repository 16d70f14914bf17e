// A module's life on a site: install, enable/disable, upgrade, roll back, uninstall. Each step
// changes the wanted state (`module_install`), is written to the audit log and tells every instance
// on the bus, which reconciles within a moment (site-modules.ts). Nothing here runs module code.
// Modules are installed at a version whose stored package still hashes to the sha256 its reviewer
// approved. A site module this codebase ships (SITE_MODULES: the editor, built from modules/editor
// and listed with its package by the seed) installs by a database row alone only while its listing
// has no package (a checkout that could not build it).
import { and, eq, inArray, or } from 'drizzle-orm';
import { rm } from 'node:fs/promises';
import { module, moduleEvent, moduleInstall, moduleJob, moduleKv, modulePackage, moduleRemoteSource, moduleSetting, moduleVersion } from '../db/schema';
import { AppError } from '../http';
import type { Runtime } from '../runtime';
import { CLI_ACTOR, recordAction, type Actor } from '../admin/audit';
import { authoriseDownload } from '../market/downloads';
import { verifyForInstall } from '../market/package-review';
import { compareVersions } from '../../shared/market';
import { SITE_MODULES, installReviewed, keepPackage } from './installs';
import type { Manifest } from './manifest';
import { MODULES_CHANNEL, moduleFolders } from './site-modules';

type Rt = Pick<Runtime, 'db' | 'config' | 'site' | 'log' | 'bus' | 'invalidation'>;

const now = (): number => Math.floor(Date.now() / 1000);

export type InstalledRow = typeof moduleInstall.$inferSelect;

export interface InstallableVersion {
  moduleId: number;
  version: string;
  packagePath: string;
  packageSize: number;
  reviewedSha256: string;
  manifest: Manifest | null;
}

/** The published versions of a module with a package, newest first. */
async function publishedVersions(rt: Rt, uid: string): Promise<{ moduleId: number; price: number; scorePrice: number; versions: InstallableVersion[] } | null> {
  const [m] = await rt.db.select({ id: module.id, status: module.status, price: module.price, scorePrice: module.scorePrice }).from(module).where(eq(module.uid, uid)).limit(1);
  // A module installed from another market (modules/remote.ts) is kept delisted here: installable, never sold or downloaded.
  if (!m || (m.status !== 'published' && !(m.status === 'delisted' && (await fromRemote(rt, uid))))) return null;
  const rows = await rt.db.select().from(moduleVersion).where(and(eq(moduleVersion.moduleId, m.id), eq(moduleVersion.status, 'published')));
  const versions = rows.filter((v) => v.packagePath && v.manifest)
    .sort((a, b) => compareVersions(b.version, a.version))
    .map((v) => ({ moduleId: m.id, version: v.version, packagePath: v.packagePath, packageSize: v.packageSize, reviewedSha256: v.reviewedSha256, manifest: v.manifest as Manifest }));
  return { moduleId: m.id, price: m.price, scorePrice: m.scorePrice, versions };
}

/** Whether `uid` came from another Atrium's market (module:remote:install). */
async function fromRemote(rt: Pick<Rt, 'db'>, uid: string): Promise<boolean> {
  return (await rt.db.select({ uid: moduleRemoteSource.uid }).from(moduleRemoteSource).where(eq(moduleRemoteSource.uid, uid)).limit(1)).length > 0;
}

/** Whether a module installs as a package (its market listing has a published version with a manifest). */
export async function isPackaged(rt: Rt, uid: string): Promise<boolean> {
  return Boolean((await publishedVersions(rt, uid))?.versions.length);
}

export async function installedRow(rt: Pick<Rt, 'db'>, uid: string): Promise<InstalledRow | null> {
  const [row] = await rt.db.select().from(moduleInstall).where(eq(moduleInstall.uid, uid)).limit(1);
  return row ?? null;
}

async function changed(rt: Rt, actor: Actor, action: string, uid: string, before: unknown, after: unknown): Promise<void> {
  // The CLI writes one row per command itself (src/server/cli.ts), the console's modules route
  // (`silent`) too: not a second one here.
  if (actor !== CLI_ACTOR && !silent.has(actor)) await recordAction(rt.db, actor, `module:${action}`, uid, before, after);
  await rt.bus.publish(MODULES_CHANNEL, { uid, change: action });
  await rt.invalidation.touched('site', 'ask', 'md', 'modules');
}

/** Actors whose caller writes the audit row itself (see `quietly`). */
const silent = new WeakSet<Actor>();

/** The same actor, for a caller that records the step in the audit log itself. */
export function quietly(actor: Actor): Actor {
  const copy = { ...actor };
  silent.add(copy);
  return copy;
}

const summary = (row: InstalledRow | null): string => (row ? `${row.version}${row.enabled ? '' : ' (disabled)'}` : 'not installed');

/**
 * Picks the version to install: the one asked for, or the newest the actor may have (a paid module
 * needs a paid order whose updates cover the version; the CLI, acting for the operator, skips that,
 * and so does a module from another market, whose token's member was authorised there).
 */
async function chooseVersion(rt: Rt, uid: string, actor: Actor, version?: string): Promise<InstallableVersion> {
  const listed = await publishedVersions(rt, uid);
  if (!listed) throw new AppError('market.notFound');
  let candidates = listed.versions;
  // A module from another market was authorised there (the token's member may have it): no order here.
  if (actor.id !== 0 && !(await fromRemote(rt, uid))) {
    const grant = await authoriseDownload(rt.db, { userId: actor.id, uid, version, reviewer: false });
    candidates = candidates.filter((v) => compareVersions(v.version, grant.version) <= 0);
  }
  const chosen = version ? candidates.find((v) => v.version === version) : candidates[0];
  if (!chosen) throw new AppError(version ? 'modules.lifecycle.noVersion' : 'market.noPackage', { values: { uid, version: version ?? '' } });
  // The stored bytes must still be what the reviewer approved, for an Atrium the manifest accepts.
  await keepPackage(rt.db, uid, { version: chosen.version, sha256: chosen.reviewedSha256 }, await verifyForInstall(rt, uid, chosen));
  return chosen;
}

/** Installs (or re-installs at another version) a packaged module, enabled. Returns the version. */
export async function installPackaged(rt: Rt, uid: string, actor: Actor, version?: string): Promise<string> {
  const chosen = await chooseVersion(rt, uid, actor, version);
  const before = await installedRow(rt, uid);
  const previousVersion = before && before.version !== chosen.version ? before.version : (before?.previousVersion ?? '');
  await rt.db.insert(moduleInstall).values({
    uid, version: chosen.version, installedBy: actor.id, createTime: now(), enabled: 1, sha256: chosen.reviewedSha256, previousVersion, reason: '', updateTime: now(),
  }).onConflictDoUpdate({
    target: moduleInstall.uid,
    set: { version: chosen.version, installedBy: actor.id, enabled: 1, sha256: chosen.reviewedSha256, previousVersion, reason: '', updateTime: now() },
  });
  await changed(rt, actor, before ? (before.version === chosen.version ? 'install' : 'upgrade') : 'install', uid, summary(before), chosen.version);
  return chosen.version;
}

/** Upgrades to the newest reviewed version (or the one given); refuses when that is not newer. */
export async function upgradeModule(rt: Rt, uid: string, actor: Actor, version?: string): Promise<string> {
  const before = await installedRow(rt, uid);
  if (!before || !before.sha256) throw new AppError('market.notInstalled', { values: { uid } });
  const chosen = await chooseVersion(rt, uid, actor, version);
  if (compareVersions(chosen.version, before.version) <= 0) throw new AppError('modules.lifecycle.upToDate', { values: { uid, version: before.version } });
  return installPackaged(rt, uid, actor, chosen.version);
}

/** Goes back to the version before the last upgrade (it must still be published and unchanged). */
export async function rollbackModule(rt: Rt, uid: string, actor: Actor): Promise<string> {
  const before = await installedRow(rt, uid);
  if (!before || !before.sha256) throw new AppError('market.notInstalled', { values: { uid } });
  if (!before.previousVersion) throw new AppError('modules.lifecycle.noPrevious', { values: { uid } });
  const listed = await publishedVersions(rt, uid);
  const target = listed?.versions.find((v) => v.version === before.previousVersion);
  if (!target) throw new AppError('modules.lifecycle.noVersion', { values: { uid, version: before.previousVersion } });
  await keepPackage(rt.db, uid, { version: target.version, sha256: target.reviewedSha256 }, await verifyForInstall(rt, uid, target));
  await rt.db.update(moduleInstall).set({ version: target.version, sha256: target.reviewedSha256, previousVersion: before.version, enabled: 1, reason: '', updateTime: now() })
    .where(eq(moduleInstall.uid, uid));
  await changed(rt, actor, 'rollback', uid, summary(before), target.version);
  return target.version;
}

/** Enables or disables an installed module (its data and version stay). */
export async function setModuleEnabled(rt: Rt, uid: string, enabled: boolean, actor: Actor, reason = ''): Promise<void> {
  const before = await installedRow(rt, uid);
  if (!before) throw new AppError('market.notInstalled', { values: { uid } });
  await rt.db.update(moduleInstall).set({ enabled: enabled ? 1 : 0, reason: enabled ? '' : reason.slice(0, 255), updateTime: now() }).where(eq(moduleInstall.uid, uid));
  await changed(rt, actor, enabled ? 'enable' : 'disable', uid, summary(before), enabled ? 'enabled' : `disabled${reason ? `: ${reason}` : ''}`);
}

/** Disables every installed module (the CLI's safe mode), with the reason. Returns their uids. */
export async function disableAll(rt: Rt, actor: Actor, reason: string): Promise<string[]> {
  const rows = await rt.db.update(moduleInstall).set({ enabled: 0, reason: reason.slice(0, 255), updateTime: now() })
    .where(and(eq(moduleInstall.enabled, 1))).returning({ uid: moduleInstall.uid });
  if (actor !== CLI_ACTOR) for (const r of rows) await recordAction(rt.db, actor, 'module:disable', r.uid, 'enabled', `disabled: ${reason}`);
  await rt.bus.publish(MODULES_CHANNEL, { change: 'disable-all' });
  await rt.invalidation.touched('site', 'ask', 'md', 'modules');
  return rows.map((r) => r.uid);
}

/**
 * Uninstalls a module. Its data (key-value store, settings, data folder) stays unless `purge`, so
 * installing it again finds what it had.
 */
export async function uninstall(rt: Rt, uid: string, actor: Actor, purge = false): Promise<boolean> {
  const gone = await rt.db.delete(moduleInstall).where(eq(moduleInstall.uid, uid)).returning();
  // A shipped module's bytes stay: the site published them itself, and an instance whose disk lacks the file installs from them.
  if (!SITE_MODULES[uid]) await rt.db.delete(modulePackage).where(eq(modulePackage.uid, uid));
  await rt.db.delete(moduleEvent).where(eq(moduleEvent.moduleUid, uid));
  await rt.db.delete(moduleJob).where(eq(moduleJob.moduleUid, uid));
  if (purge) {
    await rt.db.delete(moduleKv).where(eq(moduleKv.moduleUid, uid));
    await rt.db.delete(moduleSetting).where(eq(moduleSetting.moduleUid, uid));
    await rm(moduleFolders(rt.config.dataDir, uid).dataDir, { recursive: true, force: true });
  }
  if (!gone.length && !purge) return false;
  await changed(rt, actor, purge ? 'purge' : 'uninstall', uid, summary(gone[0] ?? null), purge ? 'uninstalled, data removed' : 'uninstalled');
  return gone.length > 0;
}

/** Every installed module with its wanted state. */
export async function installedList(rt: Pick<Rt, 'db'>): Promise<InstalledRow[]> {
  return rt.db.select().from(moduleInstall).orderBy(moduleInstall.uid);
}

/** Whether `uid` is a module this site can install (shipped in the codebase, or packaged in the market). */
export async function installable(rt: Rt, uid: string): Promise<'builtin' | 'package' | null> {
  if (await isPackaged(rt, uid)) return 'package';
  return SITE_MODULES[uid] ? 'builtin' : null;
}

export interface StepResult {
  uid: string;
  installed: boolean;
  enabled: boolean;
  version: string | null;
  messageKey: 'market.installed' | 'market.uninstalled' | 'modules.lifecycle.upgraded' | 'modules.lifecycle.rolledBack' | 'modules.lifecycle.enabled' | 'modules.lifecycle.disabled';
}

/** One step from the console or the market page (the CLI calls the functions above directly). */
export async function moduleStep(rt: Rt, input: { uid: string; action: 'install' | 'upgrade' | 'rollback' | 'enable' | 'disable' | 'uninstall' | 'purge'; version?: string }, actor: Actor): Promise<StepResult> {
  const { uid } = input;
  switch (input.action) {
    case 'install': {
      const kind = await installable(rt, uid);
      if (!kind) throw new AppError('market.notSiteModule');
      if (kind === 'builtin') {
        const version = await installReviewed(rt, uid, actor.id);
        if (!version) throw new AppError('market.notSiteModule');
        await changed(rt, actor, 'install', uid, 'not installed', version);
        return { uid, installed: true, enabled: true, version, messageKey: 'market.installed' };
      }
      const version = await installPackaged(rt, uid, actor, input.version);
      return { uid, installed: true, enabled: true, version, messageKey: 'market.installed' };
    }
    case 'upgrade': {
      const version = await upgradeModule(rt, uid, actor, input.version);
      return { uid, installed: true, enabled: true, version, messageKey: 'modules.lifecycle.upgraded' };
    }
    case 'rollback': {
      const version = await rollbackModule(rt, uid, actor);
      return { uid, installed: true, enabled: true, version, messageKey: 'modules.lifecycle.rolledBack' };
    }
    case 'enable':
    case 'disable': {
      await setModuleEnabled(rt, uid, input.action === 'enable', actor, input.action === 'disable' ? 'disabled by an administrator' : '');
      const row = await installedRow(rt, uid);
      return { uid, installed: true, enabled: input.action === 'enable', version: row?.version ?? null, messageKey: input.action === 'enable' ? 'modules.lifecycle.enabled' : 'modules.lifecycle.disabled' };
    }
    default: {
      if (!(await uninstall(rt, uid, actor, input.action === 'purge')) && input.action === 'uninstall') throw new AppError('market.notInstalled', { values: { uid } });
      return { uid, installed: false, enabled: false, version: null, messageKey: 'market.uninstalled' };
    }
  }
}

/** A module as the console's Modules section shows it. */
export interface ConsoleModule {
  uid: string;
  name: string;
  /** Shipped in this codebase (the editor): installs without a package. */
  builtin: boolean;
  installed: InstalledRow | null;
  /** The newest reviewed version with a package ('' : none). */
  latest: string;
  manifest: Manifest | null;
}

/** The site modules: built-in ones, installed ones and every market module with a reviewed package. */
export async function consoleModules(rt: Pick<Rt, 'db'>, locale: 'zh-cn' | 'en'): Promise<ConsoleModule[]> {
  const rows = await rt.db.select({ uid: module.uid, name: module.name, nameEn: module.nameEn, v: moduleVersion }).from(module)
    .innerJoin(moduleVersion, and(eq(moduleVersion.moduleId, module.id), eq(moduleVersion.status, 'published')))
    .where(or(eq(module.status, 'published'), inArray(module.uid, rt.db.select({ uid: moduleRemoteSource.uid }).from(moduleRemoteSource))));
  const installed = new Map((await installedList(rt)).map((r) => [r.uid, r]));
  const byUid = new Map<string, ConsoleModule>();
  for (const uid of Object.keys(SITE_MODULES)) byUid.set(uid, { uid, name: uid, builtin: true, installed: installed.get(uid) ?? null, latest: '', manifest: null });
  for (const r of rows) {
    if (!r.v.packagePath || !r.v.manifest || !r.v.reviewedSha256) continue;
    const entry = byUid.get(r.uid) ?? { uid: r.uid, name: r.uid, builtin: Boolean(SITE_MODULES[r.uid]), installed: installed.get(r.uid) ?? null, latest: '', manifest: null };
    entry.name = (locale === 'en' && r.nameEn) || r.name;
    // A shipped module with a reviewed package (the editor) installs, upgrades and is purged as a package.
    entry.builtin = false;
    if (!entry.latest || compareVersions(r.v.version, entry.latest) > 0) {
      entry.latest = r.v.version;
      entry.manifest = r.v.manifest as Manifest;
    }
    byUid.set(r.uid, entry);
  }
  for (const [uid, row] of installed) if (!byUid.has(uid)) byUid.set(uid, { uid, name: uid, builtin: false, installed: row, latest: '', manifest: null });
  return [...byUid.values()].sort((a, b) => Number(Boolean(b.installed)) - Number(Boolean(a.installed)) || (a.uid < b.uid ? -1 : 1));
}
