// Cache invalidation travels with the write (src/lib/server/write-scope.ts): the function that changes
// data declares the tags it touched, so an API handler, the CLI and the server's entry never drop
// caches themselves, and pages name their tags through the areas' tag functions, not free strings.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/paths';

function filesUnder(dir: string, ext: RegExp): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && ext.test(e.name))
    .map((e) => join(e.parentPath, e.name));
}

/** `file:line: text` of every line matching `pattern`. */
function hits(files: string[], pattern: RegExp): string[] {
  return files.flatMap((f) => readFileSync(f, 'utf8').split('\n').flatMap((line, i) => (pattern.test(line) ? [`${relative(ROOT, f)}:${i + 1}: ${line.trim()}`] : [])));
}

const DIRECT = /\binvalidate\s*\(|\.pageCache\.invalidate|\.rules\.invalidate|\.invalidation\.publish/;

describe('where cache invalidation lives', () => {
  it('no API handler drops a cache itself: its service declares what it touched', () => {
    const files = filesUnder(join(ROOT, 'src', 'pages', 'api'), /\.ts$/);
    expect(files.length).toBeGreaterThan(100);
    expect(hits(files, DIRECT)).toEqual([]);
  });

  it('neither do the server\'s entry, its CLI and raw routes (src/server)', () => {
    expect(hits(filesUnder(join(ROOT, 'src', 'server'), /\.ts$/), DIRECT)).toEqual([]);
  });

  it('the areas\' CLI commands leave it to the services they call', () => {
    const commands = filesUnder(join(ROOT, 'src', 'lib', 'server'), /^(commands|rule-commands)\.ts$/).filter((f) => !f.includes(`${join('server', 'modules')}`));
    expect(commands.length).toBeGreaterThan(5);
    expect(hits(commands, DIRECT)).toEqual([]);
  });

  it('pages name their cache tags through the areas\' tag functions, never as string literals', () => {
    const pages = filesUnder(join(ROOT, 'src', 'pages'), /\.(astro|ts)$/);
    expect(hits(pages, /cacheTags\s*=\s*\[[^\]]*['"`]/)).toEqual([]);
    expect(hits(pages, /cacheTags\s*=/).length).toBeGreaterThan(10);
  });
});
