import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { buildSaveName, DEFAULT_SAVE_NAME, fileNamePart, sanitizeSegment } from '../../src/lib/server/upload/save-name';
import { checkUpload, fileSuffix, isTypeAllowed } from '../../src/lib/server/upload/check';
import { storagePath } from '../../src/server/upload';
import { readImageInfo } from '../../src/lib/server/upload/image-info';
import { isMultipart, MultipartError, receiveFile, Rejection, type ReceiveRules } from '../../src/server/multipart';

const SHA1 = 'a94a8fe5ccb19ba61c4c0873d391e987982fbbd3';
// 2024-10-15 03:04:05 UTC
const NOW = new Date(Date.UTC(2024, 9, 15, 3, 4, 5));
const fixedRandom = (n: number): string => 'R'.repeat(n);
const build = (template: string, originalName = 'photo.png', extra: Partial<Parameters<typeof buildSaveName>[1]> = {}): string =>
  buildSaveName(template, { topic: 'default', originalName, sha1: SHA1, now: NOW, random: fixedRandom, ...extra });

describe('buildSaveName placeholders', () => {
  it('fills the default template', () => {
    expect(build(DEFAULT_SAVE_NAME)).toBe(`/storage/default/20241015/photo${SHA1}.png`);
  });
  it.each([
    ['{topic}', 'avatar', { topic: 'avatar' }],
    ['{year}', '2024', {}],
    ['{mon}', '10', {}],
    ['{day}', '15', {}],
    ['{hour}', '03', {}],
    ['{min}', '04', {}],
    ['{sec}', '05', {}],
    ['{random}', 'RRRRRRRR', {}],
    ['{random32}', 'R'.repeat(32), {}],
    ['{fileName}', 'photo', {}],
    ['{suffix}', 'png', {}],
    ['{.suffix}', 'x.png', {}],
    ['{fileSha1}', SHA1, {}],
  ] as const)('%s', (placeholder, expected, extra) => {
    const template = placeholder === '{.suffix}' ? '/storage/x{.suffix}' : `/storage/${placeholder}`;
    expect(build(template, 'photo.png', extra)).toBe(`/storage/${expected}`);
  });
  it('uses the site time zone for date parts', () => {
    expect(build('/storage/{year}{mon}{day}{hour}', 'a.png', { timeZone: 'Asia/Shanghai' })).toBe('/storage/2024101511');
    expect(build('/storage/{hour}', 'a.png', { timeZone: 'Not/AZone' })).toBe('/storage/03');
  });
  it('random placeholders are alphanumeric and of the right length by default', () => {
    const url = buildSaveName('/storage/{random}/{random32}', { topic: 't', originalName: 'a.png', sha1: SHA1, now: NOW });
    expect(url).toMatch(/^\/storage\/[A-Za-z0-9]{8}\/[A-Za-z0-9]{32}$/);
  });
  it('leaves unknown placeholders to the sanitiser', () => {
    expect(build('/storage/{nope}{fileName}')).toBe('/storage/nopephoto');
  });
});

describe('fileName', () => {
  it('drops the suffix, whitespace and :@#?&/=\',+ and keeps 15 characters', () => {
    expect(fileNamePart('my holiday: pic@#?&=\',+.JPG')).toBe('myholidaypic');
    expect(fileNamePart('abcdefghijklmnopqrstuvwxyz.png')).toBe('abcdefghijklmno');
    expect(fileNamePart('archive.tar.gz')).toBe('archive.tar');
    expect(fileNamePart('.bashrc')).toBe('');
    expect(fileNamePart('noext')).toBe('noext');
  });
  it('counts CJK characters as one each', () => {
    expect(fileNamePart('一二三四五六七八九十一二三四五六七.png')).toBe('一二三四五六七八九十一二三四五');
  });
});

