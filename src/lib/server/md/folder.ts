// A book as a folder of markdown files, and back: what `md:import` reads, `md:export` writes and
// the guide in `docs/` is. Pure filesystem work, no database.
//
// Layout: every `*.md` file is a page named after the file (`install.md` → `install`). A folder
// `x/` holds the children of page `x`, whose own text is `x/index.md` (or a sibling `x.md`); a
// folder without either becomes an empty page titled after the folder. Other files (images…) are
// ignored: reference images by URL. Front matter gives `title`, `order` and, rarely, `name`:
//
//   ---
//   title: 安装
//   order: 20
//   ---
//
// A first `# heading` equal to the title is the title, not content: it is left out on import and
// `writeFolder` writes the title in the front matter only, so a round trip changes nothing.
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';

export interface FolderPage { name: string; title: string; order: number; parent: string | null; content: string }
/** Pages in reading order: parents before children, siblings by order (then name). */
export interface FolderBook { pages: FolderPage[] }

interface FrontMatter { title?: string; order?: number; name?: string }

/** Same rule as the database's page names (`PAGE_NAME` in pages.ts), kept here so this file stays pure. */
const PAGE_NAME = /^[a-z0-9][a-z0-9._-]{0,99}$/;
const MAX_TITLE = 150;
const ORDER_STEP = 10;

const OPEN = /^---[ \t]*$/;
const CLOSE = /^(?:---|\.\.\.)[ \t]*$/;
const KEY_LINE = /^([A-Za-z_][\w-]*)[ \t]*:(?:[ \t]+(.*?))?[ \t]*$/;

