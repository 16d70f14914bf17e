// What a module package holds, read once for every path that receives one (local upload, cloud
// upload callback, version submission, review): the zip's central directory (today's checks stay:
// unsafe names, entry count, unpacked size), the manifest validated against the files, and the
// package's sha256 (what review pins and install verifies). Every problem is reported, not the first.
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import yauzl from 'yauzl';
import { translateAny, type AnyKey, type Locale } from '../../i18n';
import { AppError } from '../http';
import { MAX_ZIP_ENTRIES, MAX_ZIP_UNPACKED } from '../market/zip';
import { MANIFEST_FILE, MAX_MANIFEST_BYTES, readManifest, type Manifest, type PackageProblem } from './manifest';

export interface PackageFile {
  path: string;
  size: number;
}

export interface PackageInspection {
  manifest: Manifest;
  files: PackageFile[];
  sha256: string;
}

export type InspectResult = ({ ok: true } & PackageInspection) | { ok: false; problems: PackageProblem[] };

/** The sha256 of a file or of bytes, hex. */
export async function sha256Of(source: string | Buffer): Promise<string> {
  const hash = createHash('sha256');
  if (typeof source !== 'string') return hash.update(source).digest('hex');
  for await (const chunk of createReadStream(source)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

function openZip(source: string | Buffer): Promise<yauzl.ZipFile | null> {
  const options: yauzl.Options = { lazyEntries: true, autoClose: false, decodeStrings: true, validateEntrySizes: true, strictFileNames: true };
  return new Promise((resolve) => {
    const done = (err: Error | null, zip?: yauzl.ZipFile): void => resolve(err || !zip ? null : zip);
    if (typeof source === 'string') yauzl.open(source, options, done);
    else yauzl.fromBuffer(source, options, done);
  });
}

function readEntry(zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (err, stream) => {
      if (err || !stream) { reject(err ?? new Error('no stream')); return; }
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('error', reject);
      stream.on('end', () => resolve(Buffer.concat(chunks)));
    });
  });
}

/** Walks the central directory: the files (directories left out) or the verdict that this is no package. */
async function listEntries(zip: yauzl.ZipFile): Promise<{ files: PackageFile[]; manifest: yauzl.Entry | null; duplicates: string[] } | 'notZip' | 'empty'> {
  if (zip.entryCount === 0) return 'empty';
  if (zip.entryCount > MAX_ZIP_ENTRIES) return 'notZip';
  return new Promise((resolve) => {
    const files: PackageFile[] = [];
    const seen = new Set<string>();
    const duplicates: string[] = [];
    let manifest: yauzl.Entry | null = null;
    let unpacked = 0;
    let settled = false;
    const settle = (value: Awaited<ReturnType<typeof listEntries>>): void => {
      if (!settled) { settled = true; resolve(value); }
    };
    zip.on('entry', (entry: yauzl.Entry) => {
      unpacked += entry.uncompressedSize;
      if (unpacked > MAX_ZIP_UNPACKED) { settle('notZip'); return; }
      if (!entry.fileName.endsWith('/')) {
        if (seen.has(entry.fileName)) duplicates.push(entry.fileName);
        seen.add(entry.fileName);
        files.push({ path: entry.fileName, size: entry.uncompressedSize });
        if (entry.fileName === MANIFEST_FILE) manifest = entry;
      }
      zip.readEntry();
    });
    zip.on('end', () => settle(files.length ? { files, manifest, duplicates } : 'empty'));
    zip.on('error', () => settle('notZip'));
    zip.readEntry();
  });
}

/**
 * Everything a reviewer and an installer need to know about a package (a file path or its bytes):
 * its manifest, its files with their sizes and its sha256; or every problem that keeps it from being one.
 */