describe('sanitising', () => {
  it('strips spaces and unsafe symbols from names (after the 15-character cut)', () => {
    expect(build(DEFAULT_SAVE_NAME, 'a b<c>"d|e*f%g$h!i(j).png')).toBe(`/storage/default/20241015/abcdefgh${SHA1}.png`);
    expect(build(DEFAULT_SAVE_NAME, 'my file (1).v2.PNG')).toBe(`/storage/default/20241015/myfile1.v2${SHA1}.png`);
  });
  it('keeps CJK letters', () => {
    expect(build(DEFAULT_SAVE_NAME, '我的 照片.png')).toBe(`/storage/default/20241015/我的照片${SHA1}.png`);
    expect(build(DEFAULT_SAVE_NAME, 'しゃしん 사진.png')).toBe(`/storage/default/20241015/しゃしん사진${SHA1}.png`);
  });
  it('drops emoji and other symbols', () => {
    expect(sanitizeSegment('a😀b©c')).toBe('abc');
  });
  it.each([
    '../../etc/passwd',
    '..\\..\\x',
    '..%2f..%2fetc',
    '....//....//x',
    '/etc/passwd',
    'C:\\Windows\\system.ini',
    '\u0000../x',
  ])('no traversal from the file name %j', (name) => {
    const url = build('/storage/{topic}/{fileName}{.suffix}', name);
    expect(url.startsWith('/storage/')).toBe(true);
    expect(url).not.toContain('\\');
    expect(url.split('/').slice(1).every((s) => s !== '' && s !== '.' && s !== '..' && !s.startsWith('.'))).toBe(true);
  });
  it.each([
    ['/storage/../../etc/{fileName}', '/storage/etc/photo'],
    ['../{fileName}', '/storage/photo'],
    ['/var/www/{fileName}', '/storage/var/www/photo'],
    ['\\storage\\..\\{fileName}', '/storage/photo'],
    ['/storage//./{topic}/.hidden/{fileName}', '/storage/default/hidden/photo'],
    ['/storage/.tmp/{fileName}', '/storage/tmp/photo'],
  ])('no traversal from the template %j', (template, expected) => {
    expect(build(template)).toBe(expected);
  });
  it('a topic with traversal is reduced to safe characters', () => {
    expect(build('/storage/{topic}/{fileName}', 'a.png', { topic: '../..' })).toBe('/storage/default/a');
  });
  it('falls back to the default template when the template leaves no file name', () => {
    expect(build('/storage/')).toBe(`/storage/default/20241015/photo${SHA1}.png`);
    expect(build('{nothing}/../')).toBe('/storage/nothing');
  });
});

describe('suffix rules', () => {
  it('is the lower-cased extension', () => {
    expect(fileSuffix('A.PNG')).toBe('png');
    expect(fileSuffix('a.tar.gz')).toBe('gz');
  });
  it('becomes file when not alphanumeric or missing', () => {
    expect(fileSuffix('a.p-g')).toBe('file');
    expect(fileSuffix('a.')).toBe('file');
    expect(fileSuffix('noext')).toBe('file');
    expect(fileSuffix('a.ph p')).toBe('file');
    expect(fileSuffix('a.图片')).toBe('file');
    // Folders in the client's name are dropped before anything else.
    expect(build('/storage/{fileName}{.suffix}', 'evil.p/h\\p')).toBe('/storage/p.file');
    expect(build('/storage/x{.suffix}', 'evil.p-p')).toBe('/storage/x.file');
  });
});

