import { describe, expect, it } from 'vitest';
import { diffLines, diffView, numberLines, splitLines, type DiffOp } from '../../src/islands/md/diff';
import { scaled } from '../helpers/time-scale.mjs';

/** The old and new texts a diff describes: every diff must give both back exactly. */
function sides(ops: readonly DiffOp[]): [string, string] {
  const old = ops.filter((o) => o.type !== 'add').map((o) => o.text).join('\n');
  const now = ops.filter((o) => o.type !== 'del').map((o) => o.text).join('\n');
  return [old, now];
}

/** Compact form for assertions: ` a` kept, `-a` removed, `+a` added. */
function show(ops: readonly DiffOp[]): string[] {
  return ops.map((o) => `${o.type === 'equal' ? ' ' : o.type === 'add' ? '+' : '-'}${o.text}`);
}

/** Length of a longest common subsequence of lines (dynamic programming): the diff keeps this many. */
function lcs(a: string[], b: string[]): number {
  const row = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    let diag = 0;
    for (let j = 1; j <= b.length; j++) {
      const up = row[j]!;
      row[j] = a[i - 1] === b[j - 1] ? diag + 1 : Math.max(row[j]!, row[j - 1]!);
      diag = up;
    }
  }
  return row[b.length]!;
}

function check(oldText: string, newText: string): DiffOp[] {
  const ops = diffLines(oldText, newText);
  expect(sides(ops)).toEqual([oldText.replace(/\r\n?/g, '\n'), newText.replace(/\r\n?/g, '\n')]);
  return ops;
}

describe('diffLines', () => {
  it('identical texts are all equal lines', () => {
    const ops = check('a\nb\nc', 'a\nb\nc');
    expect(show(ops)).toEqual([' a', ' b', ' c']);
    expect(diffView(ops).hunks).toEqual([]);
  });

  it('an inserted line is one add between kept lines', () => {
    expect(show(check('a\nb\nc', 'a\nb\nx\nc'))).toEqual([' a', ' b', '+x', ' c']);
    expect(show(check('a', 'x\na'))).toEqual(['+x', ' a']);
  });

  it('a deleted line is one del', () => {
    expect(show(check('a\nb\nc', 'a\nc'))).toEqual([' a', '-b', ' c']);
  });

  it('a changed line is a del followed by an add', () => {
    expect(show(check('a\nb\nc', 'a\nB\nc'))).toEqual([' a', '-b', '+B', ' c']);
  });

  it('keeps a longest common subsequence of lines (shortest edit script)', () => {
    const cases: [string, string][] = [
      ['a\nb\nc\na\nb\nb\na', 'c\nb\na\nb\na\nc'],
      ['x\ny\nz', 'z\ny\nx'],
      ['1\n2\n3\n4\n5\n6', '6\n1\n2\n9\n4\n5'],
      ['p\nq\np\nq\np', 'q\np\nq\np\nq'],
    ];
    for (const [a, b] of cases) {
      const ops = check(a, b);
      expect(ops.filter((o) => o.type === 'equal').length, `${a} → ${b}`).toBe(lcs(splitLines(a), splitLines(b)));
    }
  });

  it('handles CJK and other non-ASCII lines as whole lines', () => {
    const ops = check('# 安装\n运行 npm install。\n完成 ✅', '# 安装\n运行 pnpm install。\n完成 ✅\n下一步：配置');
    expect(show(ops)).toEqual([' # 安装', '-运行 npm install。', '+运行 pnpm install。', ' 完成 ✅', '+下一步：配置']);
  });

  it('an empty side is all added or all removed', () => {
    expect(show(check('', 'a\nb'))).toEqual(['+a', '+b']);
    expect(show(check('a\nb', ''))).toEqual(['-a', '-b']);
    expect(check('', '')).toEqual([]);
  });

  it('treats CRLF like LF and an empty last line as a line', () => {
    expect(show(check('a\r\nb', 'a\nb'))).toEqual([' a', ' b']);
    expect(show(check('a\nb', 'a\nb\n'))).toEqual([' a', ' b', '+']);
  });

  it('diffs a 2,000-line page with scattered edits quickly and minimally', () => {
    const a = Array.from({ length: 2000 }, (_, i) => `line ${i} ${i % 7 === 0 ? '' : 'text'}`);
    const b = a.filter((_, i) => i % 50 !== 0).map((l, i) => (i % 97 === 0 ? `${l} edited` : l));
    b.splice(1000, 0, '新的一行', 'another');
    const started = performance.now();
    const ops = check(a.join('\n'), b.join('\n'));
    expect(performance.now() - started).toBeLessThan(scaled(200));
    expect(ops.filter((o) => o.type === 'equal').length).toBe(lcs(a, b));
  });

  it('stays fast when two large texts have nothing or little in common', () => {
    const a = Array.from({ length: 3000 }, (_, i) => `old ${i}`);
    const b = Array.from({ length: 3000 }, (_, i) => `new ${i}`);
    let started = performance.now();
    const ops = check(a.join('\n'), b.join('\n'));
    expect(performance.now() - started).toBeLessThan(scaled(200));
    expect(ops.filter((o) => o.type === 'del')).toHaveLength(3000);

    // Every other line changed: too many edits for one pass, split at the unique lines kept.
    const c = a.map((l, i) => (i % 2 ? `changed ${i}` : l));
    started = performance.now();
    const mixed = check(a.join('\n'), c.join('\n'));
    expect(performance.now() - started).toBeLessThan(scaled(200));
    expect(mixed.filter((o) => o.type === 'equal')).toHaveLength(1500);
  });
});

describe('diffView', () => {
  it('numbers lines on both sides', () => {
    expect(numberLines(diffLines('a\nb', 'a\nc')).map((l) => [l.type, l.oldNo, l.newNo])).toEqual([
      ['equal', 1, 1], ['del', 2, null], ['add', null, 2],
    ]);
  });

  it('shows changes with context and folds long unchanged stretches', () => {
    const a = Array.from({ length: 30 }, (_, i) => `l${i}`);
    const b = [...a];
    b[2] = 'two';
    b[25] = 'twenty-five';
    const view = diffView(diffLines(a.join('\n'), b.join('\n')), 2);
    expect(view.added).toBe(2);
    expect(view.removed).toBe(2);
    expect(view.hunks).toHaveLength(2);
    expect(view.hunks[0]!.skipped).toBe(0);
    expect(view.hunks[0]!.lines.map((l) => l.text)).toEqual(['l0', 'l1', 'l2', 'two', 'l3', 'l4']);
    expect(view.hunks[1]!.skipped).toBe(18);
    expect(view.hunks[1]!.lines[0]).toMatchObject({ text: 'l23', oldNo: 24, newNo: 24 });
    expect(view.trailing).toBe(2);
  });

  it('joins changes whose context touches into one hunk', () => {
    const view = diffView(diffLines('a\nb\nc\nd\ne', 'A\nb\nc\nd\nE'), 2);
    expect(view.hunks).toHaveLength(1);
    expect(view.hunks[0]!.lines.map((l) => l.type)).toEqual(['del', 'add', 'equal', 'equal', 'equal', 'del', 'add']);
    expect(view.trailing).toBe(0);
  });
});
