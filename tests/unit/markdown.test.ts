import { beforeAll, describe, expect, it } from 'vitest';
import { renderMarkdown, type RenderOptions } from '../../src/lib/markdown/render';
import { LANGUAGES, serverHighlight } from '../../src/lib/markdown/highlight.server';
import { PAGE_PAYLOADS, liveInjections } from '../helpers/xss';

let highlighted: RenderOptions;
// Every grammar loaded (a fence of each language), so the payloads below meet highlighted code of any kind.
beforeAll(async () => { highlighted = { highlight: await serverHighlight(LANGUAGES.map((l) => `\`\`\`${l}\n\`\`\``).join('\n')) }; }, 30_000);

const ALLOWED_TAGS = new Set(['p', 'a', 'strong', 'em', 'code', 'pre', 'span', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'ul', 'ol', 'li',
  'table', 'thead', 'tbody', 'tr', 'th', 'td', 'div', 'blockquote', 'img', 'input', 'br', 'hr', 's']);

/** What must never come out of member-written markdown: checked on the real tags, not on escaped text. */
function expectInert(html: string): void {
  for (const [, name = '', attrs = ''] of html.matchAll(/<([a-zA-Z][a-zA-Z0-9]*)\b([^>]*)>/g)) {
    expect(ALLOWED_TAGS, `tag <${name}> in ${html}`).toContain(name.toLowerCase());
    // Attribute names only: a quoted value may contain any escaped text.
    expect(attrs.replace(/"[^"]*"/g, '""'), `event handler in <${name}${attrs}>`).not.toMatch(/(?:^|\s)on[a-z]+\s*=/i);
    for (const [, url = ''] of attrs.matchAll(/(?:href|src)\s*=\s*"([^"]*)"/gi)) {
      expect(url, `url in <${name}>`).not.toMatch(/^\s*(?:javascript|vbscript|file):|^\s*data:(?!image\/(?:png|gif|jpeg|webp);)/i);
    }
  }
}

const PAYLOADS = [
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  '<svg onload=alert(1)></svg>',
  '<iframe src="javascript:alert(1)"></iframe>',
  '[click](javascript:alert(1))',
  '[click](JaVaScRiPt:alert(1))',
  '[click](java\tscript:alert(1))',
  '[click](&#106;avascript:alert(1))',
  '[click](<javascript:alert(1)>)',
  '<javascript:alert(1)>',
  '[click](vbscript:msgbox(1))',
  '[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
  '![x](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)',
  '![x](javascript:alert(1))',
  '[x]: javascript:alert(1)\n\n[ref][x]',
  '<a href="javascript:alert(1)">a</a>',
  '<div style="background:url(javascript:alert(1))">x</div>',
  '# Title <script>alert(1)</script>',
  '```"><script>alert(1)</script>\ncode\n```',
  '```html\n<script>alert(1)</script>\n```',
  '**<b onmouseover=alert(1)>bold</b>**',
  '<<script>script>alert(1)<</script>/script>',
  '[a](https://example.com "title\\" onmouseover=\\"alert(1)")',
  '<details open ontoggle=alert(1)>',
];

