import { inArray, sql } from 'drizzle-orm';
import { MENTION } from '../../markdown/render';
import { renderWithModules } from '../modules/markdown';
import { serverHighlight } from '../../markdown/highlight.server';
import { plainText } from '../search/text';
import type { Db } from '../db/client';
import { user } from '../db/schema';

/**
 * Markdown → sanitised HTML with highlighted code and the installed modules' markdown, and a
 * plain-text excerpt for lists and meta tags. `mentions` (from `mentionedMembers`) turns
 * `@username` of those members into card links. `renderSet` is stored beside the HTML.
 */
export async function renderBody(markdown: string, mentions?: ReadonlyMap<string, number>, kind = 'post'): Promise<{ html: string; excerpt: string; text: string; renderSet: string }> {
  const { html, renderSet } = await renderWithModules(markdown, { highlight: await serverHighlight(markdown), mentions }, { kind, locale: '' });
  const text = plainText(markdown);
  return { html, excerpt: text.slice(0, 280), text, renderSet };
}

/** `@username` mentions in a body, outside code, lower-cased and unique. */
export function mentionsIn(markdown: string): string[] {
  const withoutCode = markdown.replace(/```[\s\S]*?(?:```|$)|`[^`\n]*`/g, ' ');
  const names = new Set<string>();
  for (const m of withoutCode.matchAll(MENTION)) names.add(m[2]!.toLowerCase());
  return [...names].slice(0, 10);
}

/** The members a body mentions who exist: lower-cased username → id, for `renderBody`. */
export async function mentionedMembers(db: Pick<Db, 'select'>, markdown: string): Promise<Map<string, number>> {
  const names = mentionsIn(markdown);
  if (!names.length) return new Map();
  const rows = await db.select({ id: user.id, name: sql<string>`lower(${user.username})` }).from(user).where(inArray(sql`lower(${user.username})`, names));
  return new Map(rows.map((r) => [r.name, r.id]));
}
