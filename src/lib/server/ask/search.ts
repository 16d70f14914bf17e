import { and, desc, eq, inArray, not, sql, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db } from '../db/client';
import { askPost, askPostTag, user } from '../db/schema';
import { highlight, plainText, searchQuery, snippet } from '../search/text';
import type { SearchInput } from '../../shared/validation/ask';
import { summaryColumns, toSummaries, type PostSummary, type Tx } from './posts';

/** Results are counted up to this many; the page says "1,000+" beyond and lists no further. */
export const SEARCH_CAP = 1000;

export interface SearchHit extends PostSummary { titleHtml: string; snippetHtml: string }

/** Where the sample found its matches: the first `lastBlock + 1` of the table's `blocks` heap pages. */
export interface SampleSpan { lastBlock: number; blocks: number; maxId: number }

/** What the sample query learns from the first SEARCH_CAP matches it reads. */
interface Sample extends SampleSpan {
  total: number;
  /** Of them, matches in the title alone, and in title and tags. */
  title: number;
  titleOrTags: number;
  /** The requested page, cut from the sample: the page itself when the sample holds every match. */
  page: number[] | null;
}

/** One part of the result list: the published posts matching `where`, newest first. */
interface Tier {
  where: SQL;
  /** How many of the sampled matches are in this tier. */
  sampled: number;
  /** How many of them its GIN index finds: what a bitmap scan of the tier reads. */
  candidates: number;
  /** What one row costs walking an index newest first, in rows of a bitmap scan. */
  walkCost: number;
}

/**
 * Whether to read the first `rows` of a tier by walking an index newest first (it reads
 * rows ÷ the tier's share of the table, so cheap for a common word) rather than by a bitmap scan
 * of all its GIN index finds, sorted (cheap for a rare one). The sample scales to the whole table
 * by how far into the heap it had to read for its matches.
 */
export function walkTier(tier: Pick<Tier, 'sampled' | 'candidates' | 'walkCost'>, rows: number, span: SampleSpan): boolean {
  if (tier.sampled === 0) return false;
  const scale = Math.max(1, span.blocks / (span.lastBlock + 1));
  const walked = (rows * span.maxId) / (tier.sampled * scale);
  return walked * tier.walkCost < tier.candidates * scale;
}

/**
 * Runs a query as an index walk whatever the planner estimates: it takes `'小程' & '程序'` to be as
 * rare as the two bigrams apart (111 posts instead of 3,314), and would read every match.
 */
