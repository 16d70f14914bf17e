// The markdown editor's text transforms: toolbar buttons, shortcuts, list continuation and
// indentation. Pure string in, string out, so every rule is unit-tested without a browser.
// Offsets are UTF-16 indexes, the same as a textarea's selectionStart/selectionEnd.

/** A new text and the selection to show in it. */
export interface Edit {
  value: string;
  selStart: number;
  selEnd: number;
}

export type FormatKind =
  | 'bold' | 'italic' | 'code' | 'link' | 'heading' | 'quote' | 'codeBlock'
  | 'bulletList' | 'numberedList' | 'taskList' | 'table';

type ListKind = 'bulletList' | 'numberedList' | 'taskList';

/** indent, marker (`-`, `*`, `+`, `1.`, `1)`), spaces after it, optional task box. */
const LIST_ITEM = /^([ \t]*)([-*+]|\d{1,9}[.)])( +)(\[[ xX]\](?: +|$))?/;
/** A line that starts with two task markers (`- [ ] - [ ] `): the second was typed or pasted onto a continued item. */
const DOUBLE_TASK = /^([ \t]*(?:[-*+]|\d{1,9}[.)]) +\[[ xX]\] +)(?:[-*+]|\d{1,9}[.)]) +\[[ xX]\] +/;
const HEADING = /^ {0,3}#{1,6}(?: +|$)/;
const FENCE = /^ {0,3}(?:`{3,}|~{3,})/;
const BLANK = /^\s*$/;

function lineStart(value: string, index: number): number {
  return value.lastIndexOf('\n', index - 1) + 1;
}

function lineEnd(value: string, index: number): number {
  const i = value.indexOf('\n', index);
  return i < 0 ? value.length : i;
}

/** The whole lines a selection touches; a selection ending at a line's start leaves that line out. */
function lineRange(value: string, selStart: number, selEnd: number): [number, number] {
  const last = selEnd > selStart && selEnd === lineStart(value, selEnd) ? selEnd - 1 : selEnd;
  return [lineStart(value, selStart), lineEnd(value, Math.max(selStart, last))];
}

/** Replaces `value[start, end)` with `text` and selects `[selStart, selEnd)` of the result. */
function splice(value: string, start: number, end: number, text: string, selStart: number, selEnd: number = selStart): Edit {
  return { value: value.slice(0, start) + text + value.slice(end), selStart, selEnd };
}

/** Inserts text in place of the selection, caret after it. */
export function insertText(value: string, selStart: number, selEnd: number, text: string): Edit {
  const caret = selStart + text.length;
  return splice(value, selStart, selEnd, text, caret);
}

/**
 * Rewrites every line the selection touches with `map`. A caret stays on its text; a selection
 * grows to the rewritten lines.
 */
function mapLines(value: string, selStart: number, selEnd: number, map: (line: string, index: number) => string): Edit {
  const [start, end] = lineRange(value, selStart, selEnd);
  const before = value.slice(start, end).split('\n');
  const after = before.map(map);
  const block = after.join('\n');
  if (selStart === selEnd) {
    // Only the caret's own line can sit before it (a collapsed selection touches one line).
    const delta = after[0]!.length - before[0]!.length;
    const caret = Math.max(start, Math.min(start + after[0]!.length, selStart + delta));
    return splice(value, start, end, block, caret);
  }
  return splice(value, start, end, block, start, start + block.length);
}

function runBefore(value: string, index: number, char: string): number {
  let n = 0;
  while (index - n - 1 >= 0 && value[index - n - 1] === char) n++;
  return n;
}

function runAfter(value: string, index: number, char: string): number {
  let n = 0;
  while (index + n < value.length && value[index + n] === char) n++;
  return n;
}

/** `*` runs mean bold at 2, italic at 1, both at 3 or more. */
function isWrapped(run: number, width: number, char: string): boolean {
  if (char === '`') return run >= 1;
  return width === 2 ? run >= 2 : run === 1 || run >= 3;
}

