import { renderBody } from '../ask/render';
import { searchVector } from '../search/text';

/** What a module's name, summary, tags and description give to the market's search columns. */
export async function moduleText(input: {
  name: string; summary: string; tags: readonly string[]; description: string; nameEn?: string; summaryEn?: string; descriptionEn?: string;
}): Promise<{ descriptionHtml: string; descriptionEnHtml: string; searchVector: string; titleVector: string }> {
  const rendered = await renderBody(input.description);
  const english = input.descriptionEn ? await renderBody(input.descriptionEn) : null;
  const tags = input.tags.join(' ');
  // Both languages are searched, whichever the reader types in.
  const names = [input.name, input.nameEn ?? ''].join(' ');
  return {
    descriptionHtml: rendered.html,
    descriptionEnHtml: english?.html ?? '',
    titleVector: searchVector([{ text: names, weight: 'A' }, { text: tags, weight: 'B' }]),
    searchVector: searchVector([
      { text: names, weight: 'A' }, { text: tags, weight: 'B' }, { text: [input.summary, input.summaryEn ?? ''].join(' '), weight: 'B' },
      { text: [rendered.text, english?.text ?? ''].join(' '), weight: 'C' },
    ]),
  };
}
