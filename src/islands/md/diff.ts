// A line diff for the docs editor (merge view, history): pure, no DOM. jsdiff's Myers O(ND) algorithm on
// the middle of the two texts once their common head and tail are trimmed, so a few edits in a
// 2,000-line page cost next to nothing. When the texts differ too much for Myers' trace to stay
// small, unique common lines (patience diff) split the work into pieces small enough again, and
// whatever is still too different is shown as removed-then-added.

import { diffArrays } from 'diff';

export type DiffType = 'equal' | 'add' | 'del';

/** One line of the diff: kept (`equal`), only in the new text (`add`) or only in the old (`del`). */
export interface DiffOp {
  type: DiffType;
  text: string;
}

/** A diff line with its numbers in the old and new text (null on the side it is missing from). */
export interface DiffLine extends DiffOp {
  oldNo: number | null;
  newNo: number | null;
}

/** Changed lines with a little unchanged context around them; `skipped` unchanged lines come before. */
export interface DiffHunk {
  /** Unchanged lines left out between the previous hunk (or the start) and this one. */
  skipped: number;
  lines: DiffLine[];
}

export interface DiffView {
  hunks: DiffHunk[];
  /** Unchanged lines left out after the last hunk. */
  trailing: number;
  added: number;
  removed: number;
}

/** Above this many edits jsdiff's search gets slow (its work grows with edits × lines): split the work instead. */
const MAX_EDITS = 400;

/** Splits text into lines; `''` has none, so an empty side diffs as all added or all removed. */
export function splitLines(text: string): string[] {
  return text === '' ? [] : text.replace(/\r\n?/g, '\n').split('\n');
}

/** Every line of both texts, in order: equal, deleted and added lines. */
export function diffLines(oldText: string, newText: string): DiffOp[] {
  const a = splitLines(oldText);
  const b = splitLines(newText);
  // Lines become small integers: the inner loops compare numbers, not strings.
  const ids = new Map<string, number>();
  const idOf = (line: string): number => {
    let id = ids.get(line);
    if (id === undefined) ids.set(line, (id = ids.size));
    return id;
  };
  const ia = Int32Array.from(a, idOf);
  const ib = Int32Array.from(b, idOf);
  const out: DiffOp[] = [];
  diffRange(ia, 0, ia.length, ib, 0, ib.length, (type, index) => {
    out.push({ type, text: type === 'add' ? b[index]! : a[index]! });
  });
  return out;
}

type Emit = (type: DiffType, index: number) => void;

/** Diffs a[aLo, aHi) against b[bLo, bHi), emitting in order (`index` is into b for adds, into a otherwise). */
function diffRange(a: Int32Array, aLo: number, aHi: number, b: Int32Array, bLo: number, bHi: number, emit: Emit): void {
  let head = 0;
  while (aLo + head < aHi && bLo + head < bHi && a[aLo + head] === b[bLo + head]) head++;
  let tail = 0;
  while (aHi - tail > aLo + head && bHi - tail > bLo + head && a[aHi - 1 - tail] === b[bHi - 1 - tail]) tail++;
  for (let i = 0; i < head; i++) emit('equal', aLo + i);
  const midA = a.subarray(aLo + head, aHi - tail);
  const midB = b.subarray(bLo + head, bHi - tail);
  const offA = aLo + head;
  const offB = bLo + head;
  if (midA.length === 0) for (let j = 0; j < midB.length; j++) emit('add', offB + j);
  else if (midB.length === 0) for (let i = 0; i < midA.length; i++) emit('del', offA + i);
  else if (!myers(midA, midB, (type, i, j) => emit(type, type === 'add' ? offB + j : offA + i))) {
    const anchors = uniqueAnchors(midA, midB);
    if (anchors.length === 0) {
      for (let i = 0; i < midA.length; i++) emit('del', offA + i);
      for (let j = 0; j < midB.length; j++) emit('add', offB + j);
    } else {
      let i = 0;
      let j = 0;
      for (const [ai, bj] of anchors) {
        diffRange(a, offA + i, offA + ai, b, offB + j, offB + bj, emit);
        emit('equal', offA + ai);
        i = ai + 1;
        j = bj + 1;
      }
      diffRange(a, offA + i, offA + midA.length, b, offB + j, offB + midB.length, emit);
    }
  }
  for (let i = tail; i > 0; i--) emit('equal', aHi - i);
}

