import { renderBody } from '../ask/render';
import { searchVector } from '../search/text';

/** What a module's name, summary, tags and description give to the market's search columns. */
export async function moduleText(input: { name: string; summary: string; tags: readonly string[]; description: string }): Promise<{
  descriptionHtml: string; searchVector: string; titleVector: string;
}> {
  const rendered = await renderBody(input.description);
  const tags = input.tags.join(' ');
  return {
    descriptionHtml: rendered.html,
    titleVector: searchVector([{ text: input.name, weight: 'A' }, { text: tags, weight: 'B' }]),
    searchVector: searchVector([
      { text: input.name, weight: 'A' }, { text: tags, weight: 'B' }, { text: input.summary, weight: 'B' }, { text: rendered.text, weight: 'C' },
    ]),
  };
}
