// Module packages: the manifest schema (and the JSON Schema published from it), the rules between
// its fields, the inspector every upload path calls (every problem, in both languages) and the
// reproducible packer behind `module:pack`.
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Manifest, manifestJsonSchema, readManifest, worksWith } from '../../src/lib/server/modules/manifest';
import { describeProblems, inspectPackage, refusalOf, unpackPackage } from '../../src/lib/server/modules/inspect';
import { packCommand, packFolder } from '../../src/lib/server/modules/pack';
import { zip } from '../helpers/files';

const FIXTURES = join(import.meta.dirname, '../fixtures/modules');
const SCHEMA_FILE = join(import.meta.dirname, '../../docs/modules/atrium-module.schema.json');
const manifestOf = (name: string): string => readFileSync(join(FIXTURES, name, 'atrium.json'), 'utf8');
const scratch = mkdtempSync(join(tmpdir(), 'atrium-modpkg-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the published JSON Schema', () => {
  it('is generated from the validator (WRITE_MODULE_SCHEMA=1 rewrites it)', () => {
    const generated = `${JSON.stringify(manifestJsonSchema(), null, 2)}\n`;
    if (process.env.WRITE_MODULE_SCHEMA === '1') writeFileSync(SCHEMA_FILE, generated);
    expect(readFileSync(SCHEMA_FILE, 'utf8')).toBe(generated);
  });

  it('says what the validator says about fields, enumerations and unknown keys', () => {
    const schema = manifestJsonSchema() as { required: string[]; additionalProperties: boolean; properties: Record<string, { items?: { enum?: string[] } }> };
    expect(schema.required).toEqual(expect.arrayContaining(['uid', 'version', 'name', 'description', 'atrium']));
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.capabilities!.items!.enum).toContain('client:code');
  });
});

