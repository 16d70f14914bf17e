// Grounding: what the site itself says about a question. Docs sections (members-only books only for
// members) and forum posts with their accepted answers, found with the site's own search, cut to a
// token budget and numbered for the model (and the site assistant) to cite as [1], [2], ….
import { and, desc, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { askPost, askReply, mdBook, mdPage, mdSection } from '../db/schema';
import { plainText, searchQuery } from '../search/text';

export interface Source {
  /** 1-based: the model cites it as [n]. */
  n: number;
  kind: 'doc' | 'post' | 'answer';
  title: string;
  heading: string;
  /** App path with the anchor: `/md/book/page#heading` or `/ask/info/1#reply-2`. */
  url: string;
  text: string;
}

export interface RetrieveOptions {
  /** Members see members-only books. */
  member: boolean;
  /** Rough token budget of all passages together (a token ≈ 4 Latin characters or 1.5 CJK). */
  tokenBudget: number;
  /** Most passages to keep. */
  limit?: number;
}

/**
 * The docs language a question reads best in: Chinese when it holds Han characters, English
 * otherwise. Books in that language come first; a book in the other language only fills in.
 */
export function questionLang(question: string): 'zh-cn' | 'en' {
  return /\p{Script=Han}/u.test(question) ? 'zh-cn' : 'en';
}

// Words that carry no topic: asking words in both languages.
const STOP = new Set(('a an the and or but of to in on at for from by with into about how what why when where which who whom whose is are was were be been being do does did '
  + 'can could should would will shall may might must i me my we our you your it its this that these those there here please help want need get use using make '
  + 'not no yes if then than so as any some all more most other such only own same too very just also')
  .split(' '));
const CJK_STOP = new Set(['如何', '怎么', '怎样', '怎么样', '什么', '为什么', '哪里', '哪个', '哪些', '可以', '能否', '是否', '能不能', '请问', '一下', '我们', '你们', '他们', '这个', '那个', '这些', '那些', '的', '了', '吗', '呢', '吧', '啊', '把', '将', '到', '在', '和', '与', '或', '是', '有', '我', '你', '他', '她', '它', '要', '想', '能', '会', '用', '给', '让', '从', '对', '中', '上', '下', '里', '去', '来', '也', '都', '就', '还', '又', '很', '个', '该', '应该', '需要']);
const CJK = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Hangul}]/u;
const SEGMENTER = new Intl.Segmenter('zh', { granularity: 'word' });

/**
 * Glues a run of adjacent CJK words the segmenter cut finer than the forum's terms: lone
 * characters next to each other form a word (缓 存 → 缓存, 死 锁 → 死锁), a lone character
 * beside a word joins it (数据 库 → 数据库, 懒 加载 → 懒加载).
 */
function glueRun(run: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < run.length;) {
    if (Array.from(run[i]!).length > 1) { out.push(run[i++]!); continue; }
    let j = i;
    while (j < run.length && Array.from(run[j]!).length === 1) j++;
    const singles = run.slice(i, j).join('');
    if (j - i > 1) out.push(singles);
    else if (out.length && i > 0) out[out.length - 1] += singles;
    else if (j < run.length) { out.push(singles + run[j]!); j++; }
    i = j;
  }
  return out;
}

/** The topic words of a question, longest first (the most specific), at most eight. */
export function keywordsOf(question: string): string[] {
  const words: string[] = [];
  let run: string[] = [];
  const endRun = (): void => {
    for (const w of glueRun(run)) if (Array.from(w).length >= 2 && !words.includes(w)) words.push(w);
    run = [];
  };
  for (const seg of SEGMENTER.segment(question.normalize('NFKC').toLowerCase())) {
    const w = seg.segment;
    if (seg.isWordLike && CJK.test(w) && !CJK_STOP.has(w)) { run.push(w); continue; }
    endRun();
    if (seg.isWordLike && !CJK.test(w) && !STOP.has(w) && w.length >= 2 && !words.includes(w)) words.push(w);
  }
  endRun();
  // Adjacent CJK words are often one term split apart (迁移 到 → 迁移): keep them as they are.
  return words.sort((a, b) => Array.from(b).length - Array.from(a).length).slice(0, 8);
}

const CJK_ALL = new RegExp(CJK.source, 'gu');

