// The developer studio's pure parts: the zip check, yuan → cents, the studio schemas, month windows
// in the site's time zone, the next version, and the earnings chart's scale.
import { crc32, deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { checkZipBuffer, MAX_ZIP_ENTRIES } from '../../src/lib/server/market/zip';
import { chartBars, dayStart, monthWindows, nextVersion, niceCeiling, zonedMidnight } from '../../src/lib/server/market/studio';
import { ModuleInput, SalesInput, VersionInput, WithdrawInput, splitTags, yuanToCents } from '../../src/lib/shared/validation/studio';

/** A minimal zip writer (stored or deflated entries, optional archive comment, optional ZIP64 end records). */
function zip(files: { name: string; data: Buffer; deflate?: boolean }[], opts: { comment?: string; zip64?: boolean } = {}): Buffer {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const f of files) {
    const name = Buffer.from(f.name);
    const body = f.deflate ? deflateRawSync(f.data) : f.data;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0); local.writeUInt16LE(20, 4); local.writeUInt16LE(f.deflate ? 8 : 0, 8);
    local.writeUInt32LE(crc32(f.data), 14); local.writeUInt32LE(body.length, 18); local.writeUInt32LE(f.data.length, 22); local.writeUInt16LE(name.length, 26);
    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(0x02014b50, 0); entry.writeUInt16LE(20, 4); entry.writeUInt16LE(20, 6); entry.writeUInt16LE(f.deflate ? 8 : 0, 10);
    entry.writeUInt32LE(crc32(f.data), 16); entry.writeUInt32LE(body.length, 20); entry.writeUInt32LE(f.data.length, 24); entry.writeUInt16LE(name.length, 28);
    entry.writeUInt32LE(offset, 42);
    parts.push(local, name, body);
    central.push(entry, name);
    offset += 30 + name.length + body.length;
  }
  const directory = Buffer.concat(central);
  const comment = Buffer.from(opts.comment ?? '');
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(opts.zip64 ? 0xffff : files.length, 8); end.writeUInt16LE(opts.zip64 ? 0xffff : files.length, 10);
  end.writeUInt32LE(opts.zip64 ? 0xffffffff : directory.length, 12); end.writeUInt32LE(opts.zip64 ? 0xffffffff : offset, 16);
  end.writeUInt16LE(comment.length, 20);
  const zip64: Buffer[] = [];
  if (opts.zip64) {
    const record = Buffer.alloc(56);
    record.writeUInt32LE(0x06064b50, 0); record.writeBigUInt64LE(44n, 4); record.writeUInt16LE(45, 12); record.writeUInt16LE(45, 14);
    record.writeBigUInt64LE(BigInt(files.length), 24); record.writeBigUInt64LE(BigInt(files.length), 32);
    record.writeBigUInt64LE(BigInt(directory.length), 40); record.writeBigUInt64LE(BigInt(offset), 48);
    const locator = Buffer.alloc(20);
    locator.writeUInt32LE(0x07064b50, 0); locator.writeBigUInt64LE(BigInt(offset + directory.length), 8); locator.writeUInt32LE(1, 16);
    zip64.push(record, locator);
  }
  return Buffer.concat([...parts, directory, ...zip64, end, comment]);
}

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
const manifest = { name: 'module.json', data: Buffer.from('{"uid":"hello"}') };

