import { and, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db } from '../db/client';
import { askPost, askPostTag, user } from '../db/schema';
import { highlight, plainText, searchQuery, snippet } from '../search/text';
import type { SearchInput } from '../../shared/validation/ask';
import { summaryColumns, toSummaries, type PostSummary } from './posts';

export interface SearchHit extends PostSummary { titleHtml: string; snippetHtml: string }

/**
 * Full-text search over published posts, Chinese and English alike: the query becomes a tsquery of
 * bigrams and stems (lib/server/search/text.ts). Titles weigh more than tags, tags more than bodies.
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
    : [desc(sql`ts_rank(${askPost.searchVector}, ${q})`), desc(askPost.id)];
  const [rows, [{ total } = { total: 0 }]] = await Promise.all([
    db.select({ ...summaryColumns, body: askPost.body }).from(askPost).innerJoin(user, eq(user.id, askPost.userId))
      .where(and(...where)).orderBy(...order).limit(input.limit).offset((input.page - 1) * input.limit),
    db.select({ total: sql<number>`count(*)::int` }).from(askPost).where(and(...where)),
  ]);
  const summaries = await toSummaries(db, rows);
  return {
    total,
    terms: parsed.terms,
    list: summaries.map((s, i) => ({ ...s, titleHtml: highlight(s.title, parsed.terms), snippetHtml: snippet(plainText(rows[i]!.body), parsed.terms) })),
  };
}