/**
 * The shortest edit script of jsdiff (Myers' algorithm) over the line ids. Returns false (emitting
 * nothing) past MAX_EDITS.
 */
function myers(a: Int32Array, b: Int32Array, emit: (type: DiffType, i: number, j: number) => void): boolean {
  // Nothing in common (a rewritten page): no search needed to know every line changed.
  const inA = new Set(a);
  if (!b.some((id) => inA.has(id))) return false;
  const changes = diffArrays(Array.from(a), Array.from(b), { maxEditLength: MAX_EDITS });
  if (!changes) return false;
  let i = 0;
  let j = 0;
  for (const change of changes) {
    for (let n = 0; n < change.count; n++) {
      if (change.added) emit('add', i, j++);
      else if (change.removed) emit('del', i++, j);
      else emit('equal', i++, j++);
    }
  }
  return true;
}

/**
 * Lines that occur exactly once in each text, kept where their order agrees in both (the longest
 * increasing run, by patience sorting): safe points to cut a large diff into small ones.
 */
function uniqueAnchors(a: Int32Array, b: Int32Array): [number, number][] {
  const countA = new Map<number, number>();
  const countB = new Map<number, number>();
  const posB = new Map<number, number>();
  for (const id of a) countA.set(id, (countA.get(id) ?? 0) + 1);
  b.forEach((id, j) => { countB.set(id, (countB.get(id) ?? 0) + 1); posB.set(id, j); });
  const pairs: [number, number][] = [];
  a.forEach((id, i) => { if (countA.get(id) === 1 && countB.get(id) === 1) pairs.push([i, posB.get(id)!]); });
  // Longest increasing subsequence of the b positions (pairs are already in a's order).
  const tails: number[] = [];
  const back = new Int32Array(pairs.length).fill(-1);
  for (let p = 0; p < pairs.length; p++) {
    const bj = pairs[p]![1];
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (pairs[tails[mid]!]![1] < bj) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) back[p] = tails[lo - 1]!;
    tails[lo] = p;
  }
  const out: [number, number][] = [];
  for (let p = tails.length ? tails[tails.length - 1]! : -1; p >= 0; p = back[p]!) out.push(pairs[p]!);
  return out.reverse();
}

/** Numbers every line of a diff in the old and the new text. */
export function numberLines(ops: readonly DiffOp[]): DiffLine[] {
  let oldNo = 0;
  let newNo = 0;
  return ops.map((op) => ({
    ...op,
    oldNo: op.type === 'add' ? null : ++oldNo,
    newNo: op.type === 'del' ? null : ++newNo,
  }));
}

/**
 * Groups a diff for display: the changed lines with `context` unchanged lines around them, long
 * unchanged stretches folded into a count. No changes: no hunks.
 */
export function diffView(ops: readonly DiffOp[], context = 3): DiffView {
  const lines = numberLines(ops);
  const hunks: DiffHunk[] = [];
  let added = 0;
  let removed = 0;
  /** End (exclusive) of what the hunks show so far. */
  let shown = 0;
  let current: DiffHunk | null = null;
  for (let i = 0; i < lines.length; i++) {
    const type = lines[i]!.type;
    if (type === 'equal') continue;
    if (type === 'add') added++;
    else removed++;
    const from = Math.max(i - context, shown);
    if (current && from <= shown) {
      current.lines.push(...lines.slice(shown, i + 1));
    } else {
      current = { skipped: from - shown, lines: lines.slice(from, i + 1) };
      hunks.push(current);
    }
    shown = i + 1;
    // The context after this change, up to the next change.
    let end = shown;
    while (end < lines.length && end < shown + context && lines[end]!.type === 'equal') end++;
    current.lines.push(...lines.slice(shown, end));
    shown = end;
    i = end - 1;
  }
  return { hunks, trailing: lines.length - shown, added, removed };
}