describe('checkZip', () => {
  it('accepts an archive with entries, stored or deflated, with or without a comment, and ZIP64', async () => {
    expect(await checkZipBuffer(zip([manifest]))).toBe('ok');
    expect(await checkZipBuffer(zip([manifest, { name: 'src/index.js', data: Buffer.from('export {}\n'.repeat(100)), deflate: true }]))).toBe('ok');
    expect(await checkZipBuffer(zip([manifest], { comment: 'built by atrium' }))).toBe('ok');
    expect(await checkZipBuffer(zip([manifest], { zip64: true }))).toBe('ok');
  });

  it('calls an archive without entries empty', async () => {
    expect(await checkZipBuffer(zip([]))).toBe('empty');
    expect(await checkZipBuffer(zip([], { comment: 'nothing here' }))).toBe('empty');
  });

  it('refuses what only looks like a zip', async () => {
    expect(await checkZipBuffer(Buffer.alloc(0))).toBe('notZip');
    expect(await checkZipBuffer(PNG)).toBe('notZip');
    const good = zip([manifest]);
    // The local header magic at 0 but no end record: a truncated download.
    expect(await checkZipBuffer(good.subarray(0, good.length - 10))).toBe('notZip');
    // Bytes after the end record that its comment length does not account for.
    expect(await checkZipBuffer(Buffer.concat([good, Buffer.from('trailing')]))).toBe('notZip');
    // A central directory pointing past the end record.
    const broken = Buffer.from(good);
    broken.writeUInt32LE(good.length, good.length - 6);
    expect(await checkZipBuffer(broken)).toBe('notZip');
    // An end record alone with an entry count is not an empty zip either.
    const lying = zip([]);
    lying.writeUInt16LE(1, 10);
    expect(await checkZipBuffer(lying)).toBe('notZip');
    expect(await checkZipBuffer(Buffer.concat([Buffer.from('PK\x03\x04', 'latin1'), Buffer.alloc(40)]))).toBe('notZip');
  });

  it('refuses unsafe entry names, too many entries and a declared zip bomb', async () => {
    expect(await checkZipBuffer(zip([manifest, { name: '../../etc/cron.d/x', data: Buffer.from('x') }]))).toBe('notZip');
    expect(await checkZipBuffer(zip([{ name: '/etc/passwd', data: Buffer.from('x') }]))).toBe('notZip');
    expect(await checkZipBuffer(zip([{ name: 'src\\..\\..\\x.js', data: Buffer.from('x') }]))).toBe('notZip');
    const many = Array.from({ length: MAX_ZIP_ENTRIES + 1 }, (_, i) => ({ name: `f${i}`, data: Buffer.alloc(0) }));
    expect(await checkZipBuffer(zip(many))).toBe('notZip');
    expect(await checkZipBuffer(zip(many.slice(0, 100)))).toBe('ok');
    // Two entries that together claim more than MAX_ZIP_UNPACKED bytes once unpacked.
    const bomb = zip([{ name: 'a', data: Buffer.from('a'), deflate: true }, { name: 'b', data: Buffer.from('b'), deflate: true }]);
    const directory = bomb.length - 22 - 2 * 47;
    bomb.writeUInt32LE(0x30000000, directory + 24);
    expect(await checkZipBuffer(bomb)).toBe('ok');
    bomb.writeUInt32LE(0x30000000, directory + 47 + 24);
    expect(await checkZipBuffer(bomb)).toBe('notZip');
  });
});

