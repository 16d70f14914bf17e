// Is this file a zip archive with something in it? Read from its two ends only, so a package is
// checked without loading it: the local file header at offset 0 and the end-of-central-directory
// record (with its ZIP64 form) at the end.
import { crc32 } from 'node:zlib';

/** Reads `length` bytes at `offset` (fewer at the end of the file). */
export type ReadAt = (offset: number, length: number) => Promise<Buffer>;

export type ZipCheck = 'ok' | 'notZip' | 'empty';

const LOCAL_HEADER = 0x04034b50;
const CENTRAL_HEADER = 0x02014b50;
const END_RECORD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_END_RECORD = 0x06064b50;
const END_SIZE = 22;
const MAX_COMMENT = 0xffff;

/** Where the end-of-central-directory record starts in `tail` (the file's last bytes), or -1. */
function findEndRecord(tail: Buffer): number {
  // The record is the last one whose comment length reaches exactly the end of the file.
  for (let i = tail.length - END_SIZE; i >= 0; i--) {
    if (tail.readUInt32LE(i) === END_RECORD && i + END_SIZE + tail.readUInt16LE(i + 20) === tail.length) return i;
  }
  return -1;
}

/**
 * 'ok' for a zip with at least one entry, 'empty' for a well-formed zip without entries, 'notZip'
 * for anything else (wrong magic bytes, no end record, a central directory outside the file).
 */
export async function checkZip(read: ReadAt, size: number): Promise<ZipCheck> {
  const head = await read(0, 4);
  if (head.length < 4) return 'notZip';
  if (head.readUInt32LE(0) === END_RECORD) {
    // An archive without entries is only an end record: a zip, but nothing to install.
    const whole = await read(0, Math.min(size, END_SIZE + MAX_COMMENT));
    return whole.length === size && findEndRecord(whole) === 0 && whole.readUInt16LE(10) === 0 ? 'empty' : 'notZip';
  }
  if (size < 4 + END_SIZE || head.readUInt32LE(0) !== LOCAL_HEADER) return 'notZip';
  const tailLength = Math.min(size, END_SIZE + MAX_COMMENT);
  const tailStart = size - tailLength;
  const tail = await read(tailStart, tailLength);
  if (tail.length !== tailLength) return 'notZip';
  const at = findEndRecord(tail);
  if (at < 0) return 'notZip';
  const endOffset = tailStart + at;

  let entries = tail.readUInt16LE(at + 10);
  let directorySize = tail.readUInt32LE(at + 12);
  let directoryOffset = tail.readUInt32LE(at + 16);
  let directoryEnd = endOffset;
  if (entries === 0xffff || directorySize === 0xffffffff || directoryOffset === 0xffffffff) {
    // ZIP64: the locator sits just before the end record and points at the 64-bit record.
    if (endOffset < 20) return 'notZip';
    const locator = await read(endOffset - 20, 20);
    if (locator.length !== 20 || locator.readUInt32LE(0) !== ZIP64_LOCATOR) return 'notZip';
    const recordOffset = Number(locator.readBigUInt64LE(8));
    if (recordOffset + 56 > endOffset - 20) return 'notZip';
    const record = await read(recordOffset, 56);
    if (record.length !== 56 || record.readUInt32LE(0) !== ZIP64_END_RECORD) return 'notZip';
    entries = Number(record.readBigUInt64LE(32));
    directorySize = Number(record.readBigUInt64LE(40));
    directoryOffset = Number(record.readBigUInt64LE(48));
    directoryEnd = recordOffset;
  }
  if (directoryOffset + directorySize > directoryEnd) return 'notZip';
  if (entries === 0) return 'empty';
  if (directorySize < 46) return 'notZip';
  const first = await read(directoryOffset, 4);
  return first.length === 4 && first.readUInt32LE(0) === CENTRAL_HEADER ? 'ok' : 'notZip';
}

/** `checkZip` over bytes already in memory (tests, small files). */
export function checkZipBuffer(bytes: Buffer): Promise<ZipCheck> {
  return checkZip(async (offset, length) => bytes.subarray(offset, offset + length), bytes.length);
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
