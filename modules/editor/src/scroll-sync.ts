// Synchronised scrolling for the editor's split view: the textarea and the preview are matched
// heading by heading (a heading's source line ↔ its rendered element), with straight-line
// interpolation between them, so a long section with pictures or tables does not drift the way a
// plain scroll ratio does. Measuring is done on demand (the first scroll after a change), never
// on a keystroke.

/** A heading in the markdown source: its 0-based line and a key to find it in the preview. */
export interface SourceHeading {
  line: number;
  key: string;
}

/** A pair of scroll positions known to show the same place: `from` in one pane, `to` in the other. */
export interface ScrollAnchor {
  from: number;
  to: number;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const ATX = /^ {0,3}(?:> ?)*(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const SETEXT = /^ {0,3}(?:=+|-+)[ \t]*$/;
/** Lines that cannot be the text of a setext heading (they start some other block). */
const NOT_PARAGRAPH = /^ {0,3}(?:[-*+][ \t]|\d{1,9}[.)][ \t]|>|#|`{3}|~{3}|\||:::)|^\s*$|^ {4}/;

/** Letters and digits only, lower-cased: the same for `## Install **now**` and its rendered heading. */
export function headingKey(text: string): string {
  return text.replace(/\]\([^)]*\)/g, ']').replace(/[^\p{L}\p{N}]+/gu, '').toLowerCase();
}

/** Headings of a markdown text (ATX and setext), outside fenced code. */
export function sourceHeadings(source: string): SourceHeading[] {
  const lines = source.split('\n');
  const out: SourceHeading[] = [];
  let fence: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const f = FENCE.exec(line);
    if (fence) {
      if (f && f[1]![0] === fence[0] && f[1]!.length >= fence.length && line.trim() === f[1]) fence = null;
      continue;
    }
    if (f) {
      fence = f[1]!;
      continue;
    }
    const atx = ATX.exec(line);
    if (atx) {
      out.push({ line: i, key: headingKey(atx[2] ?? '') });
      continue;
    }
    const prev = lines[i - 1];
    if (i > 0 && SETEXT.test(line) && prev !== undefined && !NOT_PARAGRAPH.test(prev) && !SETEXT.test(prev)) {
      // The heading starts where its paragraph does (a setext heading may span several lines).
      let start = i - 1;
      while (start > 0 && !NOT_PARAGRAPH.test(lines[start - 1]!) && !out.some((h) => h.line === start - 1)) start--;
      out.push({ line: start, key: headingKey(lines.slice(start, i).join(' ')) });
    }
  }
  return out;
}

/**
 * Pairs source headings with the preview's headings in order, by their keys; a heading that has
 * no partner a few places ahead (a heading inside a list, say) is skipped, not misaligned.
 */
export function pairHeadings(source: readonly SourceHeading[], previewKeys: readonly string[]): [number, number][] {
  const pairs: [number, number][] = [];
  const LOOKAHEAD = 4;
  let p = 0;
  for (let s = 0; s < source.length && p < previewKeys.length; s++) {
    const limit = Math.min(previewKeys.length, p + LOOKAHEAD);
    for (let q = p; q < limit; q++) {
      if (previewKeys[q] === source[s]!.key) {
        pairs.push([s, q]);
        p = q + 1;
        break;
      }
    }
  }
  return pairs;
}

/**
 * Anchors from (start, start) to (endFrom, endTo), kept strictly increasing on both sides and
 * inside both scroll ranges.
 */
export function buildAnchors(points: readonly ScrollAnchor[], endFrom: number, endTo: number): ScrollAnchor[] {
  const out: ScrollAnchor[] = [{ from: 0, to: 0 }];
  for (const pt of points) {
    const last = out[out.length - 1]!;
    if (pt.from > last.from && pt.to > last.to && pt.from < endFrom && pt.to < endTo) out.push(pt);
  }
  if (endFrom > 0 && endTo > 0) out.push({ from: endFrom, to: endTo });
  return out;
}

/** Maps a position through anchors sorted by `from` (straight lines between them). */
export function mapThrough(anchors: readonly ScrollAnchor[], y: number): number {
  if (anchors.length < 2) return 0;
  let i = 1;
  while (i < anchors.length - 1 && anchors[i]!.from < y) i++;
  const a = anchors[i - 1]!;
  const b = anchors[i]!;
  if (y <= a.from) return a.to;
  if (y >= b.from) return b.to;
  return a.to + ((y - a.from) / (b.from - a.from)) * (b.to - a.to);
}

export function invert(anchors: readonly ScrollAnchor[]): ScrollAnchor[] {
  return anchors.map((a) => ({ from: a.to, to: a.from }));
}

// ---------------------------------------------------------------------------------------------
// Measuring (browser only)

const MIRRORED = ['fontFamily', 'fontSize', 'fontWeight', 'fontStyle', 'lineHeight', 'letterSpacing', 'wordSpacing', 'tabSize', 'textIndent', 'textTransform',
  'paddingTop', 'paddingRight', 'paddingBottom', 'paddingLeft', 'whiteSpace', 'overflowWrap', 'wordBreak'] as const;

/**
 * Where given source lines start inside the textarea's scrolled content (pixels), measured on a
 * hidden copy laid out the same way, so wrapped long lines count for what they take.
 */
export function measureTextLines(textarea: HTMLTextAreaElement, lines: readonly number[]): number[] {
  const style = getComputedStyle(textarea);
  const mirror = document.createElement('div');
  for (const prop of MIRRORED) mirror.style[prop] = style[prop];
  Object.assign(mirror.style, {
    position: 'absolute', top: '0', left: '-10000px', visibility: 'hidden', pointerEvents: 'none', boxSizing: 'border-box',
    border: '0', width: `${textarea.clientWidth}px`, whiteSpace: 'pre-wrap', overflowWrap: style.overflowWrap || 'break-word',
  });
  const text = textarea.value.split('\n');
  const marks: HTMLSpanElement[] = [];
  let from = 0;
  for (const line of lines) {
    if (line > from) mirror.append(`${text.slice(from, line).join('\n')}\n`);
    const mark = document.createElement('span');
    marks.push(mark);
    mirror.append(mark);
    from = line;
  }
  mirror.append(text.slice(from).join('\n'));
  document.body.append(mirror);
  const tops = marks.map((m) => m.offsetTop);
  mirror.remove();
  return tops;
}

/** Top of each element inside a scrolling container's content (pixels). */
export function measureTops(container: HTMLElement, elements: readonly Element[]): number[] {
  const base = container.getBoundingClientRect().top - container.scrollTop + container.clientTop;
  return elements.map((el) => el.getBoundingClientRect().top - base);
}