async function walk<T>(db: Db, query: (tx: Tx) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select set_config('enable_bitmapscan', 'off', true), set_config('enable_seqscan', 'off', true)`);
    return query(tx);
  });
}

function rowsOf<T>(result: unknown): T[] {
  return (result as { rows: T[] }).rows;
}

/**
 * Full-text search over published posts, Chinese and English alike: the query becomes a tsquery of
 * bigrams and stems (lib/server/search/text.ts). Relevance lists three tiers, each newest first:
 * posts with the whole query in the title, then in title and tags together, then anywhere else
 * (the body). A post matching partly in its title sorts with the body matches. Date sort is one
 * tier, newest first.
 *
 * No query reads every match of a common word (数据库 is in 17,698 posts of 100,000):
 * 1. A sample reads at most SEARCH_CAP matches from the GIN index, in heap order, and counts each
 *    tier. It is the total; when it holds every match, it also sorts them and cuts the page.
 * 2. Otherwise each tier the page reaches is read from its newest post to the page's end, either
 *    by walking the primary key (or the date index) or by a bitmap scan of the tier's own GIN
 *    index (titles, titles and tags, whole posts), whichever walkTier() finds cheaper.
 * The planner cannot be left that choice: it misjudges bigram and prefix queries by a factor of
 * 30, and costs `@@` on a toasted search vector like an integer comparison, so it walked the
 * whole table for a rare prefix (0.5 s) and scanned it for a count. A bitmap scan is written as a
 * MATERIALIZED CTE, planned for all its rows yet read only as far as the outer LIMIT asks; a walk
 * switches bitmap and sequential scans off for its statement.
 */
export async function searchPosts(db: Db, input: z.output<typeof SearchInput>): Promise<{ list: SearchHit[]; total: number; terms: string[] }> {
  const parsed = searchQuery(input.keywords);
  if (!parsed) return { list: [], total: 0, terms: [] };
  const q = sql`${parsed.query}::tsquery`;
  // The title vector holds the title at weight A and the tags at B (posts.ts titleVectorOf()).
  const inTitle = sql`ts_filter(${askPost.titleVector}, '{a}') @@ ${q}`;
  const inTitleOrTags = sql`${askPost.titleVector} @@ ${q}`;
  const matches = sql`${askPost.searchVector} @@ ${q}`;
  const filters: SQL[] = [eq(askPost.status, 'published')];
  if (input.category) filters.push(eq(askPost.categoryId, input.category));
  if (input.tag) filters.push(inArray(askPost.id, db.select({ id: askPostTag.postId }).from(askPostTag).where(eq(askPostTag.tagId, input.tag))));
  const byDate = input.sort === 'date';
  const newest = byDate ? sql`created desc, id desc` : sql`id desc`;
  const start = (input.page - 1) * input.limit;
  const end = Math.min(start + input.limit, SEARCH_CAP);

  // The page is sorted only when the sample holds every match: a CASE runs its subquery only then.
  // max(ctid) needs PostgreSQL 14.
  const [sample] = rowsOf<Sample>(await db.execute(sql`with m as materialized (
      select ${askPost.id} as id, ${askPost.createTime} as created, ${inTitle} as title, ${inTitleOrTags} as "titleOrTags", ${askPost}.ctid as place
      from ${askPost} where ${and(...filters, matches)}
    ), s as (select * from m limit ${SEARCH_CAP})
    select count(*)::int as total, (count(*) filter (where title))::int as title, (count(*) filter (where "titleOrTags"))::int as "titleOrTags",
      coalesce((max(place)::text::point)[0], 0)::int as "lastBlock",
      (pg_relation_size('ask_post') / current_setting('block_size')::int)::int as blocks,
      (select coalesce(max(${askPost.id}), 0) from ${askPost}) as "maxId",
      case when count(*) < ${SEARCH_CAP} then (select (array_agg(id order by ${byDate ? newest : sql`not title, not "titleOrTags", ${newest}`}))[${start + 1}:${end}] from s) end as page
    from s`));
  const { total } = sample!;

  let ids: number[] = [];
  if (total < SEARCH_CAP) {
    ids = end > start ? sample!.page ?? [] : [];
  } else if (end > start) {
    const { title, titleOrTags } = sample!;
    // Walking costs about one bitmap row per row for the title vectors (inline in the row) and 3
    // (PostgreSQL) to 10 (PGlite) for the search vector, read from TOAST: measured on the forum bench.
    const tiers: Tier[] = byDate
      ? [{ where: matches, sampled: total, candidates: total, walkCost: 6 }]
      : [
        { where: inTitle, sampled: title, candidates: title, walkCost: 1 },
        { where: and(inTitleOrTags, not(inTitle))!, sampled: titleOrTags - title, candidates: titleOrTags, walkCost: 1 },
        // The title test first: a walk then reads no title match's search vector.
        { where: and(not(inTitleOrTags), matches)!, sampled: total - titleOrTags, candidates: total, walkCost: 6 },
      ];
    const listed: number[] = [];
    for (const tier of tiers) {
      const rows = end - listed.length;
      const where = and(...filters, tier.where);
      const found = walkTier(tier, rows, sample!)
        ? await walk(db, (tx) => tx.select({ id: askPost.id }).from(askPost).where(where)
          .orderBy(...(byDate ? [desc(askPost.createTime), desc(askPost.id)] : [desc(askPost.id)])).limit(rows))
        : rowsOf<{ id: number }>(await db.execute(sql`with m as materialized (
            select ${askPost.id} as id, ${askPost.createTime} as created from ${askPost} where ${where}
          ) select id from m order by ${newest} limit ${rows}`));
      listed.push(...found.map((r) => r.id));
      if (listed.length >= end) break;
    }
    ids = listed.slice(start, end);
  }

  const rows = ids.length
    ? await db.select({ ...summaryColumns, body: askPost.body }).from(askPost).innerJoin(user, eq(user.id, askPost.userId)).where(inArray(askPost.id, ids))
    : [];
  const position = new Map(ids.map((id, i) => [id, i]));
  rows.sort((a, b) => position.get(a.id)! - position.get(b.id)!);
  const summaries = await toSummaries(db, rows);
  return {
    total,
    terms: parsed.terms,
    list: summaries.map((s, i) => ({ ...s, titleHtml: highlight(s.title, parsed.terms), snippetHtml: snippet(plainText(rows[i]!.body), parsed.terms) })),
  };
}
