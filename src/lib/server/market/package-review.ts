// The package's path from submission to install: a version is submitted with an inspected package
// (its manifest for this module and this version), approval pins the sha256 the reviewer saw, and
// install hashes the stored bytes again and refuses a package that is not the reviewed one.
import { and, eq } from 'drizzle-orm';
import packageJson from '../../../../package.json' with { type: 'json' };
import { module, moduleVersion } from '../db/schema';
import { AppError } from '../http';
import type { Runtime } from '../runtime';
import type { Locale } from '../../i18n';
import { inspectPackage, packageRefused, sha256Of, type PackageInspection } from '../modules/inspect';
import { worksWith, type Manifest, type PackageProblem } from '../modules/manifest';
import { readPackage } from '../upload/drivers';

/** The version of Atrium this codebase is (package.json), which manifests' `atrium` ranges are checked against. */
export const ATRIUM_VERSION: string = packageJson.version;

type PackageRuntime = Pick<Runtime, 'config' | 'site' | 'log'>;

/**
 * Inspects the package a developer submits with a version of module `uid`: every problem of the
 * package, plus a manifest for another module or another version than the form says, refused
 * together in the developer's language; else what the reviewer will see.
 */
export async function inspectSubmission(runtime: PackageRuntime, pkg: { url: string; size: number }, expected: { uid: string; version: string }, locale: Locale): Promise<PackageInspection> {
  const source = await readPackage(runtime, pkg.url, pkg.size);
  if (!source) throw new AppError('market.packageMissing');
  const inspected = await inspectPackage(source);
  if (!inspected.ok) throw packageRefused(inspected.problems, locale);
  const problems: PackageProblem[] = [];
  if (inspected.manifest.uid !== expected.uid) problems.push({ key: 'devstudio.package.uidMismatch', values: { found: inspected.manifest.uid, expected: expected.uid } });
  if (inspected.manifest.version !== expected.version) problems.push({ key: 'devstudio.package.versionMismatch', values: { found: inspected.manifest.version, expected: expected.version } });
  if (problems.length) throw packageRefused(problems, locale);
  return inspected;
}

/**
 * Before a reviewer's approval: each package about to be approved still hashes to what was
 * inspected at submission (the reviewer approves what they saw, or nothing).
 */
export async function checkUnchanged(runtime: PackageRuntime & Pick<Runtime, 'db'>, target: { type: 'module' | 'version'; id: number }): Promise<void> {
  const where = target.type === 'module'
    ? and(eq(moduleVersion.moduleId, target.id), eq(moduleVersion.status, 'review'))
    : eq(moduleVersion.id, target.id);
  const rows = await runtime.db.select({ id: moduleVersion.id, version: moduleVersion.version, packagePath: moduleVersion.packagePath, packageSize: moduleVersion.packageSize, sha256: moduleVersion.sha256, uid: module.uid })
    .from(moduleVersion).innerJoin(module, eq(module.id, moduleVersion.moduleId)).where(where);
  for (const v of rows) {
    if (!v.sha256) continue;
    const source = await readPackage(runtime, v.packagePath, v.packageSize);
    if (!source || (await sha256Of(source)) !== v.sha256) throw new AppError('developer.review.packageChanged', { values: { uid: v.uid, version: v.version } });
  }
}

/**
 * Before a site module is installed at a version with a package: the stored package must hash to
 * the sha256 its reviewer approved, and its manifest must accept this Atrium; otherwise refused.
 * Returns the verified package (bytes or file path), null for a version without one.
 */
export async function verifyForInstall(runtime: PackageRuntime, uid: string, v: { version: string; packagePath: string; packageSize: number; reviewedSha256: string; manifest: unknown }): Promise<string | Buffer | null> {
  if (!v.packagePath) return null;
  const values = { uid, version: v.version };
  if (!v.reviewedSha256) throw new AppError('market.packageNotReviewed', { values });
  const source = await readPackage(runtime, v.packagePath, v.packageSize);
  if (!source) throw new AppError('market.packageMissing');
  const actual = await sha256Of(source);
  if (actual !== v.reviewedSha256) {
    runtime.log.error('module package changed after review', { uid, version: v.version, reviewed: v.reviewedSha256, actual });
    throw new AppError('market.packageTampered', { values });
  }
  const range = (v.manifest as Manifest | null)?.atrium;
  if (range && !worksWith(range, ATRIUM_VERSION)) throw new AppError('market.packageAtrium', { values: { ...values, range, atrium: ATRIUM_VERSION } });
  return source;
}
