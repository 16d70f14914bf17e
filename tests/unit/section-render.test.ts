import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../src/lib/markdown/render';
import { createSectionRenderer, splitSections } from '../../modules/editor/src/section-render';

const whole = (s: string): string => renderMarkdown(s).html;

describe('section rendering of the live preview', () => {
  const doc = [
    'Intro paragraph', '', '## One', '', '- a', '- b', '', '```md', '# not a heading', '```', '',
    '::: tip', '## inside a callout', 'text', ':::', '', '## Two', 'Para with **bold**', '', '| a | b |', '|---|---|', '| 1 | 2 |', '', '### 三', '中文段落',
  ].join('\n');

  it('cuts only at top-level headings outside fences and callouts', () => {
    expect(splitSections(doc).map((s) => s.split('\n')[0])).toEqual(['Intro paragraph', '## One', '## Two', '### 三']);
  });

  it('gives the same HTML as rendering the whole page', () => {
    expect(createSectionRenderer(whole)(doc)).toBe(whole(doc));
  });

  it('re-renders only the section that changed', () => {
    const calls: string[] = [];
    const render = createSectionRenderer((s) => { calls.push(s); return whole(s); });
    render(doc);
    calls.length = 0;
    const edited = doc.replace('Para with', 'Paragraph with');
    expect(render(edited)).toBe(whole(edited));
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatch(/^## Two/);
  });

  it('renders the whole page when reference links could cross sections', () => {
    const refs = '## A\n\nSee [the docs][d].\n\n## B\n\n[d]: https://example.com\n';
    expect(createSectionRenderer(whole)(refs)).toBe(whole(refs));
  });
});
