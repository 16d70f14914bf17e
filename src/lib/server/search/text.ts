// Full-text search for Chinese and English that behaves the same on PostgreSQL and PGlite.
//
// PostgreSQL's text-search parser splits CJK text differently depending on the database locale
// (a UTF-8 C locale keeps a whole Chinese sentence as one "word"), and there is no Chinese
// dictionary to rely on. So no parser or dictionary is used at all: this module builds the
// tsvector and tsquery values as text literals, and SQL only casts them (`$1::tsvector`,
// `$2::tsquery`). Latin words are indexed as the word plus a light English stem; CJK text as
// overlapping character bigrams (every substring of two or more characters is then findable),
// plus the run's last character for one-character queries, plus whole words of three or more
// characters from Intl.Segmenter so that ranking can favour them.
import MarkdownIt from 'markdown-it';
import type Token from 'markdown-it/lib/token.mjs';

export type SearchWeight = 'A' | 'B' | 'C' | 'D';

export interface SearchField {
  text: string;
  weight: SearchWeight;
}

export interface SearchQuery {
  /** A tsquery literal: cast it with `::tsquery`. */
  query: string;
  /** What the reader typed, lowercased, one entry per term: pass these to snippet() and highlight(). */
  terms: string[];
}

/** PostgreSQL stores positions in 14 bits; larger ones are clamped to this. */
const MAX_POSITION = 16383;
/** PostgreSQL keeps at most 256 positions per lexeme. */
const MAX_POSITIONS_PER_LEXEME = 256;
const MAX_LEXEME_CHARS = 100;
/** Keeps the lexeme bytes of a vector far below PostgreSQL's 1 MB limit, whatever the script. */
const MAX_INDEXED_CHARS = 60_000;
const MAX_QUERY_CHARS = 1000;
const MAX_QUERY_TERMS = 12;
/** Bigrams of longer CJK runs in a query add cost, not precision. */
const MAX_QUERY_CJK_CHARS = 32;

const CJK = '\\p{sc=Han}\\p{sc=Hiragana}\\p{sc=Katakana}\\p{sc=Hangul}\\u30fc';
// A CJK run, or a run of other letters and digits (combining marks may follow a letter).
// Everything else separates tokens, `_`, `-` and apostrophes included.
const TOKEN = new RegExp(`([${CJK}]+)|(?![${CJK}])[\\p{L}\\p{N}](?:(?![${CJK}])[\\p{L}\\p{N}\\p{M}])*`, 'gu');
const WORDS = new Intl.Segmenter('zh', { granularity: 'word' });
const GRAPHEMES = new Intl.Segmenter('en', { granularity: 'grapheme' });

interface TextToken {
  cjk: boolean;
  text: string;
  start: number;
  end: number;
}

/** The form both the index and the queries compare: NFKC, lowercase, one sigma. */
function fold(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/ς/g, 'σ');
}

function tokenize(folded: string): TextToken[] {
  return Array.from(folded.matchAll(TOKEN), (m) => ({ cjk: m[1] !== undefined, text: m[0], start: m.index, end: m.index + m[0].length }));
}

/** Cuts at a code-unit length without leaving half a surrogate pair. */
function cutUnits(text: string, length: number): string {
  if (text.length <= length) return text;
  const code = text.charCodeAt(length - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? length - 1 : length);
}

function capLexeme(lexeme: string): string {
  if (lexeme.length <= MAX_LEXEME_CHARS) return lexeme;
  return Array.from(lexeme).slice(0, MAX_LEXEME_CHARS).join('');
}

/** Keeps a stemming rule only when at least `min` letters remain. */
function cut(word: string, suffix: number, add = '', min = 3): string | null {
  const stem = word.slice(0, word.length - suffix);
  return stem.length >= min ? stem + add : null;
}

const HAS_VOWEL = /[aeiouy]/;

/** running → run, stopped → stop; but call, miss and buzz keep their double letter. */
function undouble(stem: string): string {
  const last = stem.at(-1) ?? '';
  if (stem.length > 3 && last === stem.at(-2) && !'aeiouylsz'.includes(last)) return stem.slice(0, -1);
  return stem;
}

