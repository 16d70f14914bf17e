// Code highlighting loads a language's grammar the first time a text to render has a block of it
// (src/lib/markdown/highlight.server.ts): a process that renders no code never loads one. The
// highlighter is one per process (kept on globalThis, shared by the bundles), and other test files of
// this worker may have loaded grammars into it: the test drops it and imports the module afresh.
import { describe, expect, it, vi } from 'vitest';
import { fenceLanguages } from '../../src/lib/markdown/highlight.server';
import { renderMarkdown } from '../../src/lib/markdown/render';

describe('fenceLanguages', () => {
  it('finds the known languages of fences anywhere, by alias too, once each', () => {
    const md = [
      '```ts', 'const a = 1;', '```',
      '- item', '  ~~~ Python', '  print(1)', '  ~~~',
      '> ```sh', '> ls', '> ```',
      '1. ````rust {1,3}', '   fn main() {}', '   ````',
      '```klingon', 'qapla', '```',
      '```ts', 'again', '```',
      'inline ```js not a fence',
    ].join('\n');
    expect(fenceLanguages(md).sort()).toEqual(['bash', 'python', 'rust', 'typescript']);
    expect(fenceLanguages('no code at all')).toEqual([]);
  });
});

describe('serverHighlight', () => {
  it('highlights a language only once a text with it was prepared, with the same function throughout', async () => {
    delete (globalThis as Record<symbol, unknown>)[Symbol.for('atrium.highlighter')];
    vi.resetModules();
    const { serverHighlight } = await import('../../src/lib/markdown/highlight.server');
    const bare = await serverHighlight('plain text');
    expect(bare('const a: number = 1;', 'ts')).toBeNull();

    const md = '```ts\nconst a: number = 1;\n```';
    const ready = await serverHighlight(md);
    expect(ready).toBe(bare);
    const html = renderMarkdown(md, { highlight: ready }).html;
    expect(html).toContain('class="shiki');
    expect(html).toMatch(/<span style="[^"]*color:[^"]+">const<\/span>/);
    // Another language stays plain until a text with it comes.
    expect(renderMarkdown('```go\nfunc main() {}\n```', { highlight: ready }).html).toContain('<code class="language-go">func main() {}\n</code>');
  });
});