describe('money and schemas', () => {
  it('turns decimal yuan into cents without float rounding', () => {
    expect(yuanToCents('0')).toBe(0);
    expect(yuanToCents('0.01')).toBe(1);
    expect(yuanToCents('12.5')).toBe(1250);
    expect(yuanToCents('19.99')).toBe(1999);
    expect(yuanToCents('1.10')).toBe(110);
    expect(yuanToCents('9999999.99')).toBe(999_999_999);
  });

  it('parses a module: lower-cased uid, cents, tags once each, both prices 0 = free', () => {
    const parsed = ModuleInput.parse({ uid: ' My-Module ', name: 'Hello', description: '# Hi', category: 'tools', tags: ['a', 'A', 'b'], price: '19.9', score_price: '200' });
    expect(parsed).toMatchObject({ uid: 'my-module', price: 1990, scorePrice: 200, tags: ['a', 'b'], cover: '', screenshots: [], summary: '' });
    expect(ModuleInput.parse({ uid: 'free-one', name: 'Free', description: 'x', category: 'ai' })).toMatchObject({ price: 0, scorePrice: 0 });
  });

  it('words module errors with studio keys', () => {
    const issues = (value: unknown): Record<string, string> => Object.fromEntries(
      (ModuleInput.safeParse(value).error?.issues ?? []).map((i) => [String(i.path[0]), i.message]),
    );
    const bad = issues({ uid: '1x', name: 'x', description: '', category: 'nope', price: '1.999', score_price: -1, cover: 'javascript:alert(1)' });
    expect(bad).toMatchObject({
      uid: 'devstudio.error.uid', name: 'devstudio.error.name', description: 'devstudio.error.description', category: 'devstudio.error.category',
      price: 'devstudio.error.price', score_price: 'devstudio.error.scorePrice', cover: 'devstudio.error.image',
    });
    expect(issues({ uid: 'ok-uid', name: 'Fine', description: 'x', category: 'ai', screenshots: ['/storage/../x.png?'] })).toMatchObject({ screenshots: 'devstudio.error.image' });
  });

  it('parses versions, sales filters and withdrawals', () => {
    expect(VersionInput.parse({ module_id: '3', version: '1.2.0-beta.1', changelog: 'Fixes', package_id: 9 }))
      .toEqual({ moduleId: 3, version: '1.2.0-beta.1', changelog: 'Fixes', minAtrium: '', packageId: 9 });
    expect(VersionInput.safeParse({ module_id: 3, version: 'v1', changelog: 'x', package_id: 9 }).error?.issues[0]?.message).toBe('devstudio.error.version');
    expect(VersionInput.safeParse({ module_id: 3, version: '1.0.0', changelog: ' ', package_id: 0 }).error?.issues.map((i) => i.message))
      .toEqual(['devstudio.error.changelog', 'devstudio.error.package']);
    expect(SalesInput.parse({})).toEqual({ status: null, payType: null, from: null, to: null, q: '', page: 1 });
    expect(SalesInput.parse({ status: 'paid', pay_type: 'score', from: '2025-01-02', q: ' 2025 ' })).toMatchObject({ status: 'paid', payType: 'score', from: '2025-01-02', q: '2025' });
    expect(SalesInput.safeParse({ from: '2025-13-45' }).success).toBe(false);
    expect(WithdrawInput.parse({ amount: '100.5', account: 'Alipay a@b.cn' })).toEqual({ amount: 10050, account: 'Alipay a@b.cn' });
    expect(WithdrawInput.safeParse({ amount: '-1', account: 'Alipay a@b.cn' }).success).toBe(false);
  });

  it('splits tags on spaces, commas and the CJK comma', () => {
    expect(splitTags('#ai, tools，编辑器 AI')).toEqual(['ai', 'tools', '编辑器']);
  });
});

describe('time windows in the site time zone', () => {
  it('starts a day at local midnight', () => {
    expect(zonedMidnight(2025, 1, 1, 'Asia/Shanghai')).toBe(Date.UTC(2024, 11, 31, 16) / 1000);
    expect(dayStart('2025-03-09', 'America/New_York')).toBe(Date.UTC(2025, 2, 9, 5) / 1000);
    // The spring-forward day is 23 hours long.
    expect(dayStart('2025-03-09', 'America/New_York', true) - dayStart('2025-03-09', 'America/New_York')).toBe(23 * 3600);
    expect(dayStart('2025-12-31', 'UTC', true)).toBe(Date.UTC(2026, 0, 1) / 1000);
  });

  it('lists the last twelve months across a year boundary, with thirteen boundaries', () => {
    // 2025-02-28T17:00Z is already March 1st in Shanghai.
    const { labels, bounds } = monthWindows(12, 'Asia/Shanghai', Date.UTC(2025, 1, 28, 17));
    expect(labels[0]).toBe('2024-04');
    expect(labels.at(-1)).toBe('2025-03');
    expect(labels).toContain('2025-01');
    expect(bounds).toHaveLength(13);
    expect(bounds[0]).toBe(Date.UTC(2024, 2, 31, 16) / 1000);
    expect(bounds[12]).toBe(Date.UTC(2025, 2, 31, 16) / 1000);
    expect(bounds.every((b, i) => i === 0 || b > bounds[i - 1]!)).toBe(true);
  });
});

describe('next version', () => {
  it('suggests the next patch, or the release of a pre-release', () => {
    expect(nextVersion([])).toBe('1.0.0');
    expect(nextVersion(['1.0.0', '1.2.9', '1.10.0'])).toBe('1.10.1');
    expect(nextVersion(['1.0.0', '2.0.0-beta.2'])).toBe('2.0.0');
  });
});