function stripPlural(word: string): string {
  if (word.endsWith('sses')) return cut(word, 2) ?? word;
  if (word.endsWith('ies')) return cut(word, 3, 'y') ?? word;
  if (/(?:x|z|ch|sh)es$/.test(word)) return cut(word, 2) ?? word;
  if (word.endsWith('s') && !/(?:ss|us|is)$/.test(word)) return cut(word, 1) ?? word;
  return word;
}

function stripSuffix(word: string): string {
  if (word.endsWith('ment')) return cut(word, 4, '', 5) ?? word;
  if (word.endsWith('ly')) return /[ipb]ly$/.test(word) ? word : (cut(word, 2, '', 4) ?? word);
  if (word.endsWith('ied')) return cut(word, 3, 'y') ?? word;
  for (const suffix of ['ing', 'ed']) {
    if (!word.endsWith(suffix)) continue;
    const stem = cut(word, suffix.length);
    // need, speed and string are not inflections
    if (stem === null || !HAS_VOWEL.test(stem) || (suffix === 'ed' && stem.endsWith('e'))) return word;
    return undouble(stem);
  }
  // configure → configur, so that it meets configuring and configuration; short words keep their e
  if (word.endsWith('e')) return cut(word, 1, '', 4) ?? word;
  return word;
}

/**
 * A small, predictable English stemmer: one plural rule (-s, -es, -ies), then at most one of
 * -ment, -ly, -ied, -ing, -ed or a final -e; never leaves fewer than three letters. Words with
 * anything but a–z are left alone. It does not need to be linguistically right, only the same
 * for the index and the query, which matches stems as prefixes.
 */
export function stemWord(word: string): string {
  if (word.length < 4 || !/^[a-z]+$/.test(word)) return word;
  return stripSuffix(stripPlural(word));
}

/** Whole words of three or more characters in a CJK run, by code-point index. */
function cjkWords(run: string): { index: number; word: string }[] {
  const points: number[] = [];
  let point = 0;
  for (let unit = 0; unit < run.length; unit++) {
    points.push(point);
    const code = run.charCodeAt(unit);
    if (code < 0xd800 || code > 0xdbff) point++;
  }
  const words: { index: number; word: string }[] = [];
  for (const segment of WORDS.segment(run)) {
    if (!segment.isWordLike) continue;
    const length = Array.from(segment.segment).length;
    if (length > 2 && length <= MAX_LEXEME_CHARS) words.push({ index: points[segment.index] ?? 0, word: segment.segment });
  }
  return words;
}

