import { describe, expect, it } from 'vitest';
import { buildAnchors, headingKey, invert, mapThrough, pairHeadings, sourceHeadings } from '../../modules/editor/src/scroll-sync';

describe('sourceHeadings', () => {
  it('finds ATX and setext headings with the line they start on', () => {
    const source = ['# Title', '', 'Text', '', '## Install **now**', 'para', '', 'Setext', 'heading', '---', '', '> ### Quoted'].join('\n');
    expect(sourceHeadings(source)).toEqual([
      { line: 0, key: 'title' },
      { line: 4, key: 'installnow' },
      { line: 7, key: 'setextheading' },
      { line: 11, key: 'quoted' },
    ]);
  });

  it('skips fenced code, and a rule after a blank line is no heading', () => {
    const source = ['```md', '# not a heading', '```', '', '---', '', '~~~~', '## nor this', '~~~', '~~~~', '## 安装'].join('\n');
    expect(sourceHeadings(source)).toEqual([{ line: 10, key: '安装' }]);
  });
});

describe('headingKey', () => {
  it('keeps letters and digits only, so source and rendered text agree', () => {
    expect(headingKey('Use [the CLI](./cli) `npm run atrium`')).toBe(headingKey('Use the CLI npm run atrium #'));
    expect(headingKey('PostgreSQL 与 Redis')).toBe('postgresql与redis');
  });
});

describe('pairHeadings', () => {
  it('pairs in order and skips headings without a partner', () => {
    const source = [{ line: 0, key: 'a' }, { line: 5, key: 'x' }, { line: 9, key: 'b' }, { line: 12, key: 'c' }];
    expect(pairHeadings(source, ['a', 'inlist', 'b', 'c'])).toEqual([[0, 0], [2, 2], [3, 3]]);
  });
});

describe('mapThrough', () => {
  const anchors = buildAnchors([{ from: 100, to: 300 }, { from: 200, to: 350 }, { from: 150, to: 10 }], 400, 1000);

  it('keeps anchors increasing on both sides, from the start to both ends', () => {
    expect(anchors).toEqual([{ from: 0, to: 0 }, { from: 100, to: 300 }, { from: 200, to: 350 }, { from: 400, to: 1000 }]);
  });

  it('interpolates between anchors and clamps outside them', () => {
    expect(mapThrough(anchors, 50)).toBe(150);
    expect(mapThrough(anchors, 100)).toBe(300);
    expect(mapThrough(anchors, 300)).toBe(675);
    expect(mapThrough(anchors, 999)).toBe(1000);
    expect(mapThrough(anchors, -5)).toBe(0);
  });

  it('maps back the other way', () => {
    expect(mapThrough(invert(anchors), 675)).toBe(300);
  });
});
