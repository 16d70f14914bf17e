// Is this file a zip archive with something in it? yauzl reads its end record and central directory
// (not the entries' data), and checks every entry name: a package whose names are absolute, climb
// out with `..` or are not valid is no package. Entry count and total unpacked size are bounded.
import yauzl from 'yauzl';
import yazl from 'yazl';

export type ZipCheck = 'ok' | 'notZip' | 'empty';

/** More entries than any module needs: such an archive is refused unread. */
export const MAX_ZIP_ENTRIES = 10_000;
/** Most bytes all entries may unpack to (a zip bomb declares far more). */
export const MAX_ZIP_UNPACKED = 1024 * 1024 * 1024;

type Opened = (err: Error | null, zip?: yauzl.ZipFile) => void;

/** Walks the central directory of an opened archive to a verdict. */
function verdict(open: (options: yauzl.Options, done: Opened) => void): Promise<ZipCheck> {
  return new Promise((resolvePromise) => {
    open({ lazyEntries: true, autoClose: true, decodeStrings: true, validateEntrySizes: true, strictFileNames: true }, (err, zip) => {
      if (err || !zip) { resolvePromise('notZip'); return; }
      if (zip.entryCount === 0) { zip.close(); resolvePromise('empty'); return; }
      if (zip.entryCount > MAX_ZIP_ENTRIES) { zip.close(); resolvePromise('notZip'); return; }
      let settled = false;
      let unpacked = 0;
      const settle = (value: ZipCheck): void => {
        if (settled) return;
        settled = true;
        if (zip.isOpen) zip.close();
        resolvePromise(value);
      };
      zip.on('entry', (entry: yauzl.Entry) => {
        unpacked += entry.uncompressedSize;
        if (unpacked > MAX_ZIP_UNPACKED) { settle('notZip'); return; }
        zip.readEntry();
      });
      zip.on('end', () => settle('ok'));
      zip.on('error', () => settle('notZip'));
      zip.readEntry();
    });
  });
}

/**
 * 'ok' for a zip with at least one entry, 'empty' for a well-formed zip without entries, 'notZip'
 * for anything else (not a zip, a damaged or lying directory, unsafe entry names, too many
 * entries or too many unpacked bytes).
 */
export function checkZip(path: string): Promise<ZipCheck> {
  return verdict((options, done) => yauzl.open(path, options, done));
}

/** `checkZip` over bytes already in memory (tests, small files). */
export function checkZipBuffer(bytes: Buffer): Promise<ZipCheck> {
  return verdict((options, done) => yauzl.fromBuffer(bytes, options, done));
}

/** The modification time of a zip entry from its MS-DOS date and time (local time, as zip tools read it). */
export function fromDosDateTime(date: number, time: number): Date {
  return new Date(1980 + (date >> 9), ((date >> 5) & 15) - 1, date & 31, time >> 11, (time >> 5) & 63, (time & 31) * 2);
}

/**
 * A zip archive of small text files, stored without compression (for packages the code writes
 * itself), written by yazl; every entry is dated `modified` (default: now) in its MS-DOS stamp.
 */
export async function storedZip(files: readonly { name: string; text: string; modified?: Date }[], modified = new Date()): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const f of files) {
    zip.addBuffer(Buffer.from(f.text), f.name, { mtime: f.modified ?? modified, compress: false, forceDosTimestamp: true });
  }
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
