// Forum search paging, on a forum where one word passes SEARCH_CAP (so each relevance tier is read on
// its own, by an index walk or a bitmap scan) and another stays below it (so the page is cut from the
// sample): every page must be what sorting all matches would give. PGlite, and PostgreSQL too when
// TEST_DATABASE_URL is set.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../src/lib/server/env';
import type { Runtime } from '../../src/lib/server/runtime';
import { createRuntime } from '../../src/lib/server/boot/runtime';
import { createUser } from '../../src/lib/server/account/users';
import { askCategory, askPost, askPostTag, askTag } from '../../src/lib/server/db/schema';
import { titleVectorOf, vectorOf } from '../../src/lib/server/ask/posts';
import { SEARCH_CAP, searchPosts } from '../../src/lib/server/ask/search';
import { freshPostgres } from '../helpers/server';
import { ROOT, TEMPLATE_DIR, TMP } from '../helpers/paths';
import { scaled } from '../helpers/time-scale.mjs';

/** In 1,300 posts: the title of every 4th, the tags of the next, the body of all. */
const COMMON = '树袋熊';
/** In 30 posts, below the cap. */
const RARE = 'numbat';

type Where = 'title' | 'tags' | 'body';
interface Planted { id: number; word: string; where: Where; published: boolean; created: number; category: number; tags: string[] }

const TIER: Record<Where, number> = { title: 0, tags: 1, body: 2 };

const engines: [string, boolean][] = [['PGlite', false], ...(process.env.TEST_DATABASE_URL ? [['PostgreSQL', true] as [string, boolean]] : [])];