function quote(lexeme: string): string {
  return `'${lexeme.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

const WEIGHT_RANK: Record<SearchWeight, number> = { A: 3, B: 2, C: 1, D: 0 };

interface Occurrences {
  positions: number[];
  weights: SearchWeight[];
}

/**
 * A tsvector literal (`'数据':1A,5B '库':2A …`) for the fields in order; positions run on across
 * fields. Cast it with `::tsvector`.
 */
export function searchVector(fields: SearchField[]): string {
  const lexemes = new Map<string, Occurrences>();
  let position = 1;
  const add = (lexeme: string, at: number, weight: SearchWeight): void => {
    const clamped = Math.min(at, MAX_POSITION);
    let entry = lexemes.get(lexeme);
    if (!entry) lexemes.set(lexeme, (entry = { positions: [], weights: [] }));
    const last = entry.positions.length - 1;
    if (entry.positions[last] === clamped) {
      if (WEIGHT_RANK[weight] > WEIGHT_RANK[entry.weights[last]!]) entry.weights[last] = weight;
    } else if (entry.positions.length < MAX_POSITIONS_PER_LEXEME) {
      entry.positions.push(clamped);
      entry.weights.push(weight);
    }
  };

  let budget = MAX_INDEXED_CHARS;
  for (const { text, weight } of fields) {
    if (budget <= 0) break;
    // Cut before folding (the input may be huge) and after it (NFKC can expand the text).
    const folded = cutUnits(fold(cutUnits(text, budget)), budget);
    budget -= folded.length;
    for (const token of tokenize(folded)) {
      if (!token.cjk) {
        const word = capLexeme(token.text);
        add(word, position, weight);
        const stem = stemWord(word);
        if (stem !== word) add(stem, position, weight);
        position++;
        continue;
      }
      const chars = Array.from(token.text);
      if (chars.length === 1) {
        add(chars[0]!, position, weight);
      } else {
        for (let i = 0; i < chars.length - 1; i++) add(chars[i]! + chars[i + 1]!, position + i, weight);
        // Every other character starts a bigram; the last one needs its own lexeme for `'字':*`.
        add(chars.at(-1)!, position + chars.length - 1, weight);
        for (const { index, word } of cjkWords(token.text)) add(word, position + index, weight);
      }
      position += chars.length;
    }
  }

  const entries: string[] = [];
  for (const [lexeme, { positions, weights }] of lexemes) {
    const list = positions.map((p, i) => (weights[i] === 'D' ? `${p}` : `${p}${weights[i]}`));
    entries.push(`${quote(lexeme)}:${list.join(',')}`);
  }
  return entries.join(' ');
}

/**
 * The tsquery for a CJK run: its bigrams AND-ed. Where the run holds a whole word of three or more
 * characters, that word is OR-ed with its own bigrams: a document holding the word always holds
 * them, so nothing more matches, but ranking sees the whole word.
 */
function cjkQuery(run: string): string {
  const chars = Array.from(run);
  if (chars.length === 1) return `${quote(run)}:*`;
  const bigram = (i: number): string => quote(chars[i]! + chars[i + 1]!);
  const starts = new Map(cjkWords(run).map(({ index, word }) => [index, word]));
  const parts: string[] = [];
  for (let i = 0; i < chars.length - 1; i++) {
    const word = starts.get(i);
    if (word === undefined) {
      parts.push(bigram(i));
      continue;
    }
    const length = Array.from(word).length;
    const inner = Array.from({ length: length - 1 }, (_, k) => bigram(i + k));
    parts.push(`( ${inner.join(' & ')} | ${quote(word)} )`);
    i += length - 2;
  }
  return parts.join(' & ');
}

/**
 * Turns what a reader typed into a tsquery literal in which every term must match: Latin words as
 * stem prefixes (`'connect':*`), CJK text as its bigrams. Null when nothing searchable is left.
 */
export function searchQuery(input: string): SearchQuery | null {
  const terms: string[] = [];
  const parts: string[] = [];
  for (const token of tokenize(fold(cutUnits(input, MAX_QUERY_CHARS)))) {
    if (terms.length >= MAX_QUERY_TERMS) break;
    const term = token.cjk ? Array.from(token.text).slice(0, MAX_QUERY_CJK_CHARS).join('') : capLexeme(token.text);
    if (terms.includes(term)) continue;
    terms.push(term);
    if (token.cjk) parts.push(cjkQuery(term));
    // A one-letter prefix would match half the index: `c` means the word c.
    else parts.push(term.length === 1 ? quote(term) : `${quote(stemWord(term))}:*`);
  }
  return parts.length ? { query: parts.join(' & '), terms } : null;
}

const markdown = new MarkdownIt({ html: true });
const TASK_BOX = /^\[[ xX]\]\s+/;

function htmlText(html: string): string {
  const text = html
    .replace(/<(script|style)\b[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<[^>]*>/g, ' ');
  return markdown.utils.unescapeAll(text);
}

function inlineText(children: Token[]): string {
  let text = '';
  for (const child of children) {
    if (child.type === 'text' || child.type === 'code_inline') text += child.content;
    else if (child.type === 'softbreak' || child.type === 'hardbreak') text += ' ';
    else if (child.type === 'html_inline' && /^<br\b/i.test(child.content)) text += ' ';
  }
  return text;
}

const CALLOUT_LINE = /^ {0,3}:{3,}[ \t]*(?:(?:tip|note|info|warning|danger)\b[ \t]*)?(.*)$/;
const FENCE_LINE = /^\s{0,3}(`{3,}|~{3,})/;

