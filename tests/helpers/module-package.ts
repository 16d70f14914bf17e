// A valid module package for tests that upload one: `atrium.json` for the given uid and version
// (fields overridable) plus any other files, as a stored zip.
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { module, moduleVersion } from '../../src/lib/server/db/schema';
import { packageFile } from '../../src/lib/server/market/packages';
import { currentCloudStore } from '../../src/lib/server/upload/cloud-api';
import { PACKAGE_URL_TTL } from '../../src/lib/server/upload/cloud-packages';
import { keyOf } from '../../src/lib/server/upload/storage';
import { inspectPackage } from '../../src/lib/server/modules/inspect';
import type { Runtime } from '../../src/lib/server/runtime';
import { zip } from './files';

export function moduleManifest(uid: string, version = '1.0.0', over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    uid, version,
    name: { 'zh-cn': `${uid} 模块`, en: `${uid} module` },
    description: { 'zh-cn': '测试用模块。', en: 'A module for tests.' },
    atrium: '>=0.1.0',
    ...over,
  };
}

export function modulePackage(uid: string, version = '1.0.0', files: { name: string; data: Buffer }[] = [], over: Record<string, unknown> = {}): Buffer {
  return zip([{ name: 'atrium.json', data: Buffer.from(JSON.stringify(moduleManifest(uid, version, over))) }, ...files]);
}

/** A fixture folder (tests/fixtures/modules/<name>) as a stored zip, files in name order. */
export function fixturePackage(dir: string): Buffer {
  return zip(readdirSync(dir).sort().map((name) => ({ name, data: readFileSync(join(dir, name)) })));
}

/**
 * Lists a package in the site's market as a free module of `developerId`, published and reviewed
 * (its sha256 pinned), the package stored where the market keeps packages. Returns the module's id.
 */
export async function publishPackage(rt: Runtime, developerId: number, bytes: Buffer, name = 'Module'): Promise<number> {
  const inspected = await inspectPackage(bytes);
  if (!inspected.ok) throw new Error(JSON.stringify(inspected.problems));
  const { uid, version } = inspected.manifest;
  const packagePath = `test/${uid}-${version}-${inspected.sha256.slice(0, 8)}.zip`;
  const file = packageFile(rt, packagePath)!;
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, bytes);
  const t = Math.floor(Date.now() / 1000);
  const [m] = await rt.db.insert(module).values({ uid, developerId, name, category: 'tools', status: 'published', siteModule: 1, latestVersion: version, createTime: t, updateTime: t }).returning({ id: module.id });
  await rt.db.insert(moduleVersion).values({
    moduleId: m!.id, version, changelog: '', packagePath, packageName: `${uid}-${version}.zip`, packageSize: bytes.length, sha256: inspected.sha256,
    reviewedSha256: inspected.sha256, manifest: inspected.manifest, files: inspected.files, status: 'published', publishTime: t, createTime: t,
  });
  return m!.id;
}

/**
 * A signed GET URL of an object of the site's current cloud store (a package, or any other key, for
 * tests that swap keys), made by the store's `deliver` as `/api/modules/download` makes one.
 */
export async function signedPackageUrl(runtime: Pick<Runtime, 'site'>, path: string, fileName: string, seconds = PACKAGE_URL_TTL): Promise<string> {
  const { store, problem } = await currentCloudStore(runtime);
  if (!store) throw new Error(`no cloud store to sign with: ${problem}`);
  const delivery = await store.deliver(keyOf(path), fileName, seconds);
  if (delivery?.kind !== 'redirect') throw new Error(`${path} is not in the store`);
  return delivery.url;
}
