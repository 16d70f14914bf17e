// Which driver holds a stored module package, so callers (the download route, the review and
// install checks) ask that driver rather than telling local from cloud themselves: a relative
// path is in the local package folder, `/private/<id>/…` in the current cloud mode's store.
import { AppError } from '../http';
import type { Runtime } from '../runtime';
import { currentCloudStore } from './cloud-api';
import { isCloudPackage, PACKAGE_URL_TTL } from './cloud-packages';
import { localPackages } from './local-store';
import { keyOf, type Delivery, type StorageDriver } from './storage';

type PackageRuntime = Pick<Runtime, 'config' | 'site'>;

/** The driver and key of a version's `packagePath` (or a package row's `url`), or why its store cannot be reached. */
export async function packageStorage(runtime: PackageRuntime, packagePath: string): Promise<{ driver: StorageDriver; key: string } | { problem: string }> {
  if (!isCloudPackage(packagePath)) return { driver: localPackages(runtime), key: packagePath };
  const { store, problem } = await currentCloudStore(runtime);
  return store ? { driver: store, key: keyOf(packagePath) } : { problem };
}

/** A stored package's bytes (to hash or inspect), null when it cannot be read. */
export async function readPackage(runtime: PackageRuntime, packagePath: string, size: number): Promise<Buffer | null> {
  if (!packagePath) return null;
  const at = await packageStorage(runtime, packagePath);
  return 'problem' in at ? null : at.driver.read(at.key, size);
}

/**
 * How an authorised member gets a package: a signed URL valid `seconds` (cloud) or the file
 * streamed (local); `market.packageMissing` when it is not there or its store cannot be reached.
 */
export async function deliverPackage(runtime: PackageRuntime & Pick<Runtime, 'log'>, packagePath: string, fileName: string, seconds = PACKAGE_URL_TTL): Promise<Delivery> {
  const at = await packageStorage(runtime, packagePath);
  if ('problem' in at) {
    runtime.log.error('cloud package unreachable', { packagePath, problem: at.problem });
    throw new AppError('market.packageMissing');
  }
  const delivery = await at.driver.deliver(at.key, fileName, seconds);
  if (!delivery) throw new AppError('market.packageMissing');
  return delivery;
}