describe.each(engines)('forum search paging on %s', (_name, postgres) => {
  let rt: Runtime;
  let dataDir = '';
  let question = 0;
  let discussion = 0;
  let marsupial = 0;
  const planted: Planted[] = [];
  const tagIds = new Map<string, number>();

  /** The page sorting every match gives, and the total as the search counts it. */
  function expected(word: string, opts: { sort?: 'relevance' | 'date'; page: number; limit: number; category?: number; tag?: number }): { ids: number[]; total: number } {
    const all = planted.filter((p) => p.word === word && p.published && (!opts.category || p.category === opts.category)
      && (!opts.tag || p.tags.includes('marsupial')));
    all.sort(opts.sort === 'date' ? (a, b) => b.created - a.created || b.id - a.id : (a, b) => TIER[a.where] - TIER[b.where] || b.id - a.id);
    const start = (opts.page - 1) * opts.limit;
    return { ids: all.slice(start, Math.min(start + opts.limit, SEARCH_CAP)).map((p) => p.id), total: Math.min(all.length, SEARCH_CAP) };
  }

  async function found(word: string, opts: { sort?: 'relevance' | 'date'; page: number; limit: number; category?: number; tag?: number }): Promise<{ ids: number[]; total: number }> {
    const result = await searchPosts(rt.db, { keywords: word, sort: opts.sort ?? 'relevance', page: opts.page, limit: opts.limit, category: opts.category, tag: opts.tag });
    return { ids: result.list.map((h) => h.id), total: result.total };
  }

  async function plant(word: string, count: number, shape: (i: number) => Omit<Planted, 'id' | 'word'> & { title: string; body: string }): Promise<void> {
    const author = await createUser(rt.db, { username: `planter${count}`, password: 'forum123' });
    const rows = Array.from({ length: count }, (_, i) => ({ i, ...shape(i) }));
    for (let at = 0; at < rows.length; at += 250) {
      const batch = rows.slice(at, at + 250);
      const ids = await rt.db.insert(askPost).values(batch.map((r) => ({
        categoryId: r.category, userId: author.id, title: r.title, body: r.body, html: `<p>${r.body}</p>`, status: r.published ? 'published' : 'hidden',
        lastActivityTime: r.created, createTime: r.created, updateTime: r.created,
        searchVector: vectorOf(r.title, r.body, r.tags), titleVector: titleVectorOf(r.title, r.tags),
      }))).returning({ id: askPost.id });
      const links: { postId: number; tagId: number }[] = [];
      batch.forEach((r, k) => {
        planted.push({ id: ids[k]!.id, word, where: r.where, published: r.published, created: r.created, category: r.category, tags: r.tags });
        for (const name of r.tags) links.push({ postId: ids[k]!.id, tagId: tagIds.get(name)! });
      });
      if (links.length) await rt.db.insert(askPostTag).values(links);
    }
  }

  beforeAll(async () => {
    dataDir = mkdtempSync(join(TMP, 'search-'));
    cpSync(TEMPLATE_DIR, dataDir, { recursive: true });
    rt = await createRuntime(readConfig({
      ATRIUM_ROOT: ROOT, DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...(postgres ? { DATABASE_URL: await freshPostgres() } : {}),
    }));
    const cats = await rt.db.select().from(askCategory);
    question = cats.find((c) => c.slug === 'question')!.id;
    discussion = cats.find((c) => c.slug === 'discussion')!.id;
    for (const name of [COMMON, RARE, 'marsupial']) {
      const [row] = await rt.db.insert(askTag).values({ name, createTime: 1 }).returning({ id: askTag.id });
      tagIds.set(name, row!.id);
    }
    marsupial = tagIds.get('marsupial')!;
    // Creation times are a shuffle of the ids, so date order is not id order. Hidden posts are body
    // matches only: the title and tags tiers hold exactly 325 published posts each.
    const base = 1_700_000_000;
    await plant(COMMON, 1300, (i) => {
      const where: Where = i % 4 === 0 ? 'title' : i % 4 === 1 ? 'tags' : 'body';
      return {
        where, published: !(where === 'body' && i % 50 === 7), created: base + ((i * 7919) % 1300) * 60,
        category: i % 8 === 7 ? discussion : question,
        tags: [...(where === 'tags' ? [COMMON] : []), ...(i % 10 === 0 ? [] : ['marsupial'])],
        title: where === 'title' ? `${COMMON}观察笔记 ${i}` : `动物园日记 ${i}`,
        body: `今天在动物园看到了${COMMON}，记录第 ${i} 篇。`,
      };
    });
    await plant(RARE, 30, (i) => {
      const where: Where = (['title', 'tags', 'body'] as const)[i % 3]!;
      return {
        where, published: i !== 4, created: base + ((i * 7) % 30) * 60, category: i % 2 ? discussion : question,
        tags: [...(where === 'tags' ? [RARE] : []), ...(i % 5 ? ['marsupial'] : [])],
        title: where === 'title' ? `Spotting a ${RARE} ${i}` : `Field notes ${i}`,
        body: `We saw a ${RARE} near the creek, note ${i}.`,
      };
    });
  }, scaled(120_000));

  afterAll(async () => {
    await rt?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('lists title matches, then title-and-tags matches, then the rest, newest first, on every page up to the cap', async () => {
    for (let page = 1; page <= SEARCH_CAP / 25; page++) {
      expect(await found(COMMON, { page, limit: 25 }), `page ${page}`).toEqual(expected(COMMON, { page, limit: 25 }));
    }
  });

  it('pages cleanly where one tier ends and the next begins', async () => {
    // 325 title matches, 325 title-and-tags matches: offsets 325 and 650 are tier boundaries.
    for (const [page, limit] of [[14, 25], [13, 25], [27, 25], [26, 25], [7, 50], [1, 50], [2, 50], [33, 20], [17, 20]] as const) {
      const got = await found(COMMON, { page, limit });
      expect(got, `page ${page} × ${limit}`).toEqual(expected(COMMON, { page, limit }));
    }
    const first = (await found(COMMON, { page: 14, limit: 25 })).ids[0]!;
    expect(planted.find((p) => p.id === first)!.where).toBe('tags');
  });

  it('sorts by creation date, newest first, across pages', async () => {
    for (const [page, limit] of [[1, 20], [2, 20], [10, 50], [20, 50], [50, 20]] as const) {
      expect(await found(COMMON, { sort: 'date', page, limit }), `page ${page} × ${limit}`).toEqual(expected(COMMON, { sort: 'date', page, limit }));
    }
  });

  it('filters by category and by tag, in both sorts', async () => {
    for (const filter of [{ category: question }, { tag: marsupial }, { category: question, tag: marsupial }, { category: discussion }]) {
      for (const sort of ['relevance', 'date'] as const) {
        for (const [page, limit] of [[1, 20], [14, 25], [40, 25]] as const) {
          const opts = { sort, page, limit, ...filter };
          expect(await found(COMMON, opts), JSON.stringify(opts)).toEqual(expected(COMMON, opts));
        }
      }
    }
  });

  it('counts up to the cap and lists nothing past it', async () => {
    expect((await found(COMMON, { page: 1, limit: 20 })).total).toBe(SEARCH_CAP);
    expect(await found(COMMON, { page: SEARCH_CAP / 25 + 1, limit: 25 })).toEqual({ ids: [], total: SEARCH_CAP });
    expect((await found(COMMON, { page: 20, limit: 50 })).ids).toHaveLength(50);
  });

  it('below the cap cuts every page from the one sample, hidden posts left out', async () => {
    for (const sort of ['relevance', 'date'] as const) {
      for (const filter of [{}, { category: discussion }, { tag: marsupial }]) {
        for (let page = 1; page <= 9; page++) {
          const opts = { sort, page, limit: 4, ...filter };
          expect(await found(RARE, opts), JSON.stringify(opts)).toEqual(expected(RARE, opts));
        }
      }
    }
    expect((await found(RARE, { page: 1, limit: 50 })).total).toBe(29);
  });
});
