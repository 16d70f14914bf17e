// The XSS corpus for whole pages: payloads that carry the marker X7S (a bare identifier, so it stays
// visible whichever quotes a payload uses), and a check that finds live markup in server-rendered
// HTML: a tag or attribute that came from a payload, an event handler or a script URL holding the
// marker, or a script that runs it. Escaped text holding the marker is what should be there.

export const MARK = 'X7S';

export const PAGE_PAYLOADS = [
  '<script>alert(X7S)</script>',
  '<img src=x onerror=alert(X7S)>',
  '"><svg onload=alert(X7S)>',
  "'><details open ontoggle=alert(X7S)>",
  '</title></textarea></script><script>alert(X7S)</script>',
  '<a href="javascript:alert(X7S)">X7S link</a>',
  '[X7S link](javascript:alert(X7S)) ![X7S](javascript:alert(X7S))',
  '<iframe srcdoc="<script>alert(X7S)</script>"></iframe>',
  '\u2028</script><script>alert(X7S)</script><!--',
  '<style>*{background:url("javascript:alert(X7S)")}</style>',
];

/** All payloads in one text, for fields that hold long text. */
export const ALL_PAYLOADS = PAGE_PAYLOADS.join('\n\n');

const decode = (s: string): string => s
  .replace(/&#x([0-9a-f]+);?/gi, (_, h: string) => String.fromCodePoint(parseInt(h, 16)))
  .replace(/&#(\d+);?/g, (_, d: string) => String.fromCodePoint(Number(d)))
  .replace(/&colon;/gi, ':').replace(/&tab;/gi, '\t').replace(/&newline;/gi, '\n').replace(/&quot;/g, '"').replace(/&amp;/g, '&');

const URL_ATTRS = new Set(['href', 'src', 'action', 'formaction', 'xlink:href', 'data', 'poster', 'background']);

type Token = { kind: 'tag'; name: string; attrs: string; tag: string } | { kind: 'raw'; name: string; attrs: string; body: string };

/** Tags (attributes read with their quotes, as a browser does) and the raw text of script, style, textarea and title. */
function* tokens(html: string): Generator<Token> {
  const lower = html.toLowerCase();
  let i = 0;
  while (i < html.length) {
    const lt = html.indexOf('<', i);
    if (lt < 0) return;
    if (html.startsWith('<!--', lt)) {
      const end = html.indexOf('-->', lt + 4);
      i = end < 0 ? html.length : end + 3;
      continue;
    }
    const m = /^<([a-zA-Z][\w:-]*)/.exec(html.slice(lt, lt + 64));
    if (!m) { i = lt + 1; continue; }
    let j = lt + m[0].length;
    let quote = '';
    for (; j < html.length; j++) {
      const c = html[j];
      if (quote) { if (c === quote) quote = ''; } else if ((c === '"' || c === "'") && /=\s*$/.test(html.slice(Math.max(lt, j - 8), j))) quote = c; else if (c === '>') break;
    }
    const name = m[1]!.toLowerCase();
    const attrs = html.slice(lt + m[0].length, j);
    yield { kind: 'tag', name, attrs, tag: html.slice(lt, j + 1) };
    i = j + 1;
    if (['script', 'style', 'textarea', 'title'].includes(name)) {
      const close = lower.indexOf(`</${name}`, i);
      const end = close < 0 ? html.length : close;
      yield { kind: 'raw', name, attrs, body: html.slice(i, end) };
      i = end;
    }
  }
}

/** Live markup the marker reached in `html`; [] when every payload is inert text. */
export function liveInjections(html: string): string[] {
  const found: string[] = [];
  for (const t of tokens(html)) {
    if (t.kind === 'raw') {
      if (!t.body.includes(MARK) || t.name === 'textarea' || t.name === 'title') continue;
      // Executable script and style blocks may not hold the marker; JSON ones must still be JSON.
      if (t.name === 'script' && /type\s*=\s*["']?application\/(?:ld\+)?json/i.test(t.attrs)) {
        try { JSON.parse(t.body); } catch { found.push(`a JSON script broken open: ${t.body.slice(0, 160)}`); }
      } else found.push(`a ${t.name} block holding member text: ${t.body.slice(0, 160)}`);
      continue;
    }
    const { tag, name, attrs } = t;
    if (!tag.includes(MARK)) continue;
    // Outside quoted values the marker is markup the page did not write.
    if (attrs.replace(/=\s*(?:"[^"]*"|'[^']*')/g, '=""').includes(MARK)) { found.push(`injected markup: ${tag.slice(0, 160)}`); continue; }
    for (const [, attr = '', dq, sq] of attrs.matchAll(/([\w:-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) {
      const value = decode(dq ?? sq ?? '');
      if (!value.includes(MARK)) continue;
      const a = attr.toLowerCase();
      if (a.startsWith('on')) found.push(`event handler with member text on <${name}>: ${tag.slice(0, 160)}`);
      else if (a === 'srcdoc') found.push(`srcdoc with member text on <${name}>: ${tag.slice(0, 160)}`);
      else if (URL_ATTRS.has(a) && /^(?:javascript|vbscript|data):/i.test(value.replace(/[\u0000-\u0020]/g, ''))) found.push(`script URL on <${name}>: ${tag.slice(0, 160)}`);
      else if (a === 'style' && /javascript:|expression\(/i.test(value)) found.push(`script in a style attribute on <${name}>: ${tag.slice(0, 160)}`);
    }
  }
  return found;
}
