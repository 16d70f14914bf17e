import { renderMarkdown } from '../../markdown/render';
import { serverHighlight } from '../../markdown/highlight.server';
import { plainText } from '../search/text';

/** Markdown → sanitised HTML with highlighted code, and a plain-text excerpt for lists and meta tags. */
export async function renderBody(markdown: string): Promise<{ html: string; excerpt: string; text: string }> {
  const { html } = renderMarkdown(markdown, { highlight: await serverHighlight() });
  const text = plainText(markdown);
  return { html, excerpt: text.slice(0, 280), text };
}

/** `@username` mentions in a body, outside code, lower-cased and unique. */
export function mentionsIn(markdown: string): string[] {
  const withoutCode = markdown.replace(/```[\s\S]*?(?:```|$)|`[^`\n]*`/g, ' ');
  const names = new Set<string>();
  for (const m of withoutCode.matchAll(/(?:^|[^\w@/])@([a-zA-Z][a-zA-Z0-9_]{2,14})\b/g)) names.add(m[1]!.toLowerCase());
  return [...names].slice(0, 10);
}
