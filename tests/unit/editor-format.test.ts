import { describe, expect, it } from 'vitest';
import { applyFormat, continueList, mergeTaskMarkers, diffRange, imageMarkdown, indentLines, insertText, replaceFirst, splitBlocks, type Edit, type FormatKind } from '../../modules/editor/src/format';
import { renderMarkdown } from '../../src/lib/markdown/render';

/** Writes a text with `[` `]` marking the selection (or `|` the caret) and reads it back. */
function parse(marked: string): [string, number, number] {
  const caret = marked.indexOf('|');
  if (caret >= 0) return [marked.slice(0, caret) + marked.slice(caret + 1), caret, caret];
  const s = marked.indexOf('«');
  const e = marked.indexOf('»') - 1;
  return [marked.replace('«', '').replace('»', ''), s, e];
}

function show(edit: Edit): string {
  const { value, selStart, selEnd } = edit;
  if (selStart === selEnd) return `${value.slice(0, selStart)}|${value.slice(selStart)}`;
  return `${value.slice(0, selStart)}«${value.slice(selStart, selEnd)}»${value.slice(selEnd)}`;
}

function fmt(marked: string, kind: FormatKind): string {
  const [value, s, e] = parse(marked);
  return show(applyFormat(value, s, e, kind));
}

function enter(marked: string): string | null {
  const [value, caret] = parse(marked);
  const r = continueList(value, caret);
  return r ? `${r.value.slice(0, r.caret)}|${r.value.slice(r.caret)}` : null;
}

function tab(marked: string, outdent = false): string | null {
  const [value, s, e] = parse(marked);
  const r = indentLines(value, s, e, outdent);
  return r ? show(r) : null;
}

describe('inline formats', () => {
  it('wraps a selection in bold and unwraps it again', () => {
    expect(fmt('say «hello» now', 'bold')).toBe('say **«hello»** now');
    expect(fmt('say **«hello»** now', 'bold')).toBe('say «hello» now');
  });

  it('unwraps when the markers themselves are selected', () => {
    expect(fmt('say «**hello**» now', 'bold')).toBe('say «hello» now');
    expect(fmt('«`x`»', 'code')).toBe('«x»');
  });

  it('leaves the space a double-click picked up outside the markers', () => {
    expect(fmt('say «hello »now', 'bold')).toBe('say **«hello»** now');
  });

  it('inserts an empty pair around the caret and removes it on a second press', () => {
    expect(fmt('a|b', 'bold')).toBe('a**|**b');
    expect(fmt('a**|**b', 'bold')).toBe('a|b');
    expect(fmt('a|b', 'italic')).toBe('a*|*b');
  });

  it('tells italic from bold inside the same run of asterisks', () => {
    expect(fmt('**«x»**', 'italic')).toBe('***«x»***');
    expect(fmt('***«x»***', 'italic')).toBe('**«x»**');
    expect(fmt('***«x»***', 'bold')).toBe('*«x»*');
    expect(fmt('*«x»*', 'bold')).toBe('***«x»***');
  });

  it('fences inline code that contains backticks with a longer run', () => {
    expect(fmt('«a`b»', 'code')).toBe('``«a`b»``');
    expect(fmt('«`a»', 'code')).toBe('`` «`a» ``');
  });

  it('wraps CJK text without spaces, and the result renders as bold and italic', () => {
    expect(fmt('这是«重要»的内容', 'bold')).toBe('这是**«重要»**的内容');
    expect(fmt('这是**«重要»**的内容', 'bold')).toBe('这是«重要»的内容');
    const italic = applyFormat('中文斜体中文', 2, 4, 'italic').value;
    expect(italic).toBe('中文*斜体*中文');
    expect(renderMarkdown(italic).html).toContain('<em>斜体</em>');
    expect(renderMarkdown(applyFormat('中文强调中文', 2, 4, 'bold').value).html).toContain('<strong>强调</strong>');
  });
});

describe('links', () => {
  it('turns selected text into the label and waits for the address', () => {
    expect(fmt('see «the docs» here', 'link')).toBe('see [the docs](|) here');
  });

  it('turns a selected URL into the target and waits for the label', () => {
    expect(fmt('«https://example.com/a»', 'link')).toBe('[|](https://example.com/a)');
  });

  it('inserts an empty link with the caret in the label', () => {
    expect(fmt('x |', 'link')).toBe('x [|]()');
  });

  it('escapes brackets in the label and keeps CJK as it is', () => {
    expect(fmt('«文档 [v2]»', 'link')).toBe('[文档 \\[v2\\]](|)');
  });
});

