import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { formatFrontMatter, parseFrontMatter, readFolder, writeFolder, type FolderBook, type FolderPage } from '../../src/lib/server/md/folder';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const made: string[] = [];

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'atrium-md-folder-'));
  made.push(dir);
  return dir;
}

/** A temporary folder holding these files (paths relative to it). */
async function folderWith(files: Record<string, string>): Promise<string> {
  const dir = await tempDir();
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return dir;
}

afterEach(async () => {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

const page = (name: string, title: string, order: number, parent: string | null, content: string): FolderPage => ({ name, title, order, parent, content });

describe('front matter', () => {
  it('reads titles plain, double- or single-quoted, keeps unicode, and separates the body', () => {
    expect(parseFrontMatter('---\ntitle: 部署与运维\norder: 3\n---\n\nBody\n')).toEqual({ data: { title: '部署与运维', order: 3 }, body: 'Body\n' });
    expect(parseFrontMatter('---\ntitle: "Q: \\"quotes\\" #1"\nname: faq\n---\nx').data).toEqual({ title: 'Q: "quotes" #1', name: 'faq' });
    expect(parseFrontMatter("---\ntitle: 'It''s 配置'\n---\n").data.title).toBe("It's 配置");
    expect(parseFrontMatter('---\ntitle: Setup # a comment\ntags:\n  - a\n---\n').data).toEqual({ title: 'Setup' });
    expect(parseFrontMatter('\uFEFF---\r\ntitle: CRLF\r\n---\r\n\r\nBody\r\n')).toEqual({ data: { title: 'CRLF' }, body: 'Body\n' });
  });

  it('treats a thematic break followed by prose as body, not front matter', () => {
    const text = '---\nJust a rule, then prose.\n---\nMore.\n';
    expect(parseFrontMatter(text)).toEqual({ data: {}, body: text });
    expect(parseFrontMatter('No front matter\n')).toEqual({ data: {}, body: 'No front matter\n' });
  });

  it('refuses an order that is not a whole number', () => {
    expect(() => parseFrontMatter('---\norder: 1.5\n---\n')).toThrow(/whole number/);
  });

  it('writes what it reads', () => {
    for (const title of ['安装', 'PostgreSQL + Redis', 'Q: "A" #1', '2024', ' padded ', 'yes', '-dash', "it's"]) {
      const text = formatFrontMatter({ title, order: -5, name: 'a.b_c-1' }, 'Body\n');
      expect(parseFrontMatter(text)).toEqual({ data: { title, order: -5, name: 'a.b_c-1' }, body: 'Body\n' });
    }
    expect(formatFrontMatter({ title: '安装', order: 20 }, 'x\n')).toBe('---\ntitle: 安装\norder: 20\n---\n\nx\n');
  });
});

describe('readFolder', () => {
  it('turns sub-folders into the page tree, parents before children, siblings by order', async () => {
    const dir = await folderWith({
      'index.md': '---\ntitle: 概览\norder: 10\n---\n\n# 概览\n\n欢迎使用。\n',
      'install.md': '---\ntitle: 安装\norder: 20\n---\n\n## 要求\n\nNode 22.12\n',
      'deploy/index.md': '---\ntitle: 部署\norder: 30\n---\n\n清单\n',
      'deploy/subdomains.md': '---\ntitle: 子域名\norder: 2\n---\n\nnginx\n',
      'deploy/postgresql-redis.md': '---\ntitle: PostgreSQL 与 Redis\norder: 1\n---\n\nDATABASE_URL\n',
      'deploy/picture.png': 'not markdown',
      'extras.md': '# Extras\n\nBeside its folder.\n',
      'extras/more.md': '# More\n',
      'Recipes/b.md': '# Bravo\n',
      'Recipes/a.md': '# Alpha\n',
      '.hidden.md': '# never read\n',
    });
    const { pages } = await readFolder(dir);
    expect(pages.map((p) => [p.name, p.parent])).toEqual([
      ['index', null], ['install', null], ['deploy', null],
      ['postgresql-redis', 'deploy'], ['subdomains', 'deploy'],
      ['extras', null], ['more', 'extras'],
      ['recipes', null], ['a', 'recipes'], ['b', 'recipes'],
    ]);
    const byName = new Map(pages.map((p) => [p.name, p]));
    expect(byName.get('index')).toEqual(page('index', '概览', 10, null, '欢迎使用。'));
    expect(byName.get('install')!.content).toBe('## 要求\n\nNode 22.12');
    expect(byName.get('postgresql-redis')!.title).toBe('PostgreSQL 与 Redis');
    // A folder without its own file is an empty page titled after the folder.
    expect(byName.get('recipes')).toMatchObject({ title: 'Recipes', content: '' });
    expect(byName.get('extras')).toMatchObject({ title: 'Extras', content: 'Beside its folder.' });
  });

  it('takes the title from the first heading, else the name, and never from inside code', async () => {
    const dir = await folderWith({
      'fenced.md': '```md\n# Not a title\n---\n```\n\n# Real title\n\nText\n',
      'plain.md': 'Just text.\n',
      'later.md': 'Intro.\n\n# Heading later\n\nAfter.\n',
      'other.md': '---\ntitle: Front\n---\n\n# Different heading\n',
    });
    const byName = new Map((await readFolder(dir)).pages.map((p) => [p.name, p]));
    expect(byName.get('fenced')).toMatchObject({ title: 'Real title', content: '```md\n# Not a title\n---\n```\n\nText' });
    expect(byName.get('plain')).toMatchObject({ title: 'plain', content: 'Just text.' });
    expect(byName.get('later')).toMatchObject({ title: 'Heading later', content: 'Intro.\n\nAfter.' });
    expect(byName.get('other')).toMatchObject({ title: 'Front', content: '# Different heading' });
  });

  it('orders pages without an order after those with one, alphabetically', async () => {
    const dir = await folderWith({
      'zeta.md': '# Z\n',
      'alpha.md': '# A\n',
      'first.md': '---\norder: 5\n---\n# F\n',
      'second.md': '---\norder: 7\n---\n# S\n',
    });
    expect((await readFolder(dir)).pages.map((p) => [p.name, p.order])).toEqual([['first', 5], ['second', 7], ['alpha', 17], ['zeta', 27]]);
  });

  it('refuses two pages with the same name, naming both files', async () => {
    const dir = await folderWith({ 'setup.md': '# A\n', 'guide/setup.md': '# B\n' });
    await expect(readFolder(dir)).rejects.toThrow(/"setup".*guide\/setup\.md|"setup".*setup\.md and guide/);
    const twice = await folderWith({ 'x.md': '# X\n', 'x/index.md': '# X too\n', 'x/y.md': '# Y\n' });
    await expect(readFolder(twice)).rejects.toThrow(/Two pages are named "x": .*x.*\.md and .*x.*\.md/);
    const renamed = await folderWith({ 'a.md': '---\nname: b\n---\n# A\n', 'b.md': '# B\n' });
    await expect(readFolder(renamed)).rejects.toThrow(/a\.md.*b\.md|b\.md.*a\.md/);
  });

  it('refuses file names that are not page names unless front matter names them', async () => {
    await expect(readFolder(await folderWith({ 'my page.md': '# X\n' }))).rejects.toThrow(/my page\.md.*not a page name/);
    const named = await folderWith({ 'my page.md': '---\nname: my-page\n---\n# X\n', 'Upper.md': '# U\n' });
    expect((await readFolder(named)).pages.map((p) => p.name).sort()).toEqual(['my-page', 'upper']);
  });
});

describe('writeFolder then readFolder', () => {
  const tricky: FolderBook = {
    pages: [
      page('index', '概览：从这里开始', 10, null, '欢迎。\n\n```yaml\n---\ntitle: not front matter\n---\n```'),
      page('same-heading', 'Same heading', 20, null, '# Same heading\n\nThe body starts with the title as a heading.'),
      page('deploy', '部署', 30, null, ''),
      page('postgresql-redis', 'PostgreSQL + Redis', 10, 'deploy', '---\n\nStarts with a rule.\n'),
      page('index-page', 'A page named index-page', 15, 'deploy', 'x'),
      page('index', 'never', 20, 'deploy', 'wait: two pages named index'),
    ],
  };

  it('refuses books it could not read back', async () => {
    await expect(writeFolder(await tempDir(), tricky)).rejects.toThrow(/Two pages are named "index"/);
    await expect(writeFolder(await tempDir(), { pages: [page('a', 'A', 1, 'missing', '')] })).rejects.toThrow(/parent "missing"/);
    await expect(writeFolder(await tempDir(), { pages: [page('Bad Name', 'A', 1, null, '')] })).rejects.toThrow(/not a page name/);
  });

  it('round-trips a nested book byte for byte', async () => {
    const book: FolderBook = {
      pages: [
        page('overview', '概览：从这里开始', 10, null, '欢迎。\n\n```yaml\n---\ntitle: not front matter\n---\n```'),
        page('same-heading', 'Same heading', 20, null, '# Same heading\n\nThe body starts with the title as a heading.'),
        page('index-page', 'Taken file name', 22, null, 'x'),
        page('trailing', '"Quoted" #hash', 25, null, 'Ends with a newline.\n'),
        page('deploy', '部署', 30, null, ''),
        page('postgresql-redis', 'PostgreSQL + Redis', 10, 'deploy', '---\n\nStarts with a rule.\n'),
        page('index', 'A child named index', 15, 'deploy', '\nStarts with a blank line.'),
        page('nested', 'Nested', 20, 'deploy', '# Nested\n'),
        page('leaf', '叶子', -1, 'nested', 'Deep. 中文内容。'),
        page('empty', '2024', 40, null, ''),
      ],
    };
    const dir = await tempDir();
    await writeFolder(dir, book);
    expect(await readFolder(dir)).toEqual(book);
    expect(await readFile(join(dir, 'deploy', 'index.md'), 'utf8')).toBe('---\ntitle: 部署\norder: 30\n---\n\n');
    expect(await readFile(join(dir, 'deploy', 'nested', 'leaf.md'), 'utf8')).toBe('---\ntitle: 叶子\norder: -1\n---\n\nDeep. 中文内容。\n');
    expect(await readFile(join(dir, 'deploy', 'index-page-2.md'), 'utf8')).toContain('\nname: index\n');
    expect(await readFile(join(dir, 'same-heading.md'), 'utf8')).toBe('---\ntitle: Same heading\norder: 20\n---\n\n# Same heading\n\n# Same heading\n\nThe body starts with the title as a heading.\n');
    // Exporting again over the same folder works; stray markdown would come back as pages, so it is refused.
    await writeFolder(dir, book);
    await writeFile(join(dir, 'stray.md'), '# Stray\n');
    await expect(writeFolder(dir, book)).rejects.toThrow(/stray\.md/);
  });

  it('reads back what it read from hand-written files', async () => {
    const dir = await folderWith({
      'a.md': '# Alpha\r\n\r\nWindows line endings\r\n',
      'b/c.md': '---\ntitle: C\n---\n\n# C\n\n```\n# C\n```\n',
    });
    const first = await readFolder(dir);
    const copy = await tempDir();
    await writeFolder(copy, first);
    expect(await readFolder(copy)).toEqual(first);
    expect(first.pages.find((p) => p.name === 'c')!.content).toBe('```\n# C\n```');
  });
});

/** Markdown links outside code: `[text](target)`. */
function linksOf(markdown: string): string[] {
  const links: string[] = [];
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s{0,3}(`{3,}|~{3,})/.test(line)) fenced = !fenced;
    if (fenced) continue;
    for (const m of line.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) links.push(m[1]!);
  }
  return links;
}

/**
 * Problems with links between pages. Page URLs are flat (`/md/{book}/{name}`, nested pages too),
 * so a link to another page is its bare name, `./name` or `name`, optionally with `#anchor`.
 */
function brokenLinks(book: FolderBook): string[] {
  const names = new Set(book.pages.map((p) => p.name));
  const problems: string[] = [];
  for (const p of book.pages) {
    for (const target of linksOf(p.content)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#') || target.startsWith('/')) continue;
      const name = target.replace(/[#?].*$/, '').replace(/^\.\//, '');
      if (name.includes('/')) problems.push(`${p.name}: "${target}" is not a flat page link (use ./page-name)`);
      else if (!names.has(name)) problems.push(`${p.name}: "${target}" names no page`);
    }
  }
  return problems;
}

/** `::: kind` blocks that are never closed (outside code). */
function openCallouts(markdown: string): number {
  let open = 0;
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s{0,3}(`{3,}|~{3,})/.test(line)) fenced = !fenced;
    if (fenced) continue;
    if (/^:::\s*(tip|note|info|warning|danger)\b/.test(line.trim())) open++;
    else if (line.trim() === ':::') open--;
  }
  return open;
}

describe('the user guide in docs/', () => {
  it('loads in both languages with the same tree, titles, working links and closed callouts', async () => {
    const zh = await readFolder(join(ROOT, 'docs', 'zh-cn'));
    const en = await readFolder(join(ROOT, 'docs', 'en'));
    for (const book of [zh, en]) {
      expect(book.pages.length).toBeGreaterThanOrEqual(11);
      for (const p of book.pages) {
        expect(p.title.trim(), p.name).not.toBe('');
        expect(p.title, `${p.name} has a real title`).not.toBe(p.name);
        expect(p.content.trim(), `${p.name} has content`).not.toBe('');
        expect(openCallouts(p.content), `${p.name} callouts`).toBe(0);
      }
      expect(brokenLinks(book)).toEqual([]);
    }
    expect(en.pages.map((p) => [p.name, p.parent, p.order])).toEqual(zh.pages.map((p) => [p.name, p.parent, p.order]));
    expect(zh.pages[0]!.name).toBe('index');
  });

  it('the link checker catches what it should', () => {
    const book: FolderBook = { pages: [page('a', 'A', 1, null, '[ok](./a) [ok](a#x) [web](https://example.com) `[code](./nope)` [bad](./nope) [nested](../deploy/a)')] };
    expect(brokenLinks(book)).toEqual(['a: "./nope" names no page', 'a: "../deploy/a" is not a flat page link (use ./page-name)']);
  });
});
