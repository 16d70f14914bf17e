// The built-in site assistant: no generative model. It answers from retrieval alone, honestly
// labelled: a lead from the best-matching section, the passages quoted with their links, related
// forum questions, or an offer to ask the forum with the question filled in.
import type { Locale } from '../../i18n';
import { frameLine } from '../../shared/chat-frame';
import { plainText, withoutCalloutMarkers } from '../search/text';
import type { Source } from './retrieve';

function firstSentence(text: string): string {
  const m = /^[\s\S]{20,}?[.!?。！？](?=\s|$)/u.exec(text);
  const s = (m ? m[0] : text).trim();
  return Array.from(s).length > 220 ? `${Array.from(s).slice(0, 220).join('')}…` : s;
}

function shorten(text: string, chars: number): string {
  const all = Array.from(text);
  return all.length > chars ? `${all.slice(0, chars).join('').trimEnd()}…` : text;
}

/** A passage's markdown in blocks: a fenced code block, a table, a list or a paragraph each. */
function blocksOf(markdown: string): string[] {
  const blocks: string[] = [];
  let current: string[] = [];
  let fence: string | null = null;
  const end = (): void => {
    if (current.length) blocks.push(current.join('\n'));
    current = [];
  };
  for (const line of withoutCalloutMarkers(markdown).split('\n')) {
    const f = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (f && !fence) {
      end();
      fence = f[1]![0]!;
      current.push(line);
      continue;
    }
    if (fence) {
      current.push(line);
      if (f && f[1]![0] === fence) { fence = null; end(); }
      continue;
    }
    if (!line.trim()) { end(); continue; }
    // A heading inside the passage becomes a bold line: the quote is under the section's own title.
    const h = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (h) { end(); blocks.push(`**${h[1]}**`); continue; }
    current.push(line);
  }
  if (fence) current.push(fence.repeat(3));
  end();
  return blocks;
}

const isTable = (block: string): boolean => /^\s*\|/.test(block) && /\n\s*\|?\s*:?-{3,}/.test(block);
const isFence = (block: string): boolean => /^\s{0,3}(`{3,}|~{3,})/.test(block);
const isList = (block: string): boolean => /^\s{0,3}([-*+]|\d+[.)])\s/.test(block);

/**
 * The start of a passage, quoted, about `chars` characters long, cut only between blocks: a code
 * block, a table and a list are kept whole (a long one cut at a line, a code block closed again),
 * never run together into one line. The first block is always there.
 */
export function quoteMarkdown(markdown: string, chars = 600): string {
  const out: string[] = [];
  let used = 0;
  let more = false;
  for (const block of blocksOf(markdown)) {
    const size = Array.from(block).length;
    if (out.length && used + size > chars) { more = true; break; }
    if (size <= chars * 1.5 || !out.length && !(isFence(block) || isTable(block) || isList(block))) {
      out.push(out.length || size <= chars * 1.5 ? block : shorten(block, chars));
      used += size;
      continue;
    }
    // A long code block, table or list leads the passage: its first lines (a table keeps its head).
    const lines = block.split('\n');
    const keep: string[] = [];
    let n = 0;
    for (const [i, line] of lines.entries()) {
      if (keep.length > (isTable(block) ? 2 : 0) && n + line.length > chars) break;
      keep.push(line);
      n += line.length + 1;
      if (i === lines.length - 1) break;
    }
    if (isFence(block) && keep.length < lines.length) keep.push(lines[0]!.trim().replace(/^(`{3,}|~{3,}).*$/, '$1'));
    out.push(keep.join('\n'));
    more = keep.length < lines.length;
    break;
  }
  const body = out.join('\n\n') + (more ? '\n\n…' : '');
  return body.split('\n').map((l) => (l ? `> ${l}` : '>')).join('\n');
}

const escapeMd = (s: string): string => s.replace(/([[\]\\*_`<>])/g, '\\$1');

/**
 * The assistant's answer in markdown; citations are `[n]` like a model's. Its framing (label,
 * lead-in, headings, the forum offer) is marker lines, put in the reader's words when shown
 * (src/lib/shared/chat-frame.ts): an answer read later in the other language reads in that one.
 */
export function assistantAnswer(question: string, sources: Source[], _locale: Locale, askUrl: string): string {
  const lines: string[] = [frameLine('label'), ''];
  if (!sources.length) {
    const short = Array.from(question.trim()).slice(0, 80).join('');
    lines.push(frameLine('nothing', { question: short }), '');
    lines.push(frameLine('askForum', { url: askUrl }));
    return lines.join('\n');
  }
  const docs = sources.filter((s) => s.kind === 'doc' || s.kind === 'answer');
  const best = docs[0] ?? sources[0]!;
  // The lead: the best passage's first sentence of prose (a table or a command says nothing alone).
  const prose = best.markdown ? blocksOf(best.markdown).find((b) => !isTable(b) && !isFence(b) && !/^\*\*/.test(b)) : best.text;
  const lead = prose ? firstSentence(best.markdown ? plainText(prose) : prose) : '';
  lines.push(frameLine('lead', { title: best.heading || best.title }), '', lead ? `${lead} [${best.n}]` : `[${best.n}]`, '');
  if (docs.length) {
    lines.push(frameLine('passages'), '');
    for (const s of docs.slice(0, 3)) {
      const name = s.heading && s.heading !== s.title ? `${s.title} › ${s.heading}` : s.title;
      lines.push(`[${escapeMd(name)}](${s.url}) [${s.n}]`, '', quoteMarkdown(s.markdown ?? s.text), '');
    }
  }
  const related = sources.filter((s) => s.kind === 'post');
  if (related.length) {
    lines.push(frameLine('related'), '');
    for (const s of related) lines.push(`- [${escapeMd(s.title)}](${s.url}) [${s.n}]`);
  }
  return lines.join('\n').trimEnd();
}

/** Cuts an answer into the pieces it streams in: words, and CJK a few characters at a time. */
export function* pieces(text: string): Generator<string> {
  const re = /\s*[^\s\p{sc=Han}]+|\s*\p{sc=Han}{1,3}|\s+/gu;
  for (const m of text.matchAll(re)) yield m[0];
}