describe('headings and quotes', () => {
  it('toggles a level-2 heading on the caret line, keeping the caret on its text', () => {
    expect(fmt('one\nti|tle\nthree', 'heading')).toBe('one\n## ti|tle\nthree');
    expect(fmt('one\n## ti|tle\nthree', 'heading')).toBe('one\nti|tle\nthree');
  });

  it('replaces another heading level by removing it first', () => {
    expect(fmt('#### |deep', 'heading')).toBe('|deep');
  });

  it('quotes every selected line and unquotes them again', () => {
    expect(fmt('«a\n\nb»', 'quote')).toBe('«> a\n>\n> b»');
    expect(fmt('«> a\n>\n> b»', 'quote')).toBe('«a\n\nb»');
  });
});

describe('lists', () => {
  it('starts a list on an empty line', () => {
    expect(fmt('|', 'bulletList')).toBe('- |');
    expect(fmt('|', 'taskList')).toBe('- [ ] |');
  });

  it('numbers selected lines, skipping blank ones, and toggles back', () => {
    expect(fmt('«a\nb\n\nc»', 'numberedList')).toBe('«1. a\n2. b\n\n3. c»');
    expect(fmt('«1. a\n2. b»', 'numberedList')).toBe('«a\nb»');
  });

  it('switches a list from one kind to another', () => {
    expect(fmt('«- a\n- [x] b»', 'bulletList')).toBe('«- a\n- b»');
    expect(fmt('«- a\n- b»', 'taskList')).toBe('«- [ ] a\n- [ ] b»');
  });

  it('ignores a selection that ends at the start of the next line', () => {
    expect(fmt('«a\n»b', 'bulletList')).toBe('«- a»\nb');
  });
});

describe('list continuation on Enter', () => {
  it('continues bullets, numbers and task lists', () => {
    expect(enter('- one|')).toBe('- one\n- |');
    expect(enter('  * nested|')).toBe('  * nested\n  * |');
    expect(enter('9. nine|')).toBe('9. nine\n10. |');
    expect(enter('1) a|')).toBe('1) a\n2) |');
    expect(enter('- [x] done|')).toBe('- [x] done\n- [ ] |');
  });

  it('moves the text after the caret into the new item', () => {
    expect(enter('- ab|cd')).toBe('- ab\n- |cd');
  });

  it('ends the list on an empty item', () => {
    expect(enter('- a\n- |')).toBe('- a\n|');
    expect(enter('- a\n- [ ] |\nnext')).toBe('- a\n|\nnext');
  });

  it('does nothing outside a list item or with the caret inside the marker', () => {
    expect(enter('plain|')).toBeNull();
    expect(enter('-| a')).toBeNull();
    expect(enter('**bold**|')).toBeNull();
  });

  it('continues CJK items', () => {
    expect(enter('- 第一项|')).toBe('- 第一项\n- |');
    expect(enter('1. 中文|')).toBe('1. 中文\n2. |');
  });

  it('continues a task list with one marker per item, numbered ones counting on', () => {
    expect(enter('- [ ] one|')).toBe('- [ ] one\n- [ ] |');
    expect(enter('- [ ] one\n- [ ] two|')).toBe('- [ ] one\n- [ ] two\n- [ ] |');
    expect(enter('3. [x] three|')).toBe('3. [x] three\n4. [ ] |');
  });

  it('treats a task box without a trailing space as a task item', () => {
    expect(enter('- a\n- [ ]|')).toBe('- a\n|');
    expect(fmt('- [ ]|', 'taskList')).toBe('|');
  });
});

describe('a second task marker typed on a continued item', () => {
  const merge = (marked: string): string | null => {
    const [value, caret] = parse(marked);
    const r = mergeTaskMarkers(value, caret);
    return r ? `${r.value.slice(0, r.caret)}|${r.value.slice(r.caret)}` : null;
  };

  it('is dropped, typed or pasted, keeping the first marker and the text', () => {
    expect(merge('- [ ] one\n- [ ] - [ ] |')).toBe('- [ ] one\n- [ ] |');
    expect(merge('- [ ] - [ ] pasted text|')).toBe('- [ ] pasted text|');
    expect(merge('  2. [ ] * [x] two|\nnext')).toBe('  2. [ ] two|\nnext');
  });

  it('leaves single markers, a marker still being typed and plain bullets alone', () => {
    expect(merge('- [ ] one|')).toBeNull();
    expect(merge('- [ ] - [ ]|')).toBeNull();
    expect(merge('- [ ] - [|')).toBeNull();
    expect(merge('- - nested|')).toBeNull();
    expect(merge('- [ ] - [ ] x\nplain|')).toBeNull();
  });
});