describe('checkUpload', () => {
  const rules = { maxSize: 1024, allowedSuffixes: 'jpg,.PNG, gif', allowedMimeTypes: '' };
  it('needs a name and a size', () => {
    expect(checkUpload({ name: '', size: 10, mimetype: 'image/png' }, rules)).toBe('upload.incomplete');
    expect(checkUpload({ name: null, size: 10, mimetype: 'image/png' }, rules)).toBe('upload.incomplete');
    expect(checkUpload({ name: 'a.png', size: null, mimetype: 'image/png' }, rules)).toBe('upload.incomplete');
    expect(checkUpload({ name: 'a.png', size: undefined, mimetype: '' }, rules)).toBe('upload.incomplete');
    expect(checkUpload({ name: 'a.png', size: 0, mimetype: '' }, rules)).toBe('upload.incomplete');
  });
  it('allows a suffix listed with or without a dot, in any case', () => {
    expect(checkUpload({ name: 'a.png', size: 10, mimetype: '' }, rules)).toBeNull();
    expect(checkUpload({ name: 'a.JPG', size: 10, mimetype: '' }, rules)).toBeNull();
    expect(checkUpload({ name: 'a.gif', size: 10, mimetype: '' }, rules)).toBeNull();
    expect(checkUpload({ name: 'a.svg', size: 10, mimetype: 'image/svg+xml' }, rules)).toBe('upload.typeNotAllowed');
    expect(checkUpload({ name: 'a.png', size: 10, mimetype: '' }, { ...rules, allowedSuffixes: ['.png'] })).toBeNull();
  });
  it('allows by MIME type alone when the list has it', () => {
    const withMime = { ...rules, allowedMimeTypes: 'text/plain, Application/PDF' };
    expect(checkUpload({ name: 'notes.txt', size: 10, mimetype: 'text/plain' }, withMime)).toBeNull();
    expect(checkUpload({ name: 'doc.bin', size: 10, mimetype: 'application/pdf; charset=binary' }, withMime)).toBeNull();
    expect(checkUpload({ name: 'doc.bin', size: 10, mimetype: 'APPLICATION/PDF' }, withMime)).toBeNull();
    expect(checkUpload({ name: 'doc.bin', size: 10, mimetype: 'application/zip' }, withMime)).toBe('upload.typeNotAllowed');
    expect(checkUpload({ name: 'doc.bin', size: 10, mimetype: '' }, withMime)).toBe('upload.typeNotAllowed');
  });
  it('an extension-less name is checked as `file`', () => {
    expect(isTypeAllowed('README', '', { allowedSuffixes: 'file', allowedMimeTypes: '' })).toBe(true);
    expect(isTypeAllowed('README', '', { allowedSuffixes: 'png', allowedMimeTypes: '' })).toBe(false);
  });
  it('rejects a file over the maximum size', () => {
    expect(checkUpload({ name: 'a.png', size: 1024, mimetype: '' }, rules)).toBeNull();
    expect(checkUpload({ name: 'a.png', size: 1025, mimetype: '' }, rules)).toBe('upload.tooLarge');
  });
});