describe('the manifest', () => {
  it('accepts the full and the minimal fixtures, filling defaults', () => {
    const full = readManifest(manifestOf('full'), new Set(['dist/server.js', 'dist/client.js', 'dist/style.css', 'dist/markdown.browser.js']));
    expect(full).toHaveProperty('manifest.contributes.settings.5.type', 'select');
    expect(full).toHaveProperty('manifest.contributes.jobs.0.every', 1440);
    const minimal = readManifest(manifestOf('minimal'), new Set(['README.md']));
    expect(minimal).toEqual({ manifest: expect.objectContaining({ uid: 'hello-world', entry: {}, capabilities: [], contributes: {} }) });
    expect(Manifest.safeParse(JSON.parse(manifestOf('full'))).success).toBe(true);
  });

  it('lists every schema problem of a broken manifest, each naming its field, in both languages', () => {
    const read = readManifest(manifestOf('broken'), new Set(['index.js']));
    if (!('problems' in read)) throw new Error('accepted');
    const en = describeProblems(read.problems, 'en');
    expect(en).toEqual(expect.arrayContaining([
      'atrium.json: uid is not in the expected format',
      'atrium.json: version is not in the expected format',
      'atrium.json: name.en is missing',
      expect.stringMatching(/^atrium\.json: capabilities\[1\] must be one of: posts:read, .*client:code/),
      'atrium.json: colour is not a known field',
    ]));
    expect(en).toHaveLength(5);
    const zh = describeProblems(read.problems, 'zh-cn');
    expect(zh).toEqual(expect.arrayContaining(['atrium.json：缺少 name.en', 'atrium.json：colour 不是可识别的字段']));
  });

  it('checks what the schema cannot: the range, files, capabilities and entries each contribution needs, unique settings', () => {
    const read = readManifest(manifestOf('unwired'), new Set(['README.md']));
    if (!('problems' in read)) throw new Error('accepted');
    expect(describeProblems(read.problems, 'en').sort()).toEqual([
      'atrium.json: atrium "not a range" is not a valid version range (e.g. ">=0.1.0 <1.0.0")',
      'atrium.json: contributes.settings[1].key "title" is used twice',
      'atrium.json: for contributes.routes, add "routes" to capabilities',
      'atrium.json: for contributes.slots, add "client:code" to capabilities',
      'atrium.json: for contributes.slots, set entry.client',
      'atrium.json: the file dist/server.js given in entry.server is not in the package',
    ]);
  });

  it('refuses text that is not JSON, and settings whose default does not fit their type', () => {
    expect(readManifest('{ uid: 1 }', new Set())).toEqual({ problems: [expect.objectContaining({ key: 'devstudio.manifest.json' })] });
    const m = JSON.parse(manifestOf('minimal'));
    m.contributes = { settings: [{ key: 'n', type: 'number', default: 'three', title: { 'zh-cn': '数', en: 'N' } }] };
    const read = readManifest(JSON.stringify(m), new Set());
    expect('problems' in read && describeProblems(read.problems, 'en')).toEqual(['atrium.json: contributes.settings[0].default must be of type number']);
  });

  it('checks settings, strings and jobs: both languages with the same keys, labels that exist, bounded intervals, in the developer\'s language', () => {
    const m = JSON.parse(manifestOf('full'));
    m.contributes.i18n = { 'zh-cn': { 'settings.tone': '语气', only: '只有中文' }, en: { 'settings.tone': 'Tone', 'jobs.cleanup': 'Clean up' } };
    m.contributes.settings.push({ key: 'site', type: 'url', default: 'ftp://example.com/', title: 'settings.site' });
    m.contributes.jobs.push({ name: 'cleanup', every: 5 });
    const files = new Set(['dist/server.js', 'dist/client.js', 'dist/style.css', 'dist/markdown.browser.js']);
    const read = readManifest(JSON.stringify(m), files);
    if (!('problems' in read)) throw new Error('accepted');
    expect(describeProblems(read.problems, 'en').sort()).toEqual([
      'atrium.json: contributes.i18n.en lacks the string "only" that the other language has',
      'atrium.json: contributes.i18n.zh-cn lacks the string "jobs.cleanup" that the other language has',
      'atrium.json: contributes.jobs[0].title names the string "jobs.cleanup", which contributes.i18n does not have in both languages',
      'atrium.json: contributes.jobs[1].name "cleanup" is used twice',
      'atrium.json: contributes.settings[6].default is not in the expected format',
      'atrium.json: contributes.settings[6].title names the string "settings.site", which contributes.i18n does not have in both languages',
    ]);
    expect(describeProblems(read.problems, 'zh-cn')).toContain('atrium.json：contributes.i18n.en 缺少另一种语言已有的字符串“only”');
    m.contributes = { jobs: [{ name: 'often', every: 0 }], settings: [{ key: 'k', type: 'secret', default: 'x', title: { 'zh-cn': '密钥', en: 'Key' } }] };
    const bounded = readManifest(JSON.stringify(m), files);
    expect('problems' in bounded && describeProblems(bounded.problems, 'en')).toEqual(expect.arrayContaining([
      'atrium.json: contributes.jobs[0].every is too long, too short or out of range',
      'atrium.json: contributes.settings[0].default is not a known field',
    ]));
  });

  it('matches Atrium versions against the range', () => {
    expect(worksWith('>=0.1.0 <1.0.0', '0.1.0')).toBe(true);
    expect(worksWith('^0.2.0', '0.1.0')).toBe(false);
    expect(worksWith('>=0.1.0', '0.3.0-beta.1')).toBe(true);
  });
});

