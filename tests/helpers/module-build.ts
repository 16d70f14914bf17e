// Builds this repository's modules for tests, as `npm run build` does (scripts/build-modules.mjs),
// into a folder of the test's own; and a variant of `math` at another version that renders visibly
// differently (its <math> elements carry the class `math-v<major>-<minor>`, e.g. `math-v1-1`), for
// tests of upgrade and rollback. Test-only: the variant is never built into dist/.
import { createWriteStream, mkdirSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import yauzl from 'yauzl';
import { eq } from 'drizzle-orm';
import { module, moduleVersion } from '../../src/lib/server/db/schema';
import { packageFile } from '../../src/lib/server/market/packages';
import { inspectPackage } from '../../src/lib/server/modules/inspect';
import type { Runtime } from '../../src/lib/server/runtime';
import { buildModule } from '../../scripts/build-modules.mjs';
import { ROOT } from './paths';

export const MATH_DIR = join(ROOT, 'modules', 'math');

export interface BuiltModule {
  uid: string;
  version: string;
  /** The package's path. */
  zip: string;
  /** The folder it was packed from (`<outDir>/<uid>`): `module:pack` of it gives the same bytes. */
  folder: string;
  bytes: number;
  sha256: string;
  files: string[];
}

/** The math module built into `outDir` as `math-<version>.zip` (1.0.0: the one `npm run build` makes). */
export function buildMath(outDir: string, version?: string): Promise<BuiltModule> {
  mkdirSync(outDir, { recursive: true });
  if (!version) return buildModule(MATH_DIR, { outDir });
  const [major, minor] = version.split('.');
  return buildModule(MATH_DIR, { outDir, version, define: { __MATH_EXTRA_CLASS__: JSON.stringify(`math-v${major}-${minor}`) } });
}

/** Unpacks a package into `dir` (as the module host expects it: the zip's root is the package folder). */
export async function unpackZip(zip: string, dir: string): Promise<void> {
  const root = resolve(dir);
  const file = await new Promise<yauzl.ZipFile>((ok, fail) => yauzl.open(zip, { lazyEntries: true }, (err, z) => (err || !z ? fail(err ?? new Error('no zip')) : ok(z))));
  await new Promise<void>((ok, fail) => {
    file.on('error', fail);
    file.on('end', ok);
    file.on('entry', (entry: yauzl.Entry) => {
      const target = resolve(root, entry.fileName);
      if (!target.startsWith(root + sep)) return fail(new Error(`unsafe entry ${entry.fileName}`));
      if (entry.fileName.endsWith('/')) return file.readEntry();
      mkdirSync(dirname(target), { recursive: true });
      file.openReadStream(entry, (err, stream) => {
        if (err || !stream) return fail(err ?? new Error('no stream'));
        pipeline(stream, createWriteStream(target)).then(() => file.readEntry(), fail);
      });
    });
    file.readEntry();
  });
  file.close();
}

/**
 * Builds `math` at `version` (it renders with a class of its own) and submits it in the site's
 * market, waiting for review: what an upgrade test approves later. Returns the version's id.
 */
export async function submitMathVersion(rt: Runtime, scratch: string, version: string): Promise<number> {
  const built = await buildMath(scratch, version);
  const bytes = readFileSync(built.zip);
  const inspected = await inspectPackage(bytes);
  if (!inspected.ok) throw new Error(JSON.stringify(inspected.problems));
  const packagePath = `test/math-${version}-${inspected.sha256.slice(0, 8)}.zip`;
  const file = packageFile(rt, packagePath)!;
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, bytes);
  const [m] = await rt.db.select({ id: module.id }).from(module).where(eq(module.uid, 'math'));
  const [v] = await rt.db.insert(moduleVersion).values({
    moduleId: m!.id, version, changelog: '编号公式', changelogEn: 'Numbered equations', packagePath, packageName: `math-${version}.zip`, packageSize: bytes.length,
    sha256: inspected.sha256, manifest: inspected.manifest, files: inspected.files, status: 'review', createTime: Math.floor(Date.now() / 1000),
  }).returning({ id: moduleVersion.id });
  return v!.id;
}