/**
 * The callout markers (`::: warning Title` … `:::`) outside code fences, replaced by their title
 * and a blank line: search snippets show the callout's words, never its syntax.
 */
export function withoutCalloutMarkers(source: string): string {
  if (!source.includes(':::')) return source;
  let fence: string | null = null;
  return source.split('\n').map((line) => {
    const f = FENCE_LINE.exec(line);
    if (f) {
      if (!fence) fence = f[1]![0]!;
      else if (f[1]![0] === fence) fence = null;
      return line;
    }
    const c = fence ? null : CALLOUT_LINE.exec(line);
    return c ? `\n${c[1]!.trim()}\n` : line;
  }).join('\n');
}

/** Callout markers left in plain text stored before they were dropped at indexing. */
export function stripCalloutMarkers(text: string): string {
  return text.replace(/(^|\s):{3,}(?:[ \t]*(?:tip|note|info|warning|danger)\b)?(?=\s|$)/g, '$1').replace(/\s{2,}/g, ' ').trim();
}

/** Readable plain text of markdown, for search snippets and meta descriptions. */
export function plainText(source: string): string {
  const parts: string[] = [];
  markdown.parse(withoutCalloutMarkers(source), {}).forEach((token, i, tokens) => {
    if (token.type === 'inline') {
      const text = inlineText(token.children ?? []);
      const inListItem = tokens[i - 1]?.type === 'paragraph_open' && tokens[i - 2]?.type === 'list_item_open';
      parts.push(inListItem ? text.replace(TASK_BOX, '') : text);
    } else if (token.type === 'fence' || token.type === 'code_block') {
      parts.push(token.content);
    } else if (token.type === 'html_block') {
      parts.push(htmlText(token.content));
    }
  });
  return parts.join(' ').replace(/\s+/g, ' ').trim();
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);
}

interface Folded {
  text: string;
  /** For each code unit of `text`: where its grapheme starts and ends in the original. */
  from: Int32Array;
  to: Int32Array;
}

/** Combining marks and conjoining Hangul jamo: NFKC may merge them with their neighbours. */
const JOINS = /[\p{M}\u1100-\u11ff\ua960-\ua97f\ud7b0-\ud7ff]/u;

/**
 * Whether every character of `text` folds to exactly one code unit of its own, so positions in the
 * folded text are positions in the original. ASCII and CJK ideographs always do; other characters
 * (full-width forms such as '，', '：', '（' among them) are checked one by one.
 */
function foldsUnitForUnit(text: string): boolean {
  if (JOINS.test(text)) return false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80 || (c >= 0x4e00 && c <= 0x9fff) || (c >= 0x3400 && c <= 0x4dbf)) continue;
    if (c >= 0xd800 && c <= 0xdfff) return false;
    if (fold(text[i]!).length !== 1) return false;
  }
  return true;
}

/** Folds like the index does, one grapheme at a time, remembering where each piece came from. */
function foldMapped(original: string): Folded {
  // Most text (ASCII, Chinese, full-width punctuation) folds code unit for code unit: no need to
  // walk graphemes.
  const whole = fold(original);
  if (whole.length === original.length && foldsUnitForUnit(original)) {
    const from = Int32Array.from({ length: original.length }, (_, i) => i);
    return { text: whole, from, to: from.map((i) => i + 1) };
  }
  let text = '';
  const from: number[] = [];
  const to: number[] = [];
  for (const { segment, index } of GRAPHEMES.segment(original)) {
    const piece = fold(segment);
    text += piece;
    for (let k = 0; k < piece.length; k++) {
      from.push(index);
      to.push(index + segment.length);
    }
  }
  return { text, from: Int32Array.from(from), to: Int32Array.from(to) };
}