describe('inspectPackage', () => {
  it('gives the manifest, the files with their sizes (sorted) and the sha256 of a good package, from a path or bytes', async () => {
    const bytes = await packFolder(join(FIXTURES, 'full'));
    const file = join(scratch, 'full.zip');
    writeFileSync(file, bytes);
    const fromPath = await inspectPackage(file);
    const fromBytes = await inspectPackage(bytes);
    expect(fromPath).toEqual(fromBytes);
    if (!fromPath.ok) throw new Error(JSON.stringify(fromPath.problems));
    expect(fromPath.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(fromPath.files.map((f) => f.path)).toEqual(['atrium.json', 'dist/client.js', 'dist/markdown.browser.js', 'dist/server.js', 'dist/style.css']);
    expect(fromPath.files.find((f) => f.path === 'dist/style.css')!.size).toBe(readFileSync(join(FIXTURES, 'full/dist/style.css')).length);
    expect(fromPath.manifest.capabilities).toContain('client:code');
  });

  it('unpacks a package that another process is unpacking into the same folder at the same time (the CLI beside a server)', async () => {
    const bytes = await packFolder(join(FIXTURES, 'full'));
    const dir = join(scratch, 'packages', 'full', '1.0.0-abc');
    await Promise.all([unpackPackage(bytes, dir), unpackPackage(bytes, dir), unpackPackage(bytes, dir)]);
    expect(readFileSync(join(dir, 'dist/style.css'))).toEqual(readFileSync(join(FIXTURES, 'full/dist/style.css')));
    // Neither temporary folder is left beside it.
    expect(readdirSync(join(scratch, 'packages', 'full'))).toEqual(['1.0.0-abc']);
  });

  it('keeps the zip checks: not a zip, empty, unsafe names, too many entries', async () => {
    expect(await inspectPackage(Buffer.from('not a zip at all'))).toEqual({ ok: false, problems: [{ key: 'devstudio.package.notZip' }] });
    expect(await inspectPackage(zip([]))).toEqual({ ok: false, problems: [{ key: 'devstudio.package.empty' }] });
    const manifest = { name: 'atrium.json', data: Buffer.from(manifestOf('minimal')) };
    expect(await inspectPackage(zip([manifest, { name: '../escape.js', data: Buffer.from('x') }]))).toEqual({ ok: false, problems: [{ key: 'devstudio.package.notZip' }] });
    expect(await inspectPackage(zip([manifest, { name: '/etc/passwd', data: Buffer.from('x') }]))).toEqual({ ok: false, problems: [{ key: 'devstudio.package.notZip' }] });
    const many = Array.from({ length: 10_001 }, (_, i) => ({ name: `f${i}`, data: Buffer.alloc(0) }));
    expect(await inspectPackage(zip([manifest, ...many]))).toEqual({ ok: false, problems: [{ key: 'devstudio.package.notZip' }] });
  });

  it('refuses a zip without a manifest at its root, and lists every problem of one with a broken manifest', async () => {
    const nested = await inspectPackage(zip([{ name: 'module/atrium.json', data: Buffer.from(manifestOf('minimal')) }]));
    expect(nested.ok === false && describeProblems(nested.problems, 'en')).toEqual(['The package has no manifest at its root: atrium.json is missing']);
    const broken = await inspectPackage(await packFolder(join(FIXTURES, 'broken')));
    if (broken.ok) throw new Error('accepted');
    expect(broken.problems).toHaveLength(5);
    expect(refusalOf(broken.problems, 'en')).toEqual({ msg: 'The package has 5 problems; fix them all and upload it again', data: { problems: describeProblems(broken.problems, 'en') } });
    expect(refusalOf(broken.problems, 'zh-cn').msg).toBe('安装包有 5 个问题，请全部修正后重新上传');
    const one = await inspectPackage(zip([{ name: 'atrium.json', data: Buffer.from('nope') }]));
    expect(one.ok === false && refusalOf(one.problems, 'en').msg).toMatch(/^atrium\.json is not valid JSON: /);
  });
});

describe('module:pack', () => {
  it('packs the same folder to the same bytes whatever the files\' times, and the package passes inspection', async () => {
    const folder = join(scratch, 'copy');
    cpSync(join(FIXTURES, 'full'), folder, { recursive: true });
    const first = await packFolder(folder);
    utimesSync(join(folder, 'dist/server.js'), new Date('2020-05-05'), new Date('2020-05-05'));
    writeFileSync(join(folder, '.DS_Store'), 'litter');
    const second = await packFolder(folder);
    expect(second.equals(first)).toBe(true);
    expect(first.equals(await packFolder(join(FIXTURES, 'full')))).toBe(true);
    writeFileSync(join(folder, 'dist/server.js'), 'export default { changed: true };\n');
    expect((await packFolder(folder)).equals(first)).toBe(false);
  });

  it('writes <uid>-<version>.zip and prints its sha256, or prints every problem and writes nothing', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const io = { out: (t: string) => void out.push(t), err: (t: string) => void err.push(t) };
    const at = (p: string): string => join(scratch, p);
    cpSync(join(FIXTURES, 'minimal'), at('minimal'), { recursive: true });
    expect(await packCommand(['minimal'], at, io)).toBe(0);
    const written = readFileSync(at('hello-world-1.0.0.zip'));
    expect(out.join('')).toContain(`sha256 ${createHash('sha256').update(written).digest('hex')}`);
    cpSync(join(FIXTURES, 'broken'), at('broken'), { recursive: true });
    expect(await packCommand(['broken', 'broken.zip'], at, io)).toBe(1);
    expect(err.join('')).toContain('  - atrium.json: colour is not a known field\n');
    expect(() => readFileSync(at('broken.zip'))).toThrow();
    expect(await packCommand([], at, io)).toBe(2);
  });
});