export async function inspectPackage(source: string | Buffer): Promise<InspectResult> {
  const zip = await openZip(source);
  if (!zip) return { ok: false, problems: [{ key: 'devstudio.package.notZip' }] };
  try {
    const listed = await listEntries(zip);
    if (listed === 'notZip' || listed === 'empty') return { ok: false, problems: [{ key: `devstudio.package.${listed}` }] };
    const problems: PackageProblem[] = listed.duplicates.map((file) => ({ key: 'devstudio.package.duplicate', values: { file } }));
    const entry = listed.manifest as yauzl.Entry | null;
    if (!entry) return { ok: false, problems: [...problems, { key: 'devstudio.manifest.missing', values: { file: MANIFEST_FILE } }] };
    if (entry.uncompressedSize > MAX_MANIFEST_BYTES) return { ok: false, problems: [...problems, { key: 'devstudio.manifest.tooLarge', values: { file: MANIFEST_FILE, limit: '64 KB' } }] };
    const bytes = await readEntry(zip, entry).catch(() => null);
    if (!bytes) return { ok: false, problems: [{ key: 'devstudio.package.notZip' }] };
    const read = readManifest(bytes.toString('utf8'), new Set(listed.files.map((f) => f.path)));
    if ('problems' in read) problems.push(...read.problems);
    if (problems.length || !('manifest' in read)) return { ok: false, problems };
    const files = [...listed.files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return { ok: true, manifest: read.manifest, files, sha256: await sha256Of(source) };
  } finally {
    zip.close();
  }
}

/** Every problem in the developer's language. */
export function describeProblems(problems: readonly PackageProblem[], locale: Locale): string[] {
  return problems.map((p) => translateAny(locale, p.key, p.values));
}

/**
 * The refusal of a package as an error reply: one problem is the message itself, several are
 * counted in the message; `data.problems` lists them all in the developer's language.
 */
export function packageRefused(problems: readonly PackageProblem[], locale: Locale, options: { listInMessage?: boolean } = {}): AppError {
  const data = { problems: describeProblems(problems, locale) };
  const [only] = problems;
  if (problems.length === 1 && only) return new AppError(only.key as AnyKey, { values: only.values, data });
  // Where only the message is shown (the upload queue of cloud uploads), it carries the list.
  return options.listInMessage
    ? new AppError('devstudio.package.refusedList', { values: { count: problems.length, list: data.problems.map((p, i) => `${i + 1}) ${p}`).join(' ') }, data })
    : new AppError('devstudio.package.refused', { values: { count: problems.length }, data });
}

/** `packageRefused` as the message and data of a reply made by hand (the streaming upload handler). */
export function refusalOf(problems: readonly PackageProblem[], locale: Locale): { msg: string; data: { problems: string[] } } {
  const [only] = problems;
  return {
    msg: problems.length === 1 && only ? translateAny(locale, only.key, only.values) : translateAny(locale, 'devstudio.package.refused', { count: problems.length }),
    data: { problems: describeProblems(problems, locale) },
  };
}

/**
 * Unpacks a package into `dir` (which must not exist yet): through a sibling temporary folder
 * renamed at the end, so a half-written folder is never taken for a package. Names were checked at
 * upload and yauzl refuses absolute and climbing ones; sizes are capped as when inspected.
 */
export async function unpackPackage(source: string | Buffer, dir: string): Promise<void> {
  const zip = await openZip(source);
  if (!zip) throw new Error('not a zip');
  const tmp = `${dir}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await mkdir(tmp, { recursive: true, mode: 0o755 });
    let unpacked = 0;
    await new Promise<void>((resolve, reject) => {
      zip.on('entry', (entry: yauzl.Entry) => {
        void (async () => {
          unpacked += entry.uncompressedSize;
          if (unpacked > MAX_ZIP_UNPACKED || zip.entryCount > MAX_ZIP_ENTRIES) throw new Error('package too large');
          const target = join(tmp, entry.fileName);
          if (relative(tmp, target).startsWith('..')) throw new Error(`unsafe name ${entry.fileName}`);
          if (entry.fileName.endsWith('/')) await mkdir(target, { recursive: true });
          else {
            await mkdir(dirname(target), { recursive: true });
            await writeFile(target, await readEntry(zip, entry), { mode: 0o644 });
          }
          zip.readEntry();
        })().catch(reject);
      });
      zip.on('end', resolve);
      zip.on('error', reject);
      zip.readEntry();
    });
    await mkdir(dirname(dir), { recursive: true });
    try {
      await rename(tmp, dir);
    } catch (err) {
      // Another process sharing the data folder (the CLI beside a server, two instances on one
      // disk) unpacked the same package first: its folder holds the same bytes (the name carries the sha256).
      const code = (err as NodeJS.ErrnoException).code;
      if ((code !== 'ENOTEMPTY' && code !== 'EEXIST') || !existsSync(dir)) throw err;
      await rm(tmp, { recursive: true, force: true });
    }
  } catch (err) {
    await rm(tmp, { recursive: true, force: true });
    throw err;
  } finally {
    zip.close();
  }
}
