// The one markdown pipeline (forum posts, replies, documents, module descriptions), used by the
// server and by the editor's live preview so both show the same thing. Raw HTML is off: whatever
// a member types is text unless markdown makes it an element, so nothing they write can run.
import MarkdownIt from 'markdown-it';
import type StateCore from 'markdown-it/lib/rules_core/state_core.mjs';
import type Token from 'markdown-it/lib/token.mjs';
import GithubSlugger from 'github-slugger';

/** Highlights one fenced block; returns HTML or null to leave it as escaped plain text. */
export type Highlight = (code: string, lang: string) => string | null;

/**
 * Markdown a module renders (`contributes.markdown` in its manifest): the site's parser finds the
 * spans by the delimiters declared here and leaves a placeholder; the module turns the spans'
 * text into HTML (on the server in its host process, in the browser with its browser half) and
 * `applyClaims` puts the sanitised result in place.
 */
export interface MarkdownExtension {
  uid: string;
  inline?: readonly { open: string; close: string }[];
  block?: readonly { open: string; close: string }[];
  fence?: readonly string[];
}

/** A span of the source a module claimed, in document order (its index is its placeholder's). */
export interface Claim {
  uid: string;
  kind: 'inline' | 'block' | 'fence';
  src: string;
  /** The delimiters around `src` as typed, shown with the source when the module cannot render it. */
  open: string;
  close: string;
}

export interface RenderOptions {
  highlight?: Highlight;
  /** Modules' markdown (none: every `$` is text, every fence code). */
  extensions?: readonly MarkdownExtension[];
  /**
   * Members `@username` may link to: lower-cased username → member id. Names not in the map stay
   * text (the editor preview passes none; the server looks the names up before rendering).
   */
  mentions?: ReadonlyMap<string, number>;
}

export interface Heading {
  level: number;
  text: string;
  slug: string;
}

export interface Rendered {
  html: string;
  headings: Heading[];
  /** The spans modules claimed; `html` holds a placeholder for each until `applyClaims`. */
  claims: Claim[];
}