describe('indent and outdent', () => {
  it('nests an item under the one above it, at its text column', () => {
    expect(tab('- a\n- b|')).toBe('- a\n  - b|');
    expect(tab('1. a\n2. b|')).toBe('1. a\n   2. b|');
  });

  it('moves a nested item back to its parent level', () => {
    expect(tab('1. a\n   - b|', true)).toBe('1. a\n- b|');
  });

  it('leaves Tab to the browser outside lists and at the top level', () => {
    expect(tab('plain|')).toBeNull();
    expect(tab('«- a\nplain»')).toBeNull();
    expect(tab('- a|', true)).toBeNull();
  });

  it('indents every item of a selection', () => {
    expect(tab('- a\n«- b\n- c»')).toBe('- a\n«  - b\n  - c»');
  });
});

describe('code blocks', () => {
  it('inserts an empty block with the caret inside', () => {
    expect(fmt('|', 'codeBlock')).toBe('```\n|\n```');
  });

  it('fences the selected lines and removes the fences again', () => {
    expect(fmt('x\n«let a = 1;\nlet b»\ny', 'codeBlock')).toBe('x\n```\n«let a = 1;\nlet b»\n```\ny');
    expect(fmt('x\n```\n«let a = 1;\nlet b»\n```\ny', 'codeBlock')).toBe('x\n«let a = 1;\nlet b»\ny');
    expect(fmt('«```\ncode\n```»', 'codeBlock')).toBe('«code»');
  });

  it('does not take the gap between two blocks for the inside of one', () => {
    const out = fmt('```\na\n```\n«text»\n```\nb\n```', 'codeBlock');
    expect(out).toBe('```\na\n```\n```\n«text»\n```\n```\nb\n```');
  });

  it('uses a longer fence around code that contains a fence', () => {
    expect(fmt('«```\nx»', 'codeBlock')).toBe('````\n«```\nx»\n````');
  });
});

describe('tables', () => {
  it('inserts a table after the current paragraph, set apart by blank lines, caret in the first cell', () => {
    expect(fmt('intro|\nnext', 'table')).toBe('intro\n\n| | |  |\n| --- | --- |\n|  |  |\n\nnext');
  });

  it('fills an empty line without doubling blank lines', () => {
    expect(fmt('a\n\n|\n\nb', 'table')).toBe('a\n\n| | |  |\n| --- | --- |\n|  |  |\n\nb');
    expect(fmt('|', 'table')).toBe('| | |  |\n| --- | --- |\n|  |  |');
  });

  it('inserts markdown that renders as a table', () => {
    expect(renderMarkdown(applyFormat('text', 4, 4, 'table').value).html).toContain('<table>');
  });
});

describe('helpers', () => {
  it('finds the changed span between two texts', () => {
    expect(diffRange('abcdef', 'abXYef')).toEqual({ start: 2, end: 4, text: 'XY' });
    expect(diffRange('aaa', 'aaaa')).toEqual({ start: 3, end: 3, text: 'a' });
    expect(diffRange('same', 'same')).toEqual({ start: 4, end: 4, text: '' });
  });

  it('inserts text in place of a selection', () => {
    expect(show(insertText('abcd', 1, 3, '中文'))).toBe('a中文|d');
  });

  it('writes image markdown whose alt and target cannot break out', () => {
    expect(imageMarkdown('截图 [1].png', '/storage/default/a b(1).png')).toBe('![截图 (1).png](/storage/default/a%20b%281%29.png)');
    expect(renderMarkdown(imageMarkdown('a]b\\', '/x y.png')).html).toContain('src="/x%20y.png" alt="a)b"');
  });

  it('replaces the first occurrence, or tells that it is gone', () => {
    expect(replaceFirst('x ![up]() y ![up]()', '![up]()', '![a](/a.png)')).toBe('x ![a](/a.png) y ![up]()');
    expect(replaceFirst('nothing', '![up]()', '')).toBeNull();
  });
});

describe('preview blocks', () => {
  it('cuts rendered markdown into its top-level blocks and nothing else', () => {
    const source = '# 标题\n\ntext<br> with **bold**\nand a break  \nhere\n\n---\n\n- [x] done\n- item\n  > nested\n\n```js\nif (a < b) {}\n```\n\n| a | b |\n| --- | --- |\n| ![i](/i.png) | 2 |\n';
    const { html } = renderMarkdown(source);
    const blocks = splitBlocks(html);
    expect(blocks.join('')).toBe(html);
    expect(blocks.map((b) => /^<(\w+)/.exec(b)?.[1])).toEqual(['h1', 'p', 'hr', 'ul', 'pre', 'div']);
    expect(blocks.every((b) => b.endsWith('\n'))).toBe(true);
  });

  it('gives nothing for nothing', () => {
    expect(splitBlocks('')).toEqual([]);
  });
});