describe('earnings chart scale', () => {
  it('rounds the axis up to 1, 2 or 5 times a power of ten', () => {
    expect(niceCeiling(0)).toBe(1);
    expect(niceCeiling(-5)).toBe(1);
    expect(niceCeiling(1)).toBe(1);
    expect(niceCeiling(3)).toBe(5);
    expect(niceCeiling(12)).toBe(20);
    expect(niceCeiling(100)).toBe(100);
    expect(niceCeiling(101)).toBe(200);
    expect(niceCeiling(4999)).toBe(5000);
    expect(niceCeiling(5001)).toBe(10000);
  });

  it('draws bars in proportion to the rounded top, zero months without a bar', () => {
    const points = [{ label: 'a', value: 0 }, { label: 'b', value: 1500 }, { label: 'c', value: 500 }, { label: 'd', value: 1 }];
    const { bars, top } = chartBars(points, { width: 400, baseline: 200, plotHeight: 100 });
    expect(top).toBe(2000);
    expect(bars.map((b) => b.height)).toEqual([0, 75, 25, 1]);
    expect(bars[1]!.y).toBe(125);
    expect(bars[0]!.x).toBeCloseTo(20);
    expect(bars[3]!.x + bars[3]!.width).toBeCloseTo(380);
    expect(chartBars([], { width: 100, baseline: 50, plotHeight: 40 })).toEqual({ bars: [], top: 1 });
  });
});

describe('storedZip', () => {
  it('writes an archive the package check accepts, with each file readable at its offset', async () => {
    const { storedZip } = await import('../../src/lib/server/market/zip');
    const bytes = await storedZip([{ name: 'README.md', text: '# Hi\n' }, { name: '说明.txt', text: '你好' }]);
    expect(await checkZipBuffer(bytes)).toBe('ok');
    const nameLength = bytes.readUInt16LE(26);
    expect(bytes.subarray(30, 30 + nameLength).toString()).toBe('README.md');
    expect(bytes.subarray(30 + nameLength, 30 + nameLength + bytes.readUInt32LE(18)).toString()).toBe('# Hi\n');
    expect(bytes.readUInt16LE(bytes.length - 22 + 10)).toBe(2);
  });

  it('dates every entry (local and central headers) with its real modification time, not 1980', async () => {
    const { storedZip, fromDosDateTime } = await import('../../src/lib/server/market/zip');
    const when = new Date(2026, 10, 25, 14, 37, 42);
    const bytes = await storedZip([{ name: 'a.txt', text: 'a' }, { name: 'b.txt', text: 'b', modified: new Date(2025, 0, 2, 3, 4, 6) }], when);
    expect(fromDosDateTime(bytes.readUInt16LE(12), bytes.readUInt16LE(10))).toEqual(when);
    const directory = bytes.readUInt32LE(bytes.length - 22 + 16);
    const second = directory + 46 + bytes.readUInt16LE(directory + 28);
    expect(fromDosDateTime(bytes.readUInt16LE(directory + 14), bytes.readUInt16LE(directory + 12))).toEqual(when);
    expect(fromDosDateTime(bytes.readUInt16LE(second + 14), bytes.readUInt16LE(second + 12))).toEqual(new Date(2025, 0, 2, 3, 4, 6));
    // The default is the moment of writing.
    const now = await storedZip([{ name: 'n.txt', text: 'n' }]);
    expect(Math.abs(fromDosDateTime(now.readUInt16LE(12), now.readUInt16LE(10)).getTime() - Date.now())).toBeLessThan(5000);
  });
});

describe('money fields', () => {
  it('say "Floating point number" for what is not a number, and their own message for a number out of shape', async () => {
    const { WithdrawInput, ModuleInput } = await import('../../src/lib/shared/validation/studio');
    const { InvoiceInput } = await import('../../src/lib/shared/validation/account');
    const first = (r: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } }, field: string) =>
      r.error?.issues.find((i) => i.path[0] === field)?.message;
    expect(first(WithdrawInput.safeParse({ amount: 'abc', account: 'x' }), 'amount')).toBe('validation.float');
    expect(first(WithdrawInput.safeParse({ amount: '1.234', account: 'x' }), 'amount')).toBe('validation.amount');
    expect(first(ModuleInput.safeParse({ price: '9,90' }), 'price')).toBe('validation.float');
    expect(first(ModuleInput.safeParse({ price: '-1' }), 'price')).toBe('devstudio.error.price');
    expect(first(InvoiceInput.safeParse({ amount: 'ten', title: 'Acme', email: 'a@b.co' }), 'amount')).toBe('validation.float');
    const { translator } = await import('../../src/lib/i18n');
    expect(translator('en', 'validation')('validation.float')).toBe('Floating point number');
  });
});
