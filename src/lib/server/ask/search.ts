import { and, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db } from '../db/client';
import { askPost, askPostTag, user } from '../db/schema';
import { highlight, plainText, searchQuery, snippet } from '../search/text';
import type { SearchInput } from '../../shared/validation/ask';
import { summaryColumns, toSummaries, type PostSummary } from './posts';

/** Results are counted up to this many; the page says "1,000+" beyond. */
export const SEARCH_CAP = 1000;

export interface SearchHit extends PostSummary { titleHtml: string; snippetHtml: string }

/**
 * Full-text search over published posts, Chinese and English alike: the query becomes a tsquery of
 * bigrams and stems (lib/server/search/text.ts). Relevance ranks by the small title-and-tags vector
 * (title hits first, then tag hits, then the rest by recency): ranking by the whole body vector
 * would read every match's body, hundreds of milliseconds for a common word in 100,000 posts.
 */
export async function searchPosts(db: Db, input: z.output<typeof SearchInput>): Promise<{ list: SearchHit[]; total: number; terms: string[] }> {
  const parsed = searchQuery(input.keywords);
  if (!parsed) return { list: [], total: 0, terms: [] };
  const q = sql`${parsed.query}::tsquery`;
  const where: SQL[] = [eq(askPost.status, 'published'), sql`${askPost.searchVector} @@ ${q}`];
  if (input.category) where.push(eq(askPost.categoryId, input.category));
  if (input.tag) where.push(inArray(askPost.id, db.select({ id: askPostTag.postId }).from(askPostTag).where(eq(askPostTag.tagId, input.tag))));
  const order = input.sort === 'date'
    ? [desc(askPost.createTime), desc(askPost.id)]
    : [desc(sql`ts_rank(${askPost.titleVector}, ${q})`), desc(askPost.id)];
  const [rows, [{ total } = { total: 0 }]] = await Promise.all([
    db.select({ ...summaryColumns, body: askPost.body }).from(askPost).innerJoin(user, eq(user.id, askPost.userId))
      .where(and(...where)).orderBy(...order).limit(input.limit).offset((input.page - 1) * input.limit),
    // Counting every match of a common word costs more than the page itself: stop at SEARCH_CAP.
    db.select({ total: sql<number>`count(*)::int` }).from(db.select({ one: sql`1` }).from(askPost).where(and(...where)).limit(SEARCH_CAP).as('hits')),
  ]);
  const summaries = await toSummaries(db, rows);
  return {
    total,
    terms: parsed.terms,
    list: summaries.map((s, i) => ({ ...s, titleHtml: highlight(s.title, parsed.terms), snippetHtml: snippet(plainText(rows[i]!.body), parsed.terms) })),
  };
}