function unquote(raw: string): string {
  if (raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"')) {
    try { return String(JSON.parse(raw)); } catch { return raw.slice(1, -1); }
  }
  if (raw.length >= 2 && raw.startsWith("'") && raw.endsWith("'")) return raw.slice(1, -1).replace(/''/g, "'");
  // A plain YAML scalar ends where a ` #` comment starts.
  return raw.replace(/[ \t]+#.*$/, '').trim();
}

/**
 * Splits `---` front matter (a YAML subset: `key: value` lines, values plain or quoted) from the
 * body. Text that does not start with a well-formed block has no front matter: all of it is body.
 * One blank line after the block is a separator, not body.
 */
export function parseFrontMatter(text: string): { data: FrontMatter; body: string } {
  const src = text.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n');
  const lines = src.split('\n');
  if (!OPEN.test(lines[0] ?? '')) return { data: {}, body: src };
  const end = lines.findIndex((line, i) => i > 0 && CLOSE.test(line));
  if (end < 0) return { data: {}, body: src };
  const data: FrontMatter = {};
  let keys = 0;
  for (const line of lines.slice(1, end)) {
    if (!line.trim() || /^\s*#/.test(line)) continue;
    // Indented lines continue the key above them (lists, long values): not read, not an error.
    if (keys > 0 && /^[ \t]/.test(line)) continue;
    const m = KEY_LINE.exec(line);
    // Not YAML we understand (e.g. a thematic break followed by prose): no front matter at all.
    if (!m) return { data: {}, body: src };
    keys++;
    const value = unquote(m[2] ?? '');
    if (m[1] === 'title' && value) data.title = value;
    else if (m[1] === 'name' && value) data.name = value;
    else if (m[1] === 'order' && value) {
      if (!/^[-+]?\d+$/.test(value) || !Number.isSafeInteger(Number(value))) throw new Error(`order must be a whole number, got "${value}"`);
      data.order = Number(value);
    }
  }
  let body = lines.slice(end + 1).join('\n');
  if (body.startsWith('\n')) body = body.slice(1);
  return { data, body };
}

/** A title as YAML: plain when that reads back unchanged everywhere, otherwise double-quoted. */
function yamlString(value: string): string {
  const plain = /^[^\s\-?:,[\]{}#&*!|>'"%@`][^#:]*$/.test(value) && value === value.trim() && !/[\n\r\t\\]/.test(value)
    && !/^(?:true|false|yes|no|on|off|null|~|[-+]?[\d.]+(?:e[-+]?\d+)?)$/i.test(value);
  return plain ? value : JSON.stringify(value);
}

/** Front matter (`title`, `order`, and `name` when given) followed by a blank line and the body. */
export function formatFrontMatter(data: { title: string; order: number; name?: string }, body: string): string {
  const lines = [`title: ${yamlString(data.title)}`, `order: ${data.order}`];
  if (data.name !== undefined) lines.push(`name: ${yamlString(data.name)}`);
  return `---\n${lines.join('\n')}\n---\n\n${body}`;
}

const HEADING_1 = /^ {0,3}#[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;

/** Index of the first level-1 ATX heading outside fenced code, with its text; null when there is none. */
function firstHeading(lines: readonly string[]): { index: number; text: string } | null {
  let fence: { char: string; size: number } | null = null;
  for (const [index, line] of lines.entries()) {
    const f = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line);
    if (f) {
      const marks = f[1]!;
      if (!fence) {
        // A backtick fence's info string cannot contain a backtick (CommonMark).
        if (marks[0] === '~' || !f[2]!.includes('`')) fence = { char: marks[0]!, size: marks.length };
      } else if (marks[0] === fence.char && marks.length >= fence.size && !f[2]!.trim()) {
        fence = null;
      }
      continue;
    }
    if (fence) continue;
    const h = HEADING_1.exec(line);
    if (h && h[1]) return { index, text: h[1].trim() };
  }
  return null;
}

/** Content as stored: the title heading (and one blank line after it) left out, one final newline dropped. */
function pageText(raw: string, fm: FrontMatter, fallbackTitle: string): { title: string; content: string } {
  const lines = raw.split('\n');
  const heading = firstHeading(lines);
  const title = fm.title ?? heading?.text ?? fallbackTitle;
  if (heading && heading.text === title) lines.splice(heading.index, lines[heading.index + 1] === '' ? 2 : 1);
  const content = lines.join('\n');
  return { title, content: content.endsWith('\n') ? content.slice(0, -1) : content };
}

interface Found { page: FolderPage; file: string; explicitOrder: boolean }

/** Reads a markdown file into a page (without its final order when the front matter has none). */
async function readPage(file: string, label: string, stem: string, parent: string | null): Promise<Found> {
  let parsed: ReturnType<typeof parseFrontMatter>;
  try {
    parsed = parseFrontMatter(await readFile(file, 'utf8'));
  } catch (err) {
    throw new Error(`${label}: ${(err as Error).message}`);
  }
  const name = parsed.data.name ?? stem.toLowerCase();
  if (!PAGE_NAME.test(name)) {
    throw new Error(`${label}: "${name}" is not a page name (lower-case letters, digits and . _ -, starting with a letter or digit, at most 100 characters); rename the file or set "name:" in its front matter`);
  }
  const { title, content } = pageText(parsed.body, parsed.data, name);
  if (title.length > MAX_TITLE) throw new Error(`${label}: the title is longer than ${MAX_TITLE} characters`);
  return { page: { name, title, order: parsed.data.order ?? 0, parent, content }, file: label, explicitOrder: parsed.data.order !== undefined };
}

async function entriesOf(dir: string): Promise<{ files: string[]; folders: string[] }> {
  const files: string[] = [];
  const folders: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.')) continue;
    const kind = entry.isSymbolicLink() ? await stat(join(dir, entry.name)) : entry;
    if (kind.isDirectory()) folders.push(entry.name);
    else if (kind.isFile() && entry.name.toLowerCase().endsWith('.md')) files.push(entry.name);
  }
  const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  return { files: files.sort(byName), folders: folders.sort(byName) };
}

/** Pages of one folder level (and, recursively, below), each sibling group given its final order. */
async function readLevel(root: string, dir: string, parent: string | null, out: Found[]): Promise<void> {
  const entries = await entriesOf(dir);
  const { folders } = entries;
  // Below the top, `index.md` is the folder's own page, read by the level above.
  const files = parent === null ? entries.files : entries.files.filter((f) => f.toLowerCase() !== 'index.md');
  const label = (name: string): string => relative(root, join(dir, name)) || name;
  const stemOf = (file: string): string => file.slice(0, -'.md'.length);
  const siblings: Found[] = [];
  const claimed = new Set<string>();
  const children: { folder: string; page: Found }[] = [];
  for (const folder of folders) {
    const inside = (await entriesOf(join(dir, folder))).files.find((f) => f.toLowerCase() === 'index.md');
    const beside = files.find((f) => stemOf(f) === folder);
    let page: Found;
    if (inside) page = await readPage(join(dir, folder, inside), label(join(folder, inside)), folder, parent);
    else if (beside) {
      page = await readPage(join(dir, beside), label(beside), folder, parent);
      claimed.add(beside);
    } else {
      const name = folder.toLowerCase();
      if (!PAGE_NAME.test(name)) throw new Error(`${label(folder)}/: "${folder}" is not a page name (lower-case letters, digits and . _ -); rename the folder or add an index.md with "name:" in its front matter`);
      page = { page: { name, title: folder.slice(0, MAX_TITLE), order: 0, parent, content: '' }, file: `${label(folder)}/`, explicitOrder: false };
    }
    siblings.push(page);
    children.push({ folder, page });
  }
  for (const file of files) {
    if (claimed.has(file)) continue;
    siblings.push(await readPage(join(dir, file), label(file), stemOf(file), parent));
  }
  // Pages without an order follow those with one, alphabetically, ORDER_STEP apart.
  const explicit = siblings.filter((s) => s.explicitOrder).map((s) => s.page.order);
  let next = (explicit.length ? Math.max(...explicit) : 0) + ORDER_STEP;
  for (const s of siblings.filter((s) => !s.explicitOrder).sort((a, b) => (a.page.name < b.page.name ? -1 : a.page.name > b.page.name ? 1 : 0))) {
    s.page.order = next;
    next += ORDER_STEP;
  }
  out.push(...siblings);
  for (const { folder, page } of children) await readLevel(root, join(dir, folder), page.page.name, out);
}

function bySiblingOrder(a: FolderPage, b: FolderPage): number {
  return a.order - b.order || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}

/** Depth-first reading order: parents before children, siblings by order then name. */
function inReadingOrder(pages: readonly FolderPage[]): FolderPage[] {
  const byParent = new Map<string | null, FolderPage[]>();
  for (const p of pages) byParent.set(p.parent, [...(byParent.get(p.parent) ?? []), p]);
  const walk = (parent: string | null): FolderPage[] => (byParent.get(parent) ?? []).sort(bySiblingOrder).flatMap((p) => [p, ...walk(p.name)]);
  return walk(null);
}

/**
 * Reads a folder of markdown files as a book. Throws an Error naming the file(s) when a page name
 * is invalid or used twice, or front matter is malformed.
 */
export async function readFolder(dir: string): Promise<FolderBook> {
  const found: Found[] = [];
  await readLevel(dir, dir, null, found);
  const seen = new Map<string, string>();
  for (const f of found) {
    const other = seen.get(f.page.name);
    if (other) throw new Error(`Two pages are named "${f.page.name}": ${other} and ${f.file}. Page names must be unique within a book; rename one of them or set "name:" in its front matter.`);
    seen.set(f.page.name, f.file);
  }
  return { pages: inReadingOrder(found.map((f) => f.page)) };
}

/** The file text of a page: front matter, then the content exactly, ending in one newline. */
function fileText(page: FolderPage, name?: string): string {
  const content = page.content.replace(/\r\n/g, '\n');
  // Content whose own first heading equals the title would lose it on reading; a title heading in
  // front of it is what reading takes away.
  const guard = firstHeading(content.split('\n'))?.text === page.title ? `# ${page.title}\n\n` : '';
  const body = guard + content + (content || guard ? '\n' : '');
  return formatFrontMatter({ title: page.title, order: page.order, ...(name !== undefined ? { name } : {}) }, body);
}

async function listMarkdown(dir: string, root = dir): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [];
    throw err;
  });
  const out: string[] = [];
  for (const e of entries) {
    if (e.name.startsWith('.')) continue;
    if (e.isDirectory()) out.push(...await listMarkdown(join(dir, e.name), root));
    else if (e.name.toLowerCase().endsWith('.md')) out.push(relative(root, join(dir, e.name)));
  }
  return out;
}

