// The documents hold together: every relative link in README.md, CONTRIBUTING.md and docs/ names a
// file that exists (and a heading that exists, when it names one), and nothing Atrium can be told
// was lost when README moved into docs/: every environment variable the server reads, every API
// route and every operator command is documented. The in-app guide (docs/en, docs/zh-cn) links
// page to page inside the app; tests/unit/md-folder.test.ts checks those links.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import GithubSlugger from 'github-slugger';
import { describe, expect, it } from 'vitest';
import '../../src/lib/server/boot/commands';
import { listCommands } from '../../src/lib/server/commands';

const ROOT = join(import.meta.dirname, '..', '..');
const read = (file: string): string => readFileSync(join(ROOT, file), 'utf8');

function files(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]));
}

const GUIDE = [join('docs', 'en') + sep, join('docs', 'zh-cn') + sep];
/** The repository's documents (the in-app guide aside). */
const DOCUMENTS = ['README.md', 'CONTRIBUTING.md', ...files('docs').filter((f) => f.endsWith('.md') && !GUIDE.some((g) => f.startsWith(g)))];
/** Where an operator looks things up: README and the operator documents. */
const OPERATOR_DOCS = ['README.md', ...files(join('docs', 'operators')).filter((f) => f.endsWith('.md'))];

/** Markdown without its fenced blocks and code spans, where a `[x](y)` is not a link. */
const prose = (text: string): string => text.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');

/** The targets of the inline links of a markdown text: `[text](target)`, titles dropped. */
const links = (text: string): string[] => [...prose(text).matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!);