/** Tokens a passage costs, roughly: CJK characters count more than Latin ones. */
export function estimateTokens(text: string): number {
  const cjk = text.match(CJK_ALL)?.length ?? 0;
  return Math.ceil(cjk / 1.5 + (text.length - cjk) / 4);
}

/** The tsquery of the topic words joined by `|` (any of them) or `&` (all of them). */
function wordsQuery(words: string[], op: '|' | '&'): string | null {
  const parts = words.map((w) => searchQuery(w)?.query).filter((q): q is string => !!q);
  return parts.length ? parts.map((p) => `(${p})`).join(` ${op} `) : null;
}

/** The start of a text within a token budget (one pass: the estimate grows with each character). */
function cut(text: string, tokens: number): string {
  if (estimateTokens(text) <= tokens) return text;
  let cjk = 0;
  let units = 0;
  let end = 0;
  for (const ch of text) {
    units += ch.length;
    if (CJK.test(ch)) cjk++;
    end += ch.length;
    if (Math.ceil(cjk / 1.5 + (units - cjk) / 4) >= tokens) break;
  }
  return `${text.slice(0, end).trimEnd()}…`;
}

interface Passage { kind: Source['kind']; title: string; heading: string; url: string; text: string; score: number }

async function docPassages(db: Db, words: string[], member: boolean, lang: string): Promise<Passage[]> {
  const query = wordsQuery(words, '|');
  if (!query) return [];
  const q = sql`${query}::tsquery`;
  const rows = await db.select({
    book: mdBook.name, page: mdPage.name, pageTitle: mdPage.title, anchor: mdSection.anchor, heading: mdSection.heading, text: mdSection.text,
    rank: sql<number>`ts_rank(${mdSection.searchVector}, ${q})`, sameLang: sql<boolean>`${mdBook.lang} = ${lang}`,
  }).from(mdSection).innerJoin(mdPage, eq(mdPage.id, mdSection.pageId)).innerJoin(mdBook, eq(mdBook.id, mdSection.bookId))
    .where(and(sql`${mdSection.searchVector} @@ ${q}`, member ? undefined : eq(mdBook.visibility, 'public')))
    .orderBy(desc(sql`${mdBook.lang} = ${lang}`), desc(sql`ts_rank(${mdSection.searchVector}, ${q})`), mdSection.id).limit(6);
  // A section in the question's language ranks above the forum; one in the other language (the
  // same guide translated, usually) only below it.
  return rows.filter((r) => r.text.trim()).map((r) => ({
    kind: 'doc', title: r.pageTitle, heading: r.heading, url: `/md/${r.book}/${r.page}${r.anchor ? `#${encodeURIComponent(r.anchor)}` : ''}`,
    text: r.text, score: r.sameLang ? Number(r.rank) * 10 + 1 : Number(r.rank) * 0.1,
  }));
}

/** The rows of `db.execute` (PGlite and node-postgres both answer `{ rows }`). */
const rowsOf = <T>(result: unknown): T[] => (result as { rows: T[] }).rows;

/**
 * Forum posts whose title or tags hold every topic word, else any of them (the partial GIN index
 * on the title vector), else whose text holds any (the search vector's index): the first matches
 * found, ranked by how well their title matches, the best four with their accepted answers, in one
 * statement each. All the words first: those titles answer the question best, and GIN reads only
 * the postings of the rarest word, where any of them makes it collect every title holding a common
 * one (数据库 alone is in thousands) before ranking. The work is capped: 100 title matches are
 * ranked; a text match reads the large, out-of-line search vectors, so only the first 20 are taken.
 */
