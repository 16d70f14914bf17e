// Every form in the source either writes (method="post": sent by its script, never a native GET with
// what was typed in the URL) or is a search (method="get" and role="search", a GET by design). And
// every page script that sends forms listens in the capture phase, ahead of the client router,
// which would otherwise turn the form into a page navigation carrying its fields.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { randomUuid } from '../../src/lib/client/secure-context';

const root = join(__dirname, '..', '..');

function files(dir: string, ext: RegExp): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && ext.test(e.name))
    .map((e) => join(e.parentPath, e.name));
}

/** Each `<form …>` opening tag (JSX or Astro), attributes possibly over several lines. */
function formTags(source: string): string[] {
  const tags: string[] = [];
  for (const m of source.matchAll(/<form\b/g)) {
    let depth = 0;
    let end = m.index;
    for (; end < source.length; end++) {
      const c = source[end];
      if (c === '{') depth++;
      else if (c === '}') depth--;
      else if (c === '>' && depth === 0) break;
    }
    tags.push(source.slice(m.index, end + 1));
  }
  return tags;
}

describe('forms', () => {
  const sources = ['src/islands', 'src/components', 'src/pages', 'src/layouts'].flatMap((d) => files(d, /\.(astro|tsx)$/));

  it('each form is a POST, or a search by GET', () => {
    const wrong: string[] = [];
    let count = 0;
    for (const file of sources) {
      const text = readFileSync(file, 'utf8').replace(/^\s*(\*|\/\/).*$/gm, '');
      for (const tag of formTags(text)) {
        count++;
        const post = /\smethod="post"/.test(tag);
        // A GET form searches or filters, or looks something up that it changes nothing by (`data-lookup`:
        // the console reading another market's key before connecting).
        const search = /\smethod="get"/.test(tag) && /\srole="search"|aria-label=\{t\('[\w.]*(filter|search)|\sdata-lookup\b/i.test(tag);
        if (!post && !search) wrong.push(`${relative(root, file)}: ${tag.replace(/\s+/g, ' ')}`);
      }
    }
    expect(count).toBeGreaterThan(40);
    expect(wrong).toEqual([]);
  });

  it('page scripts that send forms listen in the capture phase', () => {
    const scripts = [...files('src/lib/client', /\.ts$/), ...sources.filter((f) => f.endsWith('.astro'))];
    const bubbling: string[] = [];
    for (const file of scripts) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/addEventListener\('submit',/g)) {
        // The whole call, to its closing parenthesis: its last argument must be `true`.
        let depth = 0;
        let end = m.index + 'addEventListener'.length;
        for (; end < text.length; end++) {
          if (text[end] === '(') depth++;
          else if (text[end] === ')' && --depth === 0) break;
        }
        const call = text.slice(m.index, end + 1);
        if (!/,\s*true\s*\)$/.test(call)) bubbling.push(`${relative(root, file)}: ${call.slice(0, 80)}`);
      }
    }
    expect(bubbling).toEqual([]);
  });
});

describe('randomUuid', () => {
  it('gives version-4 UUIDs without crypto.randomUUID', () => {
    const ids = new Set(Array.from({ length: 200 }, () => randomUuid()));
    expect(ids.size).toBe(200);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
