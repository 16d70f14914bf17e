import { renderWithModules } from '../modules/markdown';
import { serverHighlight } from '../../markdown/highlight.server';
import type { MdHeading } from '../db/schema';
import { plainText } from '../search/text';

export interface DocSection { anchor: string; heading: string; text: string }

/** A page's HTML (highlighted, callouts, heading anchors, modules' markdown), its headings, its search sections and the modules it was rendered with. */
export async function renderDoc(title: string, markdown: string): Promise<{ html: string; headings: MdHeading[]; sections: DocSection[]; renderSet: string }> {
  const { html, headings, renderSet } = await renderWithModules(markdown, { highlight: await serverHighlight(markdown) }, { kind: 'doc', locale: '' });
  return { html, headings: headings.map((h) => ({ level: h.level, text: h.text, id: h.slug })), sections: sectionsOf(title, markdown, headings), renderSet };
}

/**
 * Splits a page at its headings (outside code fences), so a search hit can link to `page#heading`.
 * The text before the first heading belongs to the page itself (anchor '').
 */
export function sectionsOf(title: string, markdown: string, headings: readonly { level: number; text: string; slug: string }[]): DocSection[] {
  const sections: DocSection[] = [{ anchor: '', heading: title, text: '' }];
  const lines: string[][] = [[]];
  let fence: string | null = null;
  let next = 0;
  for (const line of markdown.split('\n')) {
    const f = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (f) {
      if (!fence) fence = f[1]![0]!;
      else if (f[1]![0] === fence) fence = null;
    }
    const h = fence ? null : /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (h && next < headings.length) {
      const heading = headings[next++]!;
      sections.push({ anchor: heading.slug, heading: heading.text, text: '' });
      lines.push([]);
      continue;
    }
    lines.at(-1)!.push(line);
  }
  return sections.map((s, i) => ({ ...s, text: plainText(lines[i]!.join('\n')) })).filter((s, i) => i === 0 || s.text || s.heading);
}