const SAFE_IMAGE_DATA = /^data:image\/(?:gif|png|jpeg|webp);/i;
const SAFE_PROTOCOL = /^(?:https?:|mailto:|tel:|\/|#|\.{0,2}\/|[^:]*$)/i;

/** Links: only web, mail and relative targets, whatever entities or case tricks are used. */
function validateLink(url: string): boolean {
  const trimmed = url.trim().replace(/[\u0000-\u0020\u007f-\u009f]/g, '');
  if (SAFE_IMAGE_DATA.test(trimmed)) return true;
  return SAFE_PROTOCOL.test(trimmed);
}

/**
 * `- [ ] item` and `- [x] item` become disabled checkboxes inside a label holding the item's text,
 * so a screen reader names each box by its item ("done, checkbox, checked, dimmed"). An item
 * without text has nothing to be named by: its box is shown but kept out of the accessibility tree.
 */
function taskLists(state: StateCore): void {
  const tokens = state.tokens;
  for (let i = 2; i < tokens.length; i++) {
    const inline = tokens[i]!;
    if (inline.type !== 'inline' || tokens[i - 1]?.type !== 'paragraph_open' || tokens[i - 2]?.type !== 'list_item_open') continue;
    // `- [ ]` with nothing after it is an empty item: a checkbox, never the text "[ ]".
    const m = /^\[([ xX])\](?:\s+|$)/.exec(inline.content);
    if (!m || !inline.children?.[0]) continue;
    const first = inline.children[0];
    first.content = first.content.slice(m[0].length);
    const checked = m[1] === ' ' ? '' : ' checked';
    const box = new state.Token('html_inline', '', 0);
    const empty = inline.children.every((c) => c.type === 'softbreak' || (c.type === 'text' && !c.content.trim()));
    if (empty) {
      box.content = `<input type="checkbox" class="task" disabled${checked} aria-hidden="true"> `;
      inline.children.unshift(box);
    } else {
      box.content = `<label class="task-label"><input type="checkbox" class="task" disabled${checked}> `;
      const close = new state.Token('html_inline', '', 0);
      close.content = '</label>';
      inline.children.unshift(box);
      inline.children.push(close);
    }
    tokens[i - 2]!.attrJoin('class', 'task-item');
  }
}

interface Env {
  headings: Heading[];
  slugger: GithubSlugger;
  mentions: ReadonlyMap<string, number> | null;
  claims: Claim[];
}

// A placeholder only the renderer can write: raw HTML is off, so a member's `<!--` is escaped text.
const placeholder = (i: number): string => `<!--atrium-claim:${i}-->`;
const PLACEHOLDER = /<!--atrium-claim:(\d+)-->/g;

interface ClaimMeta { uid: string; open: string; close: string }

/** Whether `$` at `pos` may open or close a `$…$` span (pandoc's rule: no space inside, no digit after the close). */
function tightSpan(src: string, start: number, end: number, close: string, endOfClose: number): boolean {
  if (end <= start) return false;
  if (/\s/.test(src[start]!) || /\s/.test(src[end - 1]!)) return false;
  return !(close === '$' && /\d/.test(src[endOfClose] ?? ''));
}

/** Finds `close` after `from`, skipping backslash-escaped characters; -1 when absent. */
function findClose(src: string, from: number, max: number, close: string): number {
  for (let i = from; i < max; i++) {
    if (src[i] === '\\') {
      i++;
      continue;
    }
    if (src.startsWith(close, i)) return i;
  }
  return -1;
}

/** The parser rules and renderers of modules' spans, blocks and fences. */
function moduleSyntax(md: MarkdownIt, extensions: readonly MarkdownExtension[]): void {
  const inline = extensions.flatMap((e) => (e.inline ?? []).map((d) => ({ uid: e.uid, ...d }))).sort((a, b) => b.open.length - a.open.length);
  const block = extensions.flatMap((e) => (e.block ?? []).map((d) => ({ uid: e.uid, ...d }))).sort((a, b) => b.open.length - a.open.length);
  const fences = new Map<string, string>();
  for (const e of extensions) for (const lang of e.fence ?? []) if (!fences.has(lang)) fences.set(lang, e.uid);
  const claim = (env: Env, c: Claim): string => `${placeholder(env.claims.push(c) - 1)}`;

  if (inline.length) {
    md.inline.ruler.after('escape', 'module-inline', (state, silent) => {
      const src = state.src;
      for (const d of inline) {
        if (!src.startsWith(d.open, state.pos)) continue;
        const start = state.pos + d.open.length;
        const end = findClose(src, start, state.posMax, d.close);
        if (end < 0 || !tightSpan(src, start, end, d.close, end + d.close.length)) continue;
        if (!silent) {
          const token = state.push('module_inline', '', 0);
          token.content = src.slice(start, end);
          token.meta = { uid: d.uid, open: d.open, close: d.close } satisfies ClaimMeta;
        }
        state.pos = end + d.close.length;
        return true;
      }
      return false;
    });
    md.renderer.rules.module_inline = (tokens, idx, _o, env: Env) => {
      const t = tokens[idx]!;
      const m = t.meta as ClaimMeta;
      return claim(env, { uid: m.uid, kind: 'inline', src: t.content, open: m.open, close: m.close });
    };
  }
  if (block.length) {
    md.block.ruler.before('fence', 'module-block', (state, startLine, endLine, silent) => {
      if (state.sCount[startLine]! - state.blkIndent >= 4) return false;
      const first = state.src.slice(state.bMarks[startLine]! + state.tShift[startLine]!, state.eMarks[startLine]).trimEnd();
      const d = block.find((b) => first.startsWith(b.open));
      if (!d) return false;
      const rest = first.slice(d.open.length);
      let line = startLine;
      let content: string;
      if (rest.length >= d.close.length && rest.endsWith(d.close) && rest.trim() !== '') {
        content = rest.slice(0, -d.close.length);
      } else {
        const lines = rest.trim() ? [rest] : [];
        for (line = startLine + 1; line < endLine; line++) {
          const text = state.src.slice(state.bMarks[line]! + state.tShift[line]!, state.eMarks[line]).trimEnd();
          if (text.endsWith(d.close)) {
            lines.push(text.slice(0, -d.close.length));
            break;
          }
          lines.push(state.src.slice(state.bMarks[line]!, state.eMarks[line]));
        }
        if (line >= endLine) return false;
        content = lines.join('\n');
      }
      if (!content.trim()) return false;
      if (silent) return true;
      const token = state.push('module_block', '', 0);
      token.block = true;
      token.content = content.trim();
      token.map = [startLine, line + 1];
      token.meta = { uid: d.uid, open: d.open, close: d.close } satisfies ClaimMeta;
      state.line = line + 1;
      return true;
    }, { alt: ['paragraph', 'reference', 'blockquote', 'list'] });
    md.renderer.rules.module_block = (tokens, idx, _o, env: Env) => {
      const t = tokens[idx]!;
      const m = t.meta as ClaimMeta;
      return `${claim(env, { uid: m.uid, kind: 'block', src: t.content, open: m.open, close: m.close })}\n`;
    };
  }
  if (fences.size) {
    const fence = md.renderer.rules.fence!;
    md.renderer.rules.fence = (tokens, idx, opts, env: Env, self) => {
      const t = tokens[idx]!;
      const lang = t.info.trim().split(/\s+/)[0]?.toLowerCase() ?? '';
      const uid = fences.get(lang);
      if (!uid) return fence(tokens, idx, opts, env, self);
      return `${claim(env, { uid, kind: 'fence', src: t.content.replace(/\n$/, ''), open: `${t.markup}${lang}\n`, close: `\n${t.markup}` })}\n`;
    };
  }
}

/**
 * Puts each claim's HTML in place of its placeholder, inside the site's own wrapper (a span for
 * inline spans, a div for blocks) that names the module. A claim without output (the module failed
 * or is gone) shows its source as typed, as code. `outputs` must already be sanitised.
 */
export function applyClaims(html: string, claims: readonly Claim[], outputs: readonly (string | null | undefined)[]): string {
  if (!claims.length) return html;
  return html.replace(PLACEHOLDER, (_, n: string) => {
    const c = claims[Number(n)];
    if (!c) return '';
    const out = outputs[Number(n)];
    const uid = escapeAttr(c.uid);
    if (c.kind === 'inline') {
      return out != null ? `<span class="md-ext" data-ext="${uid}">${out}</span>` : `<code class="md-ext-source" data-ext="${uid}">${escapeText(c.open + c.src + c.close)}</code>`;
    }
    return out != null
      ? `<div class="md-ext md-ext-block" data-ext="${uid}">${out}</div>`
      : `<pre class="md-ext-source" data-ext="${uid}" tabindex="0"><code>${escapeText(c.open + c.src + c.close)}</code></pre>`;
  });
}

const escapeText = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const escapeAttr = (s: string): string => escapeText(s).replace(/"/g, '&quot;');

/** `@username` (the sign-up rule: a letter, then 2–14 letters, digits or `_`), not inside a word, e-mail or path. */
export const MENTION = /(^|[^\w@/])@([a-zA-Z][a-zA-Z0-9_]{2,14})\b/g;

/**
 * `@username` of a known member becomes a link to their card. Text inside links and code is left
 * alone; the name is a text token, so the renderer escapes it like any other text.
 */
function mentionLinks(state: StateCore): void {
  const known = (state.env as Env).mentions;
  if (!known || known.size === 0) return;
  for (const block of state.tokens) {
    if (block.type !== 'inline' || !block.children) continue;
    const out: Token[] = [];
    let inLink = 0;
    for (const child of block.children) {
      if (child.type === 'link_open') inLink++;
      if (child.type === 'link_close') inLink--;
      if (child.type !== 'text' || inLink > 0 || !child.content.includes('@')) {
        out.push(child);
        continue;
      }
      let last = 0;
      const text = child.content;
      for (const m of text.matchAll(MENTION)) {
        const id = known.get(m[2]!.toLowerCase());
        if (id === undefined) continue;
        const at = m.index + m[1]!.length;
        if (at > last) out.push(Object.assign(new state.Token('text', '', 0), { content: text.slice(last, at) }));
        const open = new state.Token('link_open', 'a', 1);
        open.attrs = [['href', `/user/card/${id}`], ['class', 'mention']];
        out.push(open, Object.assign(new state.Token('text', '', 0), { content: `@${m[2]}` }), new state.Token('link_close', 'a', -1));
        last = at + 1 + m[2]!.length;
      }
      if (last === 0) out.push(child);
      else if (last < text.length) out.push(Object.assign(new state.Token('text', '', 0), { content: text.slice(last) }));
    }
    block.children = out;
  }
}

/** Heading ids (GitHub's slugs, CJK kept) and an anchor link, collected for a table of contents. */
function headingAnchors(state: StateCore): void {
  const env = state.env as Env;
  state.tokens.forEach((token, i) => {
    if (token.type !== 'heading_open') return;
    const inline = state.tokens[i + 1];
    const text = inlineText(inline);
    const slug = env.slugger.slug(text) || `section-${env.headings.length + 1}`;
    token.attrSet('id', slug);
    env.headings.push({ level: Number(token.tag.slice(1)), text, slug });
    const anchor = new state.Token('html_inline', '', 0);
    anchor.content = ` <a class="anchor" href="#${encodeURIComponent(slug)}" aria-hidden="true" tabindex="-1">#</a>`;
    inline?.children?.push(anchor);
  });
}

const CALLOUT = /^:::\s*(tip|note|info|warning|danger)(?:\s+(.*))?$/;

/**
 * Callouts (`::: tip|note|info|warning|danger [title]` … `:::`): a block whose inside is ordinary
 * markdown. The optional title is text, escaped like everything else.
 */
function callouts(md: MarkdownIt): void {
  md.block.ruler.before('fence', 'callout', (state, startLine, endLine, silent) => {
    const start = state.bMarks[startLine]! + state.tShift[startLine]!;
    const open = CALLOUT.exec(state.src.slice(start, state.eMarks[startLine]).trim());
    if (!open || state.sCount[startLine]! - state.blkIndent >= 4) return false;
    if (silent) return true;
    let line = startLine + 1;
    for (; line < endLine; line++) {
      const s = state.bMarks[line]! + state.tShift[line]!;
      if (state.src.slice(s, state.eMarks[line]).trim() === ':::' && state.sCount[line]! <= state.blkIndent) break;
    }
    const kind = open[1]!;
    const token = state.push('callout_open', 'div', 1);
    token.attrSet('class', `callout callout-${kind}`);
    token.attrSet('role', 'note');
    token.meta = { title: (open[2] ?? '').trim() };
    token.map = [startLine, line];
    const oldParent = state.parentType;
    const oldLineMax = state.lineMax;
    state.parentType = 'blockquote' as typeof state.parentType;
    state.lineMax = line;
    state.md.block.tokenize(state, startLine + 1, line);
    state.parentType = oldParent;
    state.lineMax = oldLineMax;
    state.push('callout_close', 'div', -1);
    state.line = Math.min(line + 1, endLine);
    return true;
  }, { alt: ['paragraph', 'reference', 'blockquote', 'list'] });
  md.renderer.rules.callout_open = (tokens, idx) => {
    const token = tokens[idx]!;
    const title = (token.meta as { title: string }).title;
    return `<div class="${token.attrGet('class')}" role="note">${title ? `<p class="callout-title">${md.utils.escapeHtml(title)}</p>` : ''}\n`;
  };
  md.renderer.rules.callout_close = () => '</div>\n';
}

function inlineText(token: Token | undefined): string {
  return (token?.children ?? []).filter((t) => t.type === 'text' || t.type === 'code_inline').map((t) => t.content).join('');
}

function createParser(options: RenderOptions): MarkdownIt {
  const md = new MarkdownIt({
    html: false,
    linkify: true,
    typographer: false,
    breaks: false,
    highlight: (code, lang) => {
      const language = lang.trim().split(/\s+/)[0]?.toLowerCase() ?? '';
      return (language && options.highlight?.(code, language)) || '';
    },
  });
  md.validateLink = validateLink;
  md.use(callouts);
  if (options.extensions?.length) moduleSyntax(md, options.extensions);
  md.core.ruler.after('inline', 'task-lists', taskLists);
  md.core.ruler.after('task-lists', 'mentions', mentionLinks);
  md.core.ruler.push('heading-anchors', headingAnchors);

  const defaultLink = md.renderer.rules.link_open ?? ((tokens, idx, opts, _env, self) => self.renderToken(tokens, idx, opts));
  md.renderer.rules.link_open = (tokens, idx, opts, env, self) => {
    const href = tokens[idx]!.attrGet('href') ?? '';
    // Members' links are theirs, not the site's: no ranking credit, no access to this window.
    if (/^https?:/i.test(href)) tokens[idx]!.attrSet('rel', 'nofollow ugc noopener');
    return defaultLink(tokens, idx, opts, env, self);
  };
  const defaultImage = md.renderer.rules.image!;
  md.renderer.rules.image = (tokens, idx, opts, env, self) => {
    tokens[idx]!.attrSet('loading', 'lazy');
    tokens[idx]!.attrSet('decoding', 'async');
    return defaultImage(tokens, idx, opts, env, self);
  };
  // Code blocks and tables scroll sideways in their own box: keyboard users reach it with Tab and
  // scroll it with the arrow keys (shiki's own <pre> already has tabindex="0").
  for (const rule of ['fence', 'code_block'] as const) {
    const render = md.renderer.rules[rule]!;
    md.renderer.rules[rule] = (tokens, idx, opts, env, self) => render(tokens, idx, opts, env, self).replace(/^<pre(?![^>]*\btabindex=)/, '<pre tabindex="0"');
  }
  md.renderer.rules.table_open = () => '<div class="table-wrap" tabindex="0"><table>\n';
  md.renderer.rules.table_close = () => '</table></div>\n';
  return md;
}

// One parser per highlighter and set of extensions (the options object may be new on every call:
// it carries the mentions). The set is keyed by identity: the server keeps one array per set.
const parsers = new WeakMap<Highlight | typeof PLAIN, WeakMap<readonly MarkdownExtension[], MarkdownIt>>();
const PLAIN: RenderOptions = {};
const NO_EXTENSIONS: readonly MarkdownExtension[] = [];

/**
 * Renders markdown to safe HTML and lists its headings, so a table of contents and
 * `page#heading` links work. With `extensions`, modules' spans are left as placeholders listed in
 * `claims` (see `applyClaims`).
 */
export function renderMarkdown(source: string, options: RenderOptions = PLAIN): Rendered {
  const key = options.highlight ?? PLAIN;
  const extensions = options.extensions?.length ? options.extensions : NO_EXTENSIONS;
  let byExtensions = parsers.get(key);
  if (!byExtensions) parsers.set(key, (byExtensions = new WeakMap()));
  let md = byExtensions.get(extensions);
  if (!md) {
    md = createParser({ highlight: options.highlight, extensions });
    byExtensions.set(extensions, md);
  }
  const env: Env = { headings: [], slugger: new GithubSlugger(), mentions: options.mentions ?? null, claims: [] };
  const html = md.render(source, env);
  return { html, headings: env.headings, claims: env.claims };
}