describe('markdown rendering is inert (XSS suite)', () => {
  it.each(PAYLOADS)('%s', (payload) => {
    expectInert(renderMarkdown(payload).html);
    expectInert(renderMarkdown(payload, highlighted).html);
  });

  // The page corpus (tests/integration/xss-pages.test.ts) through the renderer alone.
  it.each(PAGE_PAYLOADS)('page payload %s', (payload) => {
    expectInert(renderMarkdown(payload).html);
    expect(liveInjections(renderMarkdown(payload, highlighted).html)).toEqual([]);
  });

  it('keeps the text of what it refuses, escaped', () => {
    expect(renderMarkdown('<script>alert(1)</script>').html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('allows ordinary data images only', () => {
    expect(renderMarkdown('![dot](data:image/png;base64,iVBORw0KGgo=)').html).toContain('src="data:image/png;base64,iVBORw0KGgo="');
  });
});

describe('markdown features', () => {
  it('marks members’ web links nofollow ugc noopener, keeps site links plain', () => {
    const html = renderMarkdown('[out](https://example.com) and [in](/ask/info/1) and https://auto.example').html;
    expect(html).toContain('<a href="https://example.com" rel="nofollow ugc noopener">out</a>');
    expect(html).toContain('<a href="/ask/info/1">in</a>');
    expect(html).toContain('<a href="https://auto.example" rel="nofollow ugc noopener">');
  });

  it('gives headings stable ids with anchors, Chinese included, and lists them', () => {
    const { html, headings } = renderMarkdown('# 数据库连接池\n\n## Setup\n\n## Setup\n');
    expect(headings).toEqual([
      { level: 1, text: '数据库连接池', slug: '数据库连接池' },
      { level: 2, text: 'Setup', slug: 'setup' },
      { level: 2, text: 'Setup', slug: 'setup-1' },
    ]);
    expect(html).toContain('<h2 id="setup-1">Setup <a class="anchor" href="#setup-1"');
    expect(html).toContain('href="#%E6%95%B0%E6%8D%AE%E5%BA%93%E8%BF%9E%E6%8E%A5%E6%B1%A0"');
  });

  it('renders tables, task lists and lazy images', () => {
    const html = renderMarkdown('| a | b |\n|---|---|\n| 1 | 2 |\n\n- [x] done\n- [ ] todo\n\n![pic](/storage/a.png)').html;
    // The table's box scrolls sideways: reachable with Tab. Each task's box is named by its text.
    expect(html).toContain('<div class="table-wrap" tabindex="0"><table>');
    expect(html).toContain('<li class="task-item"><label class="task-label"><input type="checkbox" class="task" disabled checked> done</label></li>');
    expect(html).toContain('<label class="task-label"><input type="checkbox" class="task" disabled> todo</label>');
    expect(html).toContain('<img src="/storage/a.png" alt="pic" loading="lazy" decoding="async">');
  });

  it('highlights fenced code at render time, and leaves unknown languages as text', () => {
    const html = renderMarkdown('```ts\nconst a: number = 1;\n```\n\n```klingon\nqapla\n```', highlighted).html;
    expect(html).toContain('class="shiki');
    expect(html).toMatch(/<span style="[^"]*color:[^"]+">const<\/span>/);
    expect(html).toContain('<pre tabindex="0"><code class="language-klingon">qapla\n</code></pre>');
    expect(html.match(/<pre\b[^>]*>/g)?.every((pre) => pre.includes('tabindex="0"'))).toBe(true);
  });
});

describe('task items without text', () => {
  it('renders an empty item as a checkbox, never the text "[ ]"', () => {
    const { html } = renderMarkdown('- [ ] a\n- [ ]\n- [x]  \n');
    expect(html).not.toContain('[ ]');
    expect(html).not.toContain('[x]');
    expect(html.match(/<li class="task-item">(<label class="task-label">)?<input type="checkbox" class="task" disabled( checked)?/g)).toHaveLength(3);
    // Nothing to name the empty ones by: shown, but not announced as unnamed checkboxes.
    expect(html.match(/<input type="checkbox" class="task" disabled( checked)? aria-hidden="true">/g)).toHaveLength(2);
    expect(html).toContain('<label class="task-label"><input type="checkbox" class="task" disabled> a</label>');
  });
});

describe('@username mentions', () => {
  const members = new Map([['alice', 7], ['bob_2', 12]]);

  it('links the members it is given to their cards, in any case, keeping the text as written', () => {
    const { html } = renderMarkdown('Thanks @Alice and @bob_2!', { mentions: members });
    expect(html).toContain('<a href="/user/card/7" class="mention">@Alice</a>');
    expect(html).toContain('<a href="/user/card/12" class="mention">@bob_2</a>!');
  });

  it('leaves unknown names, e-mail addresses, code, links and the preview (no members) as text', () => {
    const { html } = renderMarkdown('@carol me@alice.com `@alice` [see @alice](https://x.test) a/@alice', { mentions: members });
    expect(html).not.toContain('/user/card/');
    expect(renderMarkdown('hi @alice').html).toBe('<p>hi @alice</p>\n');
  });

  it('escapes what surrounds a mention', () => {
    const { html } = renderMarkdown('<b>@alice</b> & "@bob_2"', { mentions: members });
    expect(html).toContain('&lt;b&gt;<a href="/user/card/7" class="mention">@alice</a>&lt;/b&gt; &amp; &quot;<a href="/user/card/12" class="mention">@bob_2</a>&quot;');
  });
});
