// `module:pack <folder> [out.zip]`: a module folder as a package zip, reproducibly. The same folder
// gives the same bytes (so the same sha256) on every machine and every run: entries sorted by path,
// every one dated 1980-01-01 00:00 (the first MS-DOS date; built from local fields, so the stamp
// does not depend on the time zone), the same file mode, directories left implicit. The package is
// inspected as an upload would be, so an author sees every problem before uploading.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import yazl from 'yazl';
import { describeProblems, inspectPackage, type PackageInspection } from './inspect';
import type { PackageProblem } from './manifest';

/** The one timestamp of every entry. */
const EPOCH = new Date(1980, 0, 1, 0, 0, 0);

/** Names never packed: version control, editors' and systems' litter, dependencies. */
const SKIPPED = new Set(['.git', '.hg', '.svn', '.DS_Store', 'Thumbs.db', 'node_modules']);

/** Every regular file under `root`, as forward-slash paths relative to it, in byte order. */
async function listFiles(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      if (SKIPPED.has(entry.name)) continue;
      const full = join(dir, entry.name);
      if (entry.isDirectory()) await walk(full);
      else if (entry.isFile()) out.push(relative(root, full).split(sep).join('/'));
    }
  };
  await walk(root);
  return out.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The zip of a folder, byte-for-byte the same for the same files. */
export async function packFolder(folder: string): Promise<Buffer> {
  const root = resolve(folder);
  const zip = new yazl.ZipFile();
  for (const path of await listFiles(root)) {
    zip.addBuffer(await readFile(join(root, path)), path, { mtime: EPOCH, mode: 0o100644, compress: true, forceDosTimestamp: true });
  }
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Packs and inspects a folder: the zip with what an upload would see, or every problem. */
export async function packModule(folder: string): Promise<{ zip: Buffer; inspection: PackageInspection } | { problems: PackageProblem[] }> {
  const zip = await packFolder(folder);
  const inspected = await inspectPackage(zip);
  return inspected.ok ? { zip, inspection: inspected } : { problems: inspected.problems };
}

/**
 * The CLI command: writes `<uid>-<version>.zip` (or `out`) and prints its sha256, or prints every
 * problem and writes nothing. `path` resolves what the operator typed against where they typed it.
 */
export async function packCommand(args: string[], path: (p: string) => string, io: { out: (t: string) => void; err: (t: string) => void }): Promise<number> {
  const [folder, out] = args;
  if (!folder) {
    io.err('Usage: module:pack <folder> [out.zip]   a module folder (atrium.json at its root) as a reproducible package\n');
    return 2;
  }
  const packed = await packModule(path(folder)).catch((err: unknown) => ({ error: err instanceof Error ? err.message : String(err) }));
  if ('error' in packed) {
    io.err(`Cannot read ${folder}: ${packed.error}\n`);
    return 1;
  }
  if ('problems' in packed) {
    io.err(`${folder} is not a valid module package:\n${describeProblems(packed.problems, 'en').map((p) => `  - ${p}\n`).join('')}`);
    return 1;
  }
  const { manifest, sha256, files } = packed.inspection;
  const target = path(out ?? `${manifest.uid}-${manifest.version}.zip`);
  await writeFile(target, packed.zip);
  io.out(`${target}\n  ${manifest.uid} ${manifest.version}, ${files.length} files, ${packed.zip.length} bytes\n  sha256 ${sha256}\n`);
  return 0;
}