/** Bold, italic and inline code: wraps the selection, or unwraps it when it is already wrapped. */
function toggleInline(value: string, selStart: number, selEnd: number, char: '*' | '`', width: number): Edit {
  let s = selStart;
  let e = selEnd;
  // A double-click often takes the space after a word; `**word **` would not be bold.
  while (s < e && /\s/.test(value[s]!)) s++;
  while (e > s && /\s/.test(value[e - 1]!)) e--;
  const marker = char.repeat(width);

  const around = Math.min(runBefore(value, s, char), runAfter(value, e, char));
  if (isWrapped(around, width, char)) {
    return { value: value.slice(0, s - width) + value.slice(s, e) + value.slice(e + width), selStart: s - width, selEnd: e - width };
  }
  const text = value.slice(s, e);
  const inside = Math.min(runAfter(text, 0, char), runBefore(text, text.length, char));
  if (text.length > 2 * width && inside * 2 < text.length && isWrapped(inside, width, char)) {
    const inner = text.slice(width, text.length - width);
    return splice(value, s, e, inner, s, s + inner.length);
  }
  if (char === '`') {
    // Code containing backticks needs a longer fence, and a space where it touches the fence.
    const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((r) => r.length));
    const fence = '`'.repeat(longest + 1);
    const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
    const open = fence + pad;
    return splice(value, s, e, `${open}${text}${pad}${fence}`, s + open.length, s + open.length + text.length);
  }
  return splice(value, s, e, `${marker}${text}${marker}`, s + width, s + width + text.length);
}

/** `[text](url)`: a selected URL becomes the target, other selected text the label. */
function link(value: string, selStart: number, selEnd: number): Edit {
  let s = selStart;
  let e = selEnd;
  while (s < e && /\s/.test(value[s]!)) s++;
  while (e > s && /\s/.test(value[e - 1]!)) e--;
  const text = value.slice(s, e);
  if (/^(?:https?:\/\/|mailto:|www\.)\S+$/i.test(text)) return splice(value, s, e, `[](${text})`, s + 1);
  // No label yet: the caret waits for one; with a label it waits for the address.
  const label = text.replace(/[[\]]/g, '\\$&');
  return splice(value, s, e, `[${label}]()`, label ? s + label.length + 3 : s + 1);
}

function toggleHeading(value: string, selStart: number, selEnd: number): Edit {
  const [start, end] = lineRange(value, selStart, selEnd);
  const lines = value.slice(start, end).split('\n');
  const remove = HEADING.test(lines[0]!);
  return mapLines(value, selStart, selEnd, (line) => {
    if (remove) return line.replace(HEADING, '');
    if (BLANK.test(line) && lines.length > 1) return line;
    return `## ${line.replace(HEADING, '').trimStart()}`;
  });
}

function toggleQuote(value: string, selStart: number, selEnd: number): Edit {
  const [start, end] = lineRange(value, selStart, selEnd);
  const lines = value.slice(start, end).split('\n');
  const filled = lines.filter((l) => !BLANK.test(l));
  const remove = filled.length > 0 && filled.every((l) => /^ {0,3}>/.test(l));
  return mapLines(value, selStart, selEnd, (line) => {
    if (remove) return line.replace(/^( {0,3})> ?/, '$1');
    return line === '' && lines.length > 1 ? '>' : `> ${line}`;
  });
}

function listKindOf(match: RegExpExecArray): ListKind {
  if (/\d/.test(match[2]!)) return 'numberedList';
  return match[4] ? 'taskList' : 'bulletList';
}

/** Turns lines into items of one list kind, from another kind or none; all items of that kind turn back to text. */
function toggleList(value: string, selStart: number, selEnd: number, kind: ListKind): Edit {
  const [start, end] = lineRange(value, selStart, selEnd);
  const lines = value.slice(start, end).split('\n');
  const single = lines.length === 1;
  const filled = lines.filter((l) => !BLANK.test(l));
  const remove = filled.length > 0 && filled.every((l) => {
    const m = LIST_ITEM.exec(l);
    return m !== null && listKindOf(m) === kind;
  });
  let n = 0;
  return mapLines(value, selStart, selEnd, (line) => {
    // One empty line takes a marker, so a click on an empty line starts a list.
    if (BLANK.test(line) && !single) return line;
    const m = LIST_ITEM.exec(line);
    const indent = m ? m[1]! : (/^[ \t]*/.exec(line)?.[0] ?? '');
    const content = m ? line.slice(m[0].length) : line.slice(indent.length);
    if (remove) return indent + content;
    n++;
    const marker = kind === 'bulletList' ? '- ' : kind === 'taskList' ? '- [ ] ' : `${n}. `;
    return indent + marker + content;
  });
}

