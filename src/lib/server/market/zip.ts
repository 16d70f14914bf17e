// Is this file a zip archive with something in it? yauzl reads its end record and central directory
// (not the entries' data), and checks every entry name: a package whose names are absolute, climb
// out with `..` or are not valid is no package. Entry count and total unpacked size are bounded.
import { crc32 } from 'node:zlib';
import yauzl from 'yauzl';

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

/**
 * A moment as MS-DOS date and time (the zip entry's modification stamp, 2-second steps, in the
 * process's local time as zip tools read it). Dates before 1980 cannot be written: they become 1980-01-01.
 */
export function dosDateTime(at: Date): { date: number; time: number } {
  if (at.getFullYear() < 1980) return { date: (1 << 5) | 1, time: 0 };
  return {
    date: ((at.getFullYear() - 1980) << 9) | ((at.getMonth() + 1) << 5) | at.getDate(),
    time: (at.getHours() << 11) | (at.getMinutes() << 5) | Math.floor(at.getSeconds() / 2),
  };
}

/** The modification time of a zip entry written by `dosDateTime` (local time). */
export function fromDosDateTime(date: number, time: number): Date {
  return new Date(1980 + (date >> 9), ((date >> 5) & 15) - 1, date & 31, time >> 11, (time >> 5) & 63, (time & 31) * 2);
}

/**
 * A zip archive of small text files, stored without compression (for packages the code writes
 * itself); every entry is dated `modified` (default: now).
 */
export function storedZip(files: readonly { name: string; text: string; modified?: Date }[], modified = new Date()): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const f of files) {
    const data = Buffer.from(f.text);
    const name = Buffer.from(f.name);
    const crc = crc32(data);
    const stamp = dosDateTime(f.modified ?? modified);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0); local.writeUInt16LE(20, 4); local.writeUInt16LE(0x0800, 6); local.writeUInt32LE(crc, 14);
    local.writeUInt16LE(stamp.time, 10); local.writeUInt16LE(stamp.date, 12);
    local.writeUInt32LE(data.length, 18); local.writeUInt32LE(data.length, 22); local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0); central.writeUInt16LE(20, 4); central.writeUInt16LE(20, 6); central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(stamp.time, 12); central.writeUInt16LE(stamp.date, 14);
    central.writeUInt32LE(crc, 16); central.writeUInt32LE(data.length, 20); central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(name.length, 28); central.writeUInt32LE(offset, 42);
    locals.push(local, name, data);
    centrals.push(central, name);
    offset += local.length + name.length + data.length;
  }
  const dir = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0); end.writeUInt16LE(files.length, 8); end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(dir.length, 12); end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dir, end]);
}