/** The anchors GitHub gives the headings of a markdown file. */
function anchors(file: string): Set<string> {
  const slugger = new GithubSlugger();
  const text = read(file).replace(/^```[\s\S]*?^```/gm, '');
  return new Set([...text.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)].map((m) => slugger.slug(m[1]!.replace(/`/g, ''))));
}

/** What is wrong with each relative link of `file`: a missing file, or a heading it does not have. */
function brokenLinks(file: string, text = read(file)): string[] {
  const broken: string[] = [];
  for (const target of links(text)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
    const [path = '', hash] = target.split('#');
    const resolved = path ? relative(ROOT, join(ROOT, dirname(file), decodeURIComponent(path))) : file;
    if (resolved.startsWith('..') || !existsSync(join(ROOT, resolved))) {
      broken.push(`${file}: ${target} (no ${resolved})`);
      continue;
    }
    if (hash && resolved.endsWith('.md') && statSync(join(ROOT, resolved)).isFile() && !anchors(resolved).has(hash)) broken.push(`${file}: ${target} (no heading #${hash} in ${resolved})`);
  }
  return broken;
}

/**
 * Every environment variable the server reads: `env.X`, `process.env.X`, `env['X']` anywhere under
 * src/, `process.env[NAME]` through a constant, and the names the cloud-upload settings look up in
 * pairs (`e('S3_BUCKET', 'COS_BUCKET')`).
 */
function readNames(): Set<string> {
  const names = new Set<string>();
  for (const f of files('src').filter((f) => /\.(ts|tsx|mjs|astro)$/.test(f))) {
    const text = read(f);
    for (const m of text.matchAll(/\b(?:env|process\.env)\.([A-Z][A-Z0-9_]+)/g)) names.add(m[1]!);
    for (const m of text.matchAll(/\benv\[['"]([A-Z][A-Z0-9_]+)['"]\]/g)) names.add(m[1]!);
    for (const m of text.matchAll(/\be\('([A-Z][A-Z0-9_]+)', '([A-Z][A-Z0-9_]+)'\)/g)) names.add(m[1]!).add(m[2]!);
    for (const m of text.matchAll(/\bprocess\.env\[([A-Za-z_][A-Za-z0-9_]*)\]/g)) {
      const value = new RegExp(`\\bconst ${m[1]} = '([A-Z][A-Z0-9_]+)'`).exec(text)?.[1];
      if (value) names.add(value);
    }
  }
  // Astro's `import.meta.env.DEV` (development server or build), not a variable anyone sets.
  names.delete('DEV');
  return names;
}

/** A name is documented where it stands in code, alone or with a value: `NAME`, `NAME=…`, `NAME` / `OTHER`. */
const documents = (text: string, name: string): boolean => new RegExp(`\`\\$?${name}(?:[=\`\\s/,]|\\b(?!_))`).test(text);

/** `/api/a/b|c|d` (and `/api/a/b/c|d`) in the documents → the routes it names, lower-case. */
function documentedRoutes(text: string): Set<string> {
  const found = new Set<string>();
  for (const m of text.matchAll(/\/api\/([A-Za-z0-9_]+)\/([A-Za-z0-9_|]+)/g)) for (const action of m[2]!.split('|')) if (action) found.add(`/api/${m[1]}/${action}`.toLowerCase());
  // Routes one folder deeper (`/api/market/remote/list|package`).
  for (const m of text.matchAll(/\/api\/([A-Za-z0-9_]+\/[A-Za-z0-9_]+)\/([A-Za-z0-9_|]+)/g)) for (const action of m[2]!.split('|')) if (action) found.add(`/api/${m[1]}/${action}`.toLowerCase());
  return found;
}

describe('links in README.md, CONTRIBUTING.md and docs/', () => {
  it('name files and headings that exist', () => {
    expect(DOCUMENTS.length).toBeGreaterThan(10);
    expect(DOCUMENTS.flatMap((f) => brokenLinks(f))).toEqual([]);
  });

  it('the checker catches a missing file, a missing heading and a path out of the repository', () => {
    const text = '[ok](docs/operators/nginx.md#atriums-settings-behind-nginx) [dir](deploy/) [web](https://example.com) `[code](nope.md)` [gone](docs/nope.md) [bad](docs/api.md#no-such-heading) [out](../elsewhere.md)';
    expect(brokenLinks('README.md', text)).toEqual([
      'README.md: docs/nope.md (no docs/nope.md)',
      'README.md: docs/api.md#no-such-heading (no heading #no-such-heading in docs/api.md)',
      'README.md: ../elsewhere.md (no ../elsewhere.md)',
    ]);
  });

  it('README stays a short page for users and operators that links the rest', () => {
    const readme = read('README.md');
    expect(readme.split('\n').length).toBeLessThanOrEqual(200);
    for (const doc of ['CONTRIBUTING.md', 'docs/api.md', 'docs/modules.md', 'docs/features.md', ...OPERATOR_DOCS.filter((f) => f !== 'README.md').map((f) => f.split(sep).join('/'))]) {
      expect(links(readme).map((l) => l.split('#')[0]), doc).toContain(doc);
    }
  });
});

describe('nothing lost when README moved into docs/', () => {
  const operatorText = OPERATOR_DOCS.map(read).join('\n');

  it('every environment variable the server reads is documented in README or docs/operators', () => {
    const names = readNames();
    // The extraction finds what it should (a broken one would make this test pass on nothing).
    expect(names.size).toBeGreaterThan(50);
    for (const name of ['DATABASE_URL', 'S3_BUCKET', 'COS_BUCKET', 'SMTP_HOST', 'CHAT_BASE_URL', 'PAGER', 'ATRIUM_FIRST_START_DONE']) expect(names, name).toContain(name);
    expect([...names].filter((n) => !documents(operatorText, n))).toEqual([]);
    // …and the check tells a documented name from one that is not.
    expect(documents('`REDIS_URL` and `REDIS_PREFIX`', 'REDIS_PREFIX')).toBe(true);
    expect(documents('`REDIS_URL`', 'REDIS')).toBe(false);
    expect(documents('`S3_ACCESS_KEY_ID` / `S3_SECRET_ACCESS_KEY`', 'S3_ACCESS_KEY')).toBe(false);
  });

  it('every API route under src/pages/api is documented in docs/', () => {
    const routes = files(join('src', 'pages', 'api')).filter((f) => f.endsWith('.ts') && !f.includes('[')).map((f) => `/${relative(join('src', 'pages'), f).split(sep).join('/').replace(/\.ts$/, '').replace(/\/index$/, '')}`);
    expect(routes.length).toBeGreaterThan(100);
    const documented = documentedRoutes(DOCUMENTS.map(read).join('\n'));
    expect(routes.filter((r) => !documented.has(r.toLowerCase()))).toEqual([]);
  });

  it('every operator command is documented in docs/operators/cli.md', () => {
    const cli = read('docs/operators/cli.md');
    // The commands are the registry's (every area's lib/server/<area>/commands.ts, loaded by boot/).
    const commands = new Set(listCommands().map((c) => c.name));
    for (const c of ['config:set', 'user:create', 'backup', 'restore', 'chat:add']) expect(commands, c).toContain(c);
    expect([...commands].filter((c) => !cli.includes(`\`${c}`))).toEqual([]);
  });
});