/** A fence longer than any fence inside the code, so the block cannot end early. */
function fenceFor(code: string): string {
  const longest = Math.max(2, ...(code.match(/^ {0,3}`{3,}/gm) ?? []).map((f) => f.trim().length));
  return '`'.repeat(longest + 1);
}

/** Fences the lines the selection touches, or removes the fences around them. */
function toggleCodeBlock(value: string, selStart: number, selEnd: number): Edit {
  const [start, end] = lineRange(value, selStart, selEnd);
  const block = value.slice(start, end);
  const lines = block.split('\n');
  // The selection includes both fences: drop them.
  if (lines.length >= 2 && FENCE.test(lines[0]!) && FENCE.test(lines[lines.length - 1]!)) {
    const inner = lines.slice(1, -1).join('\n');
    return splice(value, start, end, inner, start, start + inner.length);
  }
  // The fences sit on the lines just outside the selection, and it is inside a block (an odd
  // number of fences above it, not the gap between two blocks): drop them.
  const fencesAbove = value.slice(0, start).match(/^ {0,3}(?:`{3,}|~{3,})/gm)?.length ?? 0;
  if (start > 0 && end < value.length && fencesAbove % 2 === 1) {
    const prevStart = lineStart(value, start - 1);
    const nextEnd = lineEnd(value, end + 1);
    if (FENCE.test(value.slice(prevStart, start - 1)) && FENCE.test(value.slice(end + 1, nextEnd))) {
      return splice(value, prevStart, nextEnd, block, selStart - (start - prevStart), selEnd - (start - prevStart));
    }
  }
  const fence = fenceFor(block);
  const inner = start + fence.length + 1;
  if (BLANK.test(block)) return splice(value, start, end, `${fence}\n\n${fence}`, inner);
  return splice(value, start, end, `${fence}\n${block}\n${fence}`, inner, inner + block.length);
}

const TABLE = '|  |  |\n| --- | --- |\n|  |  |';

/** A two-column table after the selection's last line, set apart by blank lines, caret in the first header cell. */
function insertTable(value: string, selEnd: number): Edit {
  const at = lineEnd(value, selEnd);
  const onBlankLine = BLANK.test(value.slice(lineStart(value, selEnd), at));
  const from = onBlankLine ? lineStart(value, selEnd) : at;
  const before = value.slice(0, from);
  const after = value.slice(onBlankLine ? at : from);
  const lead = before === '' || before.endsWith('\n\n') ? '' : before.endsWith('\n') ? '\n' : '\n\n';
  const trail = after === '' || after.startsWith('\n\n') ? '' : after.startsWith('\n') ? '\n' : '\n\n';
  const caret = before.length + lead.length + 2;
  return { value: before + lead + TABLE + trail + after, selStart: caret, selEnd: caret };
}

/** The toolbar's and shortcuts' transforms. */
export function applyFormat(value: string, selStart: number, selEnd: number, kind: FormatKind): Edit {
  const s = Math.min(selStart, selEnd);
  const e = Math.max(selStart, selEnd);
  switch (kind) {
    case 'bold': return toggleInline(value, s, e, '*', 2);
    case 'italic': return toggleInline(value, s, e, '*', 1);
    case 'code': return toggleInline(value, s, e, '`', 1);
    case 'link': return link(value, s, e);
    case 'heading': return toggleHeading(value, s, e);
    case 'quote': return toggleQuote(value, s, e);
    case 'codeBlock': return toggleCodeBlock(value, s, e);
    case 'bulletList':
    case 'numberedList':
    case 'taskList': return toggleList(value, s, e, kind);
    case 'table': return insertTable(value, e);
  }
}

/**
 * Enter inside a list item: a new item of the same kind (numbers count on, task boxes start
 * empty); Enter on an empty item ends the list. Null when the caret is not in an item's text.
 */
export function continueList(value: string, caret: number): { value: string; caret: number } | null {
  const start = lineStart(value, caret);
  const end = lineEnd(value, caret);
  const m = LIST_ITEM.exec(value.slice(start, end));
  if (!m || caret - start < m[0].length) return null;
  if (BLANK.test(value.slice(start + m[0].length, end))) {
    return { value: value.slice(0, start) + value.slice(end), caret: start };
  }
  const [, indent, marker, space, task] = m;
  const next = /^\d/.test(marker!) ? `${Number(marker!.slice(0, -1)) + 1}${marker!.slice(-1)}` : marker!;
  const insert = `\n${indent}${next}${space}${task ? '[ ] ' : ''}`;
  return { value: value.slice(0, caret) + insert + value.slice(caret), caret: caret + insert.length };
}

/**
 * After typing or pasting on a task item Enter continued: a second task marker the writer added
 * (`- [ ] - [ ] `) is dropped, so the item keeps one. Null when the caret's line has one marker,
 * or the caret is still inside the second one (it may become something else).
 */
export function mergeTaskMarkers(value: string, caret: number): { value: string; caret: number } | null {
  const start = lineStart(value, caret);
  const m = DOUBLE_TASK.exec(value.slice(start, lineEnd(value, caret)));
  if (!m || caret - start < m[0].length) return null;
  const cut = start + m[1]!.length;
  const removed = m[0].length - m[1]!.length;
  return { value: value.slice(0, cut) + value.slice(cut + removed), caret: caret - removed };
}

function leadingSpaces(line: string): number {
  return /^ */.exec(line)![0].length;
}

/**
 * Tab / Shift+Tab on list items: nests them under the item above or moves them out one level.
 * Null when a touched line is not a list item (Tab then moves focus, as everywhere else) or
 * when there is nothing to outdent.
 */
export function indentLines(value: string, selStart: number, selEnd: number, outdent: boolean): Edit | null {
  const s = Math.min(selStart, selEnd);
  const e = Math.max(selStart, selEnd);
  const [start, end] = lineRange(value, s, e);
  const lines = value.slice(start, end).split('\n');
  const items = lines.filter((l) => !BLANK.test(l)).map((l) => LIST_ITEM.exec(l));
  if (items.length === 0 || items.some((m) => m === null)) return null;
  const first = items[0]!;
  const indent = first[1]!.length;

  const above = value.slice(0, Math.max(0, start - 1)).split('\n').reverse().map((l) => LIST_ITEM.exec(l));
  let shift: number;
  if (outdent) {
    const parent = above.find((m) => m !== null && m[1]!.length < indent);
    shift = indent - (parent ? parent[1]!.length : 0);
    if (shift <= 0) return null;
  } else {
    // Nested means starting in the text column of the sibling above (`- ` 2, `1. ` 3 further in).
    const sibling = start > 0 ? above.find((m) => m !== null && m[1]!.length <= indent) : undefined;
    shift = sibling && sibling[1]!.length === indent
      ? sibling[2]!.length + sibling[3]!.length
      : first[2]!.length + first[3]!.length;
  }
  const pad = ' '.repeat(shift);
  return mapLines(value, s, e, (line) => {
    if (BLANK.test(line)) return line;
    return outdent ? line.slice(Math.min(shift, leadingSpaces(line))) : pad + line;
  });
}

/** The changed span between two texts, for replacing only that part (keeps the browser's undo). */
export function diffRange(before: string, after: string): { start: number; end: number; text: string } {
  let start = 0;
  const max = Math.min(before.length, after.length);
  while (start < max && before.charCodeAt(start) === after.charCodeAt(start)) start++;
  let tail = 0;
  while (tail < max - start && before.charCodeAt(before.length - 1 - tail) === after.charCodeAt(after.length - 1 - tail)) tail++;
  return { start, end: before.length - tail, text: after.slice(start, after.length - tail) };
}

/**
 * Image alt text on one line, brackets turned into parentheses: markdown-it drops escaped
 * characters from alt text, so `\\]` would lose the bracket rather than show it.
 */
export function escapeAlt(text: string): string {
  return text.replace(/[\r\n]+/g, ' ').replace(/\\/g, '').replace(/\[/g, '(').replace(/\]/g, ')');
}

const URL_ESCAPES: Record<string, string> = { ' ': '%20', '(': '%28', ')': '%29', '<': '%3C', '>': '%3E' };

/** `![alt](url)`, with characters that would end the link target escaped. */
export function imageMarkdown(alt: string, url: string): string {
  return `![${escapeAlt(alt)}](${url.replace(/[\s()<>]/g, (c) => URL_ESCAPES[c] ?? encodeURIComponent(c))})`;
}

/** Replaces the first occurrence of `search`; null when it is gone (the author deleted it). */
export function replaceFirst(value: string, search: string, replacement: string): string | null {
  const i = value.indexOf(search);
  return i < 0 ? null : value.slice(0, i) + replacement + value.slice(i + search.length);
}

const VOID_TAG = /^(?:img|br|hr|input|wbr)$/i;

/**
 * Cuts the preview's HTML into its top-level blocks, each with the line break after it, so only
 * changed blocks are redrawn. Raw HTML is off in the markdown pipeline: every `<` in its output
 * starts a tag, and counting tags finds where each block ends.
 */
export function splitBlocks(html: string): string[] {
  const blocks: string[] = [];
  const tag = /<(\/?)([a-zA-Z][\w-]*)[^>]*?(\/?)>/g;
  let depth = 0;
  let start = 0;
  let m: RegExpExecArray | null;
  while ((m = tag.exec(html))) {
    if (m[1]) depth--;
    else if (!m[3] && !VOID_TAG.test(m[2]!)) depth++;
    if (depth !== 0) continue;
    let end = tag.lastIndex;
    while (html[end] === '\n') end++;
    blocks.push(html.slice(start, end));
    start = tag.lastIndex = end;
  }
  if (start < html.length) blocks.push(html.slice(start));
  return blocks;
}