async function forumPassages(db: Db, words: string[]): Promise<Passage[]> {
  const some = wordsQuery(words, '|');
  if (!some) return [];
  type Row = { id: number; title: string; body: string; answerId: number | null; answer: string | null };
  const find = async (vector: typeof askPost.titleVector | typeof askPost.searchVector, query: string, cap: number): Promise<Row[]> => {
    const q = sql`${query}::tsquery`;
    return rowsOf<Row>(await db.execute(sql`
    with m as materialized (
      select ${askPost.id} as id, ${askPost.title} as title, ${askPost.acceptedReplyId} as accepted, ts_rank(${askPost.titleVector}, ${q}) as r
      from ${askPost} where ${askPost.status} = 'published' and ${vector} @@ ${q} limit ${cap}
    ), top as (select * from m order by r desc, id desc limit 4)
    select top.id, top.title, p.body, r.id as "answerId", r.body as answer
    from top join ${askPost} p on p.id = top.id
    left join ${askReply} r on r.id = top.accepted and r.post_id = top.id and r.status = 'published'
    order by top.r desc, top.id desc`));
  };
  const all = words.length > 1 ? wordsQuery(words, '&') : null;
  let found = all ? await find(askPost.titleVector, all, 100) : [];
  if (!found.length) found = await find(askPost.titleVector, some, 100);
  if (!found.length) found = await find(askPost.searchVector, some, 20);
  const out: Passage[] = [];
  found.forEach((p, i) => {
    const score = 1 - i * 0.1;
    if (p.answerId && p.answer) out.push({ kind: 'answer', title: p.title, heading: '', url: `/ask/info/${p.id}#reply-${p.answerId}`, text: plainText(p.answer), score: score + 0.2 });
    out.push({ kind: 'post', title: p.title, heading: '', url: `/ask/info/${p.id}`, text: plainText(p.body), score });
  });
  return out;
}

/** Remembers passages per topic words (the same question is asked again and again) until docs or forum change. */
export class RetrievalCache {
  readonly #entries = new Map<string, { at: number; value: Promise<Source[]> }>();
  constructor(private readonly max = 500, private readonly ttlMs = 10 * 60_000) {}

  get(key: string, load: () => Promise<Source[]>): Promise<Source[]> {
    const hit = this.#entries.get(key);
    if (hit && Date.now() - hit.at < this.ttlMs) {
      // Least recently used goes first: move the hit to the end.
      this.#entries.delete(key);
      this.#entries.set(key, hit);
      return hit.value;
    }
    const value = load();
    this.#entries.set(key, { at: Date.now(), value });
    value.catch(() => { if (this.#entries.get(key)?.value === value) this.#entries.delete(key); });
    while (this.#entries.size > this.max) this.#entries.delete(this.#entries.keys().next().value!);
    return value;
  }

  clear(): void {
    this.#entries.clear();
  }
}

/** The best passages for a question within the budget, numbered from 1. */
export async function retrieve(db: Db, question: string, options: RetrieveOptions, cache?: RetrievalCache): Promise<Source[]> {
  const words = keywordsOf(question);
  if (!words.length) return [];
  const lang = questionLang(question);
  if (cache) return cache.get(`${options.member ? 1 : 0}:${lang}:${options.tokenBudget}:${options.limit ?? 6}:${words.join(' ')}`, () => retrieve(db, question, options));
  const [docs, posts] = await Promise.all([docPassages(db, words, options.member, lang), forumPassages(db, words)]);
  // Docs first (they are the reference), then forum answers, interleaved by score.
  const all = [...docs, ...posts].sort((a, b) => b.score - a.score);
  const limit = options.limit ?? 6;
  const perPassage = Math.max(80, Math.floor(options.tokenBudget / Math.min(limit, Math.max(1, all.length))));
  const sources: Source[] = [];
  let used = 0;
  for (const p of all) {
    if (sources.length >= limit || used >= options.tokenBudget) break;
    if (sources.some((s) => s.url === p.url)) continue;
    const text = cut(p.text.replace(/\s+/g, ' ').trim(), Math.min(perPassage, options.tokenBudget - used));
    used += estimateTokens(text);
    sources.push({ n: sources.length + 1, kind: p.kind, title: p.title, heading: p.heading, url: p.url, text });
  }
  return sources;
}

/** The instructions that ground a generative model in the sources. */
export function groundingInstructions(sources: Source[], siteName: string, locale: 'zh-cn' | 'en'): string {
  const lang = locale === 'zh-cn' ? 'Answer in the language of the question (Chinese if unsure).' : 'Answer in the language of the question (English if unsure).';
  const head = `You are the assistant of ${siteName}, a community site. Answer from the numbered sources below when they help, `
    + 'and cite each fact you take from them as [n] right after it. If the sources do not cover the question, say so briefly, then answer from general knowledge without citations. '
    + `${lang} Use markdown.`;
  if (!sources.length) return `${head}\n\nNo sources matched this question.`;
  return `${head}\n\nSources:\n${sources.map((s) => `[${s.n}] ${s.title}${s.heading && s.heading !== s.title ? ` — ${s.heading}` : ''}\n${s.text}`).join('\n\n')}`;
}
