// Packages built from this repository's `modules/` (scripts/build-modules.mjs →
// dist/modules/<uid>-<version>.zip) that the site publishes itself: the editor in every site's
// market (market/seed.ts), math and webhook in the demo's (market/demo.ts). The site stores such a
// package where uploaded packages go and pins its sha256 as reviewed: what it built is what it runs.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { and, eq } from 'drizzle-orm';
import semver from 'semver';
import type { Db } from '../db/client';
import type { ServerConfig } from '../env';
import { module, moduleVersion } from '../db/schema';
import { inspectPackage, type PackageInspection } from '../modules/inspect';
import { keepPackage } from '../modules/installs';
import { packageFile } from './packages';

/** The newest `<uid>-<version>.zip` in dist/modules, or null. */
export function builtPackage(root: string, uid: string): string | null {
  const dir = join(root, 'dist', 'modules');
  if (!existsSync(dir)) return null;
  const versions = readdirSync(dir).map((f) => new RegExp(`^${uid}-(\\d+\\.\\d+\\.\\d+)\\.zip$`).exec(f)?.[1]).filter((v): v is string => Boolean(v));
  const newest = versions.sort(semver.rcompare)[0];
  return newest ? join(dir, `${uid}-${newest}.zip`) : null;
}

/** `builtPackage`, building the module first when a checkout has not built it (null when it cannot). */
export function buildIfMissing(root: string, uid: string): string | null {
  const found = builtPackage(root, uid);
  if (found) return found;
  const script = join(root, 'scripts', 'build-modules.mjs');
  if (!existsSync(script) || !existsSync(join(root, 'modules', uid, 'atrium.json'))) return null;
  spawnSync(process.execPath, [script, join(root, 'modules', uid)], { cwd: root, stdio: 'ignore' });
  return builtPackage(root, uid);
}

/** Stores a package the site publishes itself where uploaded packages go (`<folder>/<sha1>.zip`). */
export async function storeOwnPackage(runtime: { config: Pick<ServerConfig, 'dataDir'> }, zip: Buffer, folder = 'demo'): Promise<{ sha1: string; packagePath: string }> {
  const sha1 = createHash('sha1').update(zip).digest('hex');
  const packagePath = `${folder}/${sha1}.zip`;
  const file = packageFile(runtime as Parameters<typeof packageFile>[0], packagePath)!;
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, zip);
  return { sha1, packagePath };
}

/** A built package, read and inspected: null with the reason when it is missing or not valid. */
export async function readBuilt(root: string, uid: string): Promise<{ zip: Buffer; inspected: PackageInspection } | { problem: string }> {
  const zipPath = buildIfMissing(root, uid);
  if (!zipPath) return { problem: `dist/modules/${uid}-<version>.zip is missing (run npm run build)` };
  const zip = await readFile(zipPath);
  const inspected = await inspectPackage(zip);
  if (!inspected.ok) return { problem: `${zipPath} is not a valid package (${inspected.problems.map((p) => p.key).join(', ')})` };
  return { zip, inspected };
}

/**
 * Publishes a built package as a version of module `moduleId`, reviewed (sha256 pinned) by the site
 * itself. A version already published with a package is left alone, unless `repin` (a first-party
 * module this codebase ships: a newer build of the same version replaces the package and its pin).
 * Raises the module's latest version when this one is newer. Returns what it did, or null.
 */
export async function publishBuilt(
  runtime: { db: Db; config: Pick<ServerConfig, 'dataDir'> }, moduleId: number, built: { zip: Buffer; inspected: PackageInspection },
  texts: { changelog: string; changelogEn: string }, opts: { folder?: string; repin?: boolean } = {},
): Promise<'added' | 'repinned' | null> {
  const { db } = runtime;
  const { zip, inspected } = built;
  const { manifest } = inspected;
  const [known] = await db.select({ id: moduleVersion.id, packagePath: moduleVersion.packagePath, reviewed: moduleVersion.reviewedSha256 }).from(moduleVersion)
    .where(and(eq(moduleVersion.moduleId, moduleId), eq(moduleVersion.version, manifest.version))).limit(1);
  // Every instance unpacks it from the shared package table: another instance's disk lacks the file.
  await keepPackage(db, manifest.uid, { version: manifest.version, sha256: inspected.sha256 }, zip);
  if (known && known.packagePath && (!opts.repin || known.reviewed === inspected.sha256)) return null;
  const { sha1, packagePath } = await storeOwnPackage(runtime, zip, opts.folder);
  const t = Math.floor(Date.now() / 1000);
  const pkg = {
    packagePath, packageName: `${manifest.uid}-${manifest.version}.zip`, packageSize: zip.length, sha1, minAtrium: semver.minVersion(manifest.atrium)?.version ?? '',
    // Built and published by the site itself: what it built is what is reviewed.
    sha256: inspected.sha256, reviewedSha256: inspected.sha256, manifest, files: inspected.files,
  };
  if (known) {
    await db.update(moduleVersion).set({ ...pkg, status: 'published' }).where(eq(moduleVersion.id, known.id));
  } else {
    await db.insert(moduleVersion).values({ moduleId, version: manifest.version, ...texts, ...pkg, status: 'published', publishTime: t, createTime: t }).onConflictDoNothing();
  }
  const [current] = await db.select({ latest: module.latestVersion }).from(module).where(eq(module.id, moduleId)).limit(1);
  if (current && (!semver.valid(current.latest) || semver.gt(manifest.version, current.latest))) {
    await db.update(module).set({ latestVersion: manifest.version, updateTime: t }).where(eq(module.id, moduleId));
  }
  return known ? 'repinned' : 'added';
}