type Range = [start: number, end: number];

/**
 * Where the terms occur in `text`, merged and in order. A Latin term matches the words its query
 * matches (word or word stem starting with the term's stem); CJK terms match where they occur.
 */
function findMatches(text: string, terms: string[]): Range[] {
  const stems: string[] = [];
  const exact = new Set<string>();
  const phrases = new Set<string>();
  for (const term of terms) {
    for (const token of tokenize(fold(term))) {
      if (token.cjk) phrases.add(token.text);
      else if (token.text.length === 1) exact.add(token.text);
      else stems.push(stemWord(capLexeme(token.text)));
    }
  }
  if (!stems.length && !exact.size && !phrases.size) return [];

  const folded = foldMapped(text);
  const found: Range[] = [];
  for (const token of tokenize(folded.text)) {
    if (token.cjk) {
      for (const phrase of phrases) {
        for (let at = token.text.indexOf(phrase); at >= 0; at = token.text.indexOf(phrase, at + 1)) {
          found.push([token.start + at, token.start + at + phrase.length]);
        }
      }
      continue;
    }
    const word = capLexeme(token.text);
    const stem = stemWord(word);
    if (exact.has(word) || stems.some((s) => word.startsWith(s) || stem.startsWith(s))) found.push([token.start, token.end]);
  }

  found.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const merged: Range[] = [];
  for (const [start, end] of found) {
    const from = folded.from[start]!;
    const to = folded.to[end - 1]!;
    const last = merged.at(-1);
    if (last && from <= last[1]) last[1] = Math.max(last[1], to);
    else merged.push([from, to]);
  }
  return merged;
}

/** Escapes text[start, end) and wraps the parts of it inside `ranges` in <mark>. */
function markRanges(text: string, ranges: Range[], start: number, end: number): string {
  let html = '';
  let at = start;
  for (const [from, to] of ranges) {
    const a = Math.max(from, start);
    const b = Math.min(to, end);
    if (a >= b) continue;
    html += `${escapeHtml(text.slice(at, a))}<mark>${escapeHtml(text.slice(a, b))}</mark>`;
    at = b;
  }
  return html + escapeHtml(text.slice(at, end));
}

/** Moves a cut off the second half of a surrogate pair. */
function atCodePoint(text: string, index: number, forward: boolean): number {
  const code = text.charCodeAt(index);
  if (index > 0 && index < text.length && code >= 0xdc00 && code <= 0xdfff) return forward ? index + 1 : index - 1;
  return index;
}

/** An HTML-escaped excerpt of about `length` characters around the first match, matches in <mark>. */
export function snippet(text: string, terms: string[], length = 160): string {
  const clean = text.replace(/\s+/g, ' ').trim();
  const size = Math.max(1, Math.floor(length));
  const ranges = findMatches(clean, terms);
  if (clean.length <= size) return markRanges(clean, ranges, 0, clean.length);

  const first = ranges[0];
  let start = 0;
  let end = size;
  if (first) {
    // Some context before the match, and the window stays inside the text.
    start = Math.max(0, Math.min(first[0] - Math.floor(size / 4), clean.length - size));
    end = Math.min(clean.length, start + size);
    // Prefer cutting at a space when one is close (Latin text); CJK text is cut anywhere.
    const space = clean.indexOf(' ', start);
    if (start > 0 && space >= 0 && space < Math.min(start + 16, first[0])) start = space + 1;
  }
  const back = clean.lastIndexOf(' ', end);
  if (end < clean.length && back > end - 16 && back > (first?.[1] ?? 0)) end = back;
  start = atCodePoint(clean, start, true);
  end = atCodePoint(clean, end, false);

  const body = markRanges(clean, ranges, start, end).trim();
  return `${start > 0 ? '…' : ''}${body}${end < clean.length ? '…' : ''}`;
}

/** The whole text HTML-escaped with every match of the terms in <mark> (titles). */
export function highlight(text: string, terms: string[]): string {
  return markRanges(text, findMatches(text, terms), 0, text.length);
}