describe('multipart receiving (busboy)', () => {
  const boundary = '----AtriumBoundary7MA4YWxkTrZu0gW';
  const headers = { 'content-type': `multipart/form-data; boundary=${boundary}` };
  const content = `line1\r\n--${boundary.slice(0, 10)} not a boundary\r\n\r\n--\r\nend`;
  const form = (fileHead: string, fileBody: string | Buffer = content): Buffer => Buffer.concat([
    Buffer.from(`preamble\r\n--${boundary}\r\nContent-Disposition: form-data; name="topic"\r\n\r\navatar\r\n`),
    Buffer.from(`--${boundary}\r\n${fileHead}\r\n\r\n`),
    Buffer.from(fileBody),
    Buffer.from(`\r\n--${boundary}--\r\nepilogue`),
  ]);
  const body = form(`Content-Disposition: form-data; name="file"; filename="我的 \\"x\\".png"\r\nContent-Type: image/png`);
  const dir = mkdtempSync(join(tmpdir(), 'multipart-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let n = 0;
  const rules: ReceiveRules = { maxSize: 1024, refuse: (name) => (name.endsWith('.exe') ? 'upload.typeNotAllowed' : null), tooLarge: 'upload.tooLarge' };
  const receive = (bytes: Buffer, chunk = bytes.length, r: ReceiveRules = rules, hdrs: Record<string, string> = headers) => {
    const stream = new PassThrough();
    const tmpPath = join(dir, `${++n}.part`);
    const done = receiveFile(stream, hdrs, tmpPath, r);
    void (async () => {
      for (let i = 0; i < bytes.length; i += chunk) {
        if (!stream.write(bytes.subarray(i, i + chunk))) await new Promise((ok) => stream.once('drain', ok));
      }
      stream.end();
    })();
    return { done, tmpPath };
  };

  it('streams the file part to disk with its name, type and sha1, whatever the chunk size', async () => {
    for (const size of [1, 2, 3, 7, 36, 37, 38, 39, 40, 64, 100, body.length]) {
      const { done, tmpPath } = receive(body, size);
      const got = await done;
      expect({ ...got, tmpPath: undefined }, `chunk ${size}`).toEqual({
        tmpPath: undefined, name: '我的 "x".png', mimetype: 'image/png', size: Buffer.byteLength(content),
        sha1: createHash('sha1').update(content).digest('hex'),
      });
      expect(readFileSync(tmpPath, 'utf8')).toBe(content);
    }
  });
  it('is incomplete without the closing delimiter, and leaves no file behind', async () => {
    const { done, tmpPath } = receive(body.subarray(0, body.length - 30));
    await expect(done).rejects.toBeInstanceOf(MultipartError);
    expect(existsSync(tmpPath)).toBe(false);
  });
  it('is incomplete without a file part or with an empty file input', async () => {
    const noFile = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="topic"\r\n\r\nx\r\n--${boundary}--\r\n`);
    await expect(receive(noFile).done).rejects.toEqual(new Rejection('upload.incomplete'));
    await expect(receive(form('Content-Disposition: form-data; name="file"; filename=""\r\nContent-Type: application/octet-stream', '')).done)
      .rejects.toEqual(new Rejection('upload.incomplete'));
  });
  it('refuses oversized part headers', async () => {
    const big = Buffer.from(`--${boundary}\r\nX: ${'a'.repeat(20000)}\r\n\r\nx\r\n--${boundary}--\r\n`);
    await expect(receive(big).done).rejects.toBeInstanceOf(MultipartError);
  });
  it('takes a file of exactly the maximum size and refuses one byte more', async () => {
    const head = 'Content-Disposition: form-data; name="file"; filename="a.bin"';
    const exact = await receive(form(head, Buffer.alloc(1024, 1)), 100).done;
    expect(exact.size).toBe(1024);
    const over = receive(form(head, Buffer.alloc(1025, 1)), 100);
    await expect(over.done).rejects.toEqual(new Rejection('upload.tooLarge'));
    expect(existsSync(over.tmpPath)).toBe(false);
  });
  it('refuses a type by the part headers, before the body', async () => {
    await expect(receive(form('Content-Disposition: form-data; name="file"; filename="run.exe"')).done).rejects.toEqual(new Rejection('upload.typeNotAllowed'));
  });
  it('reads RFC 5987 file names and knows a multipart Content-Type', async () => {
    const got = await receive(form(`Content-Disposition: form-data; name="file"; filename*=UTF-8''%E5%9B%BE.png`)).done;
    expect(got.name).toBe('图.png');
    expect(isMultipart('multipart/form-data; boundary=abc')).toBe(true);
    expect(isMultipart('Multipart/Form-Data; charset=utf-8; boundary="a b"')).toBe(true);
    expect(isMultipart('application/json')).toBe(false);
    expect(isMultipart('multipart/form-data')).toBe(false);
    await expect(receive(body, body.length, rules, { 'content-type': 'application/json' }).done).rejects.toBeInstanceOf(MultipartError);
  });
});

describe('image sizes from header bytes', () => {
  const reader = (buf: Buffer) => async (offset: number, length: number) => buf.subarray(offset, offset + length);
  it('png', async () => {
    const png = Buffer.alloc(33);
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]).copy(png);
    png.write('IHDR', 12, 'latin1');
    png.writeUInt32BE(640, 16);
    png.writeUInt32BE(480, 20);
    expect(await readImageInfo(reader(png))).toEqual({ mime: 'image/png', width: 640, height: 480 });
  });
  it('gif', async () => {
    const gif = Buffer.alloc(13);
    gif.write('GIF89a', 0, 'latin1');
    gif.writeUInt16LE(300, 6);
    gif.writeUInt16LE(200, 8);
    expect(await readImageInfo(reader(gif))).toEqual({ mime: 'image/gif', width: 300, height: 200 });
  });
  it('jpeg past a large APP1 segment', async () => {
    const app1 = Buffer.alloc(4 + 60000);
    app1[0] = 0xff; app1[1] = 0xe1; app1.writeUInt16BE(60002, 2);
    const sof = Buffer.from([0xff, 0xc0, 0, 17, 8, 0x01, 0x2c, 0x02, 0x58, 3]);
    const jpeg = Buffer.concat([Buffer.from([0xff, 0xd8]), app1, Buffer.from([0xff, 0xdb, 0, 4, 0, 0]), sof, Buffer.alloc(20)]);
    expect(await readImageInfo(reader(jpeg))).toEqual({ mime: 'image/jpeg', width: 600, height: 300 });
  });
  it('webp (VP8, VP8L, VP8X)', async () => {
    const riff = (kind: string, fill: (b: Buffer) => void): Buffer => {
      const b = Buffer.alloc(40);
      b.write('RIFF', 0, 'latin1'); b.write('WEBP', 8, 'latin1'); b.write(kind, 12, 'latin1');
      fill(b);
      return b;
    };
    const vp8 = riff('VP8 ', (b) => { b[23] = 0x9d; b[24] = 0x01; b[25] = 0x2a; b.writeUInt16LE(320, 26); b.writeUInt16LE(240, 28); });
    expect(await readImageInfo(reader(vp8))).toEqual({ mime: 'image/webp', width: 320, height: 240 });
    const vp8l = riff('VP8L', (b) => { b[20] = 0x2f; b.writeUInt32LE((100 - 1) | ((50 - 1) << 14), 21); });
    expect(await readImageInfo(reader(vp8l))).toEqual({ mime: 'image/webp', width: 100, height: 50 });
    const vp8x = riff('VP8X', (b) => { b.writeUIntLE(2000 - 1, 24, 3); b.writeUIntLE(1000 - 1, 27, 3); });
    expect(await readImageInfo(reader(vp8x))).toEqual({ mime: 'image/webp', width: 2000, height: 1000 });
  });
  it('bmp', async () => {
    const bmp = Buffer.alloc(54);
    bmp.write('BM', 0, 'latin1'); bmp.writeUInt32LE(40, 14); bmp.writeInt32LE(64, 18); bmp.writeInt32LE(-32, 22);
    expect(await readImageInfo(reader(bmp))).toEqual({ mime: 'image/bmp', width: 64, height: 32 });
  });
  it('not an image, whatever the name says', async () => {
    expect(await readImageInfo(reader(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>')))).toBeNull();
    expect(await readImageInfo(reader(Buffer.from([0xff, 0xd8, 0xff, 0xd9])))).toBeNull();
  });
});

describe('storage paths', () => {
  const root = '/data/storage';
  it('maps a clean path inside the root', () => {
    expect(storagePath(root, '/storage/default/20241015/a.png')).toBe('/data/storage/default/20241015/a.png');
    expect(storagePath(root, '/storage/default/%E5%9B%BE.png')).toBe('/data/storage/default/图.png');
  });
  it.each([
    '/storage/../etc/passwd',
    '/storage/%2e%2e/etc/passwd',
    '/storage/%2E%2E%2Fetc%2Fpasswd',
    '/storage/a/..%2f..%2f..%2fetc/passwd',
    '/storage/%252e%252e/x',
    '/storage/a%5c..%5cb',
    '/storage/a\\..\\b',
    '/storage/a%00.png',
    '/storage/.tmp/x.part',
    '/storage/a//b',
    '/storage/%E0%A4%A',
    '/storage/',
    '/other/x',
  ])('refuses %s', (p) => {
    expect(storagePath(root, p)).toBeNull();
  });
});