/**
 * Writes a book as a folder that `readFolder` reads back identically: a page with children as
 * `name/index.md` with the children beside it, any other page as `name.md`. The folder is created
 * when needed; files of an earlier export are overwritten, but markdown files this book would not
 * write are refused (they would come back as extra pages), and nothing is written then.
 */
export async function writeFolder(dir: string, book: FolderBook): Promise<void> {
  const names = new Set<string>();
  for (const p of book.pages) {
    if (!PAGE_NAME.test(p.name)) throw new Error(`"${p.name}" is not a page name`);
    if (names.has(p.name)) throw new Error(`Two pages are named "${p.name}"`);
    if (!p.title) throw new Error(`Page "${p.name}" has no title`);
    if (!Number.isSafeInteger(p.order)) throw new Error(`Page "${p.name}" has an order that is not a whole number`);
    names.add(p.name);
  }
  const children = new Map<string | null, FolderPage[]>();
  for (const p of book.pages) {
    if (p.parent !== null && !names.has(p.parent)) throw new Error(`Page "${p.name}" has a parent "${p.parent}" that is not in the book`);
    children.set(p.parent, [...(children.get(p.parent) ?? []), p]);
  }
  const files = new Map<string, string>();
  const place = (parent: string | null, folder: string[]): void => {
    for (const p of children.get(parent) ?? []) {
      if (children.get(p.name)?.length) {
        files.set(join(...folder, p.name, 'index.md'), fileText(p));
        place(p.name, [...folder, p.name]);
      } else if (p.name === 'index' && parent !== null) {
        // `index.md` in a folder is the folder's own page: a child named index needs another file name.
        let stem = 'index-page';
        for (let i = 2; names.has(stem); i++) stem = `index-page-${i}`;
        files.set(join(...folder, `${stem}.md`), fileText(p, p.name));
      } else {
        files.set(join(...folder, `${p.name}.md`), fileText(p));
      }
    }
  };
  place(null, []);
  if (files.size !== book.pages.length) throw new Error('Some pages are not reachable from the top of the book (a parent cycle)');
  const stale = (await listMarkdown(dir)).filter((f) => !files.has(f));
  if (stale.length) {
    throw new Error(`${dir} already holds markdown files that are not pages of this book (${stale.slice(0, 5).join(', ')}${stale.length > 5 ? ', …' : ''}); remove them or choose an empty folder`);
  }
  for (const [file, text] of files) {
    const path = join(dir, file);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, text, 'utf8');
  }
}
