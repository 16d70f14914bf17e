// Grounding: what the site itself says about a question. Docs sections (members-only books only for
// members) and forum posts with their accepted answers, found with the site's own search, cut to a
// token budget and numbered for the model (and the site assistant) to cite as [1], [2], ….
import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { askPost, askReply, mdBook, mdPage, mdSection } from '../db/schema';
import { plainText, searchQuery, stemWord } from '../search/text';

export interface Source {
  /** 1-based: the model cites it as [n]. */
  n: number;
  kind: 'doc' | 'post' | 'answer';
  title: string;
  heading: string;
  /** App path with the anchor: `/md/book/page#heading` or `/ask/info/1#reply-2`. */
  url: string;
  /** The passage as plain text within the token budget: what the model reads. */
  text: string;
  /** The passage's markdown (code blocks, lists and tables intact): what the site assistant quotes. */
  markdown?: string;
}

export interface RetrieveOptions {
  /** Members see members-only books. */
  member: boolean;
  /** Rough token budget of all passages together (a token ≈ 4 Latin characters or 1.5 CJK). */
  tokenBudget: number;
  /** Most passages to keep. */
  limit?: number;
  /** The reader's interface language: it decides for a question written in neither language (`SITE_URL?`). */
  locale?: 'zh-cn' | 'en';
}

/**
 * The docs language a question reads best in: Chinese when it holds Han characters, English
 * otherwise. Books in that language come first; a book in the other language only fills in.
 */
export function questionLang(question: string): 'zh-cn' | 'en' {
  return /\p{Script=Han}/u.test(question) ? 'zh-cn' : 'en';
}

/**
 * The language to answer from: the question's own when it has Chinese or a few English words,
 * the reader's interface language when it is only names or numbers (`SITE_URL?`, `chat:add`).
 */
export function readerLang(question: string, locale?: 'zh-cn' | 'en'): 'zh-cn' | 'en' {
  if (!locale || /\p{Script=Han}/u.test(question) || /[a-z]{2,}[\s,.?!]+[a-z]{2,}/i.test(question.replace(/[\w-]*[_:/`][\w:/`-]*/g, ' '))) return questionLang(question);
  return locale;
}

// Words that carry no topic: asking words in both languages.
const STOP = new Set(('a an the and or but of to in on at for from by with into about how what why when where which who whom whose is are was were be been being do does did '
  + 'can could should would will shall may might must i me my we our you your it its this that these those there here please help want need get use using make '
  + 'not no yes if then than so as any some all more most other such only own same too very just also')
  .split(' '));
const CJK_STOP = new Set(['如何', '怎么', '怎样', '怎么样', '什么', '为什么', '哪里', '哪个', '哪些', '可以', '能否', '是否', '能不能', '请问', '一下', '一个', '怎么办', '我们', '你们', '他们', '这个', '那个', '这些', '那些', '的', '了', '吗', '呢', '吧', '啊', '把', '将', '到', '在', '和', '与', '或', '是', '有', '我', '你', '他', '她', '它', '要', '想', '能', '会', '用', '给', '让', '从', '对', '中', '上', '下', '里', '去', '来', '也', '都', '就', '还', '又', '很', '个', '该', '应该', '需要']);
// Never part of a word: particles, pronouns, modal verbs.
const PARTICLES = new Set(['的', '了', '吗', '呢', '吧', '啊', '能', '会', '要', '想', '我', '你', '他', '她', '它', '和', '与', '或', '也', '都', '就', '还', '又', '很', '个', '该', '是', '有']);
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
  const segs = [...SEGMENTER.segment(question.normalize('NFKC').toLowerCase())];
  const loneSingle = (i: number): boolean => {
    const s = segs[i];
    if (!s?.isWordLike || !CJK.test(s.segment) || CJK_STOP.has(s.segment) || Array.from(s.segment).length !== 1) return false;
    const next = segs[i + 1];
    return !(next?.isWordLike && CJK.test(next.segment) && !CJK_STOP.has(next.segment) && Array.from(next.segment).length === 1);
  };
  for (const [i, seg] of segs.entries()) {
    const w = seg.segment;
    if (seg.isWordLike && CJK.test(w) && !CJK_STOP.has(w)) { run.push(w); continue; }
    // A one-character stop word the segmenter cut off a word (上|传 → 上传) stays with it.
    if (seg.isWordLike && CJK_STOP.has(w) && Array.from(w).length === 1 && !PARTICLES.has(w) && loneSingle(i + 1)) { run.push(w); continue; }
    endRun();
    if (seg.isWordLike && !CJK.test(w) && !STOP.has(w) && w.length >= 2 && !words.includes(w)) words.push(w);
  }
  endRun();
  // Adjacent CJK words are often one term split apart (迁移 到 → 迁移): keep them as they are.
  return words.sort((a, b) => Array.from(b).length - Array.from(a).length).slice(0, 8);
}

/**
 * Which UTF-16 code units are CJK characters (by the CJK pattern), one byte each, made at first use
 * (~11 ms, once): a table walks a passage several times faster than the pattern's script classes,
 * which cost a question not in the retrieval cache ~0.8 ms for its 30 candidates. Characters
 * outside the BMP (surrogate pairs) are tested with the pattern.
 */
let cjkUnits: Uint8Array | null = null;

function cjkTable(): Uint8Array {
  if (cjkUnits) return cjkUnits;
  const table = new Uint8Array(0x10000);
  for (let unit = 0; unit < 0x10000; unit++) {
    if (unit >= 0xd800 && unit <= 0xdfff) continue;
    if (CJK.test(String.fromCharCode(unit))) table[unit] = 1;
  }
  return (cjkUnits = table);
}

/** CJK characters in a text (code points, as the pattern counts them). */
function cjkCount(text: string): number {
  const table = cjkTable();
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const low = text.charCodeAt(i + 1);
      if (low >= 0xdc00 && low <= 0xdfff) {
        if (CJK.test(text.slice(i, i + 2))) n++;
        i++;
        continue;
      }
    }
    n += table[unit]!;
  }
  return n;
}

/** Tokens a passage costs, roughly: CJK characters count more than Latin ones. */
export function estimateTokens(text: string): number {
  const cjk = cjkCount(text);
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

/**
 * A candidate passage. `markdown` is what a quote shows (code, lists and tables intact); `text` its
 * plain text, for matching and for the model.
 */
export interface Passage {
  kind: Source['kind']; title: string; heading: string; url: string; text: string; markdown: string;
  /** The page's opening section (its heading is the page title), not a section under a heading. */
  intro: boolean;
  /** Written in the question's language. */
  sameLang: boolean;
  /** PostgreSQL's ts_rank for docs (0 for forum passages, which are found by title). */
  rank: number;
  score: number;
}

/** How a text is compared with topic words: NFKC (full-width forms), lower case. */
const fold = (text: string): string => text.normalize('NFKC').toLowerCase();

/**
 * One topic word, compiled once per question: how much of it a folded text holds and how often.
 * A Latin word matches as a word with its stem and a short ending (upload → uploaded, stor →
 * storage), not any word it begins (post is not postgresql): the search index matches prefixes, a
 * passage's score should not. A CJK word matches whole, or in part by the share of its
 * two-character pieces found (the segmenter glues runs like 会员加 that only partly occur).
 */
interface WordMatcher {
  /** 0 to 1 (a Latin word is all or nothing). */
  holds(folded: string): number;
  occurrences(folded: string): number;
}

function wordMatcher(word: string): WordMatcher {
  if (CJK.test(word)) {
    const chars = Array.from(word);
    const pairs = chars.length < 3 ? [] : chars.slice(1).map((c, i) => chars[i]! + c);
    return {
      holds: (folded) => folded.includes(word) ? 1 : pairs.length ? pairs.filter((p) => folded.includes(p)).length / pairs.length : 0,
      occurrences: (folded) => folded.split(word).length - 1,
    };
  }
  const stem = stemWord(word).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const once = new RegExp(`(?<![a-z0-9])${stem}[a-z]{0,4}(?![a-z])`);
  const every = new RegExp(once.source, 'g');
  return {
    holds: (folded) => once.test(folded) ? 1 : 0,
    occurrences: (folded) => folded.match(every)?.length ?? 0,
  };
}

/** How much of a topic word a plain text holds, 0 to 1 (see wordMatcher). */
export function holds(text: string, word: string): number {
  return wordMatcher(word).holds(fold(text));
}

/** The share of a markdown passage's lines (outside code) that are table rows. */
export function tableShare(markdown: string): number {
  let rows = 0;
  let lines = 0;
  let fence: string | null = null;
  for (const line of markdown.split('\n')) {
    const f = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (f) {
      if (!fence) fence = f[1]![0]!;
      else if (f[1]![0] === fence) fence = null;
      lines++;
      continue;
    }
    if (fence || !line.trim()) continue;
    lines++;
    if (/^\s*\|/.test(line)) rows++;
  }
  return lines ? rows / lines : 0;
}

const HOW = /\b(how|steps?)\b|怎么|怎样|如何|步骤/i;
const PROCEDURE = /^\s{0,3}(`{3,}|~{3,}|\d+\.\s)/m;
/** BM25's term saturation and length normalisation, at its textbook values. */
const BM25_K1 = 1.2;
const BM25_B = 0.75;
/** One mention in a passage of average length weighs 1.1, as it did before length counted. */
const TEXT_SCALE = 1.1 * (1 + BM25_K1);

export interface Scored {
  kind: Source['kind']; title: string; heading: string; text: string; markdown: string; intro: boolean; sameLang: boolean; rank: number;
}

/**
 * How well each passage answers, from the topic words: a word in the section's heading counts
 * most, in the page or post title next, in the text least; rarer words (among the candidates)
 * weigh more, and a word in the text counts less the longer the passage is (BM25). An accepted
 * answer is a solved question's answer and counts a little more; a question without one is only
 * related, and the accepted answer of a question whose title says at least half of what the
 * reader asks leads. A passage that is mostly a table (a fragment of a reference list) counts less
 * than prose, and a "how" question prefers a passage with steps or a command; an accepted answer
 * comes before its own question. The passages in the question's language all come before those in
 * the other language.
 */
export function scorePassages(question: string, words: string[], passages: Scored[]): number[] {
  return explainPassages(question, words, passages).map((p) => p.score);
}

/** Each part of a passage's score (see scorePassages), for the ranking's tools and tests. */
export interface ScoreParts {
  /** Topic words in the text (by weight), in the heading, in the title, and the search rank's share. */
  text: number; heading: number; title: number; rank: number;
  /** Multipliers: an unsolved forum post, a table fragment. */
  post: number; table: number;
  /** Bonuses: steps or a command for a how question, a solved question that is the reader's own. */
  how: number; accepted: number;
  score: number;
}

export function explainPassages(question: string, words: string[], passages: Scored[]): ScoreParts[] {
  if (!words.length) return passages.map(() => ({ text: 0, heading: 0, title: 0, rank: 0, post: 1, table: 1, how: 0, accepted: 0, score: 0 }));
  // Each word compiled once, each passage folded once, each word looked for once in each field:
  // this runs for every question not cached.
  const matchers = words.map(wordMatcher);
  const folded = passages.map((p) => ({ text: fold(p.text), heading: fold(p.heading), title: fold(p.title) }));
  const held = matchers.map((m) => folded.map((f) => ({ text: m.holds(f.text), heading: m.holds(f.heading), title: m.holds(f.title) })));
  const df = held.map((row) => row.filter((h) => h.text > 0 || h.heading > 0 || h.title > 0).length);
  const weight = words.map((_, i) => 0.5 + Math.log(1 + (passages.length + 1) / (1 + df[i]!)));
  const total = weight.reduce((a, b) => a + b, 0) || 1;
  const how = HOW.test(question);
  const lengths = passages.map((p) => estimateTokens(p.text));
  const averageLength = lengths.reduce((a, b) => a + b, 0) / (lengths.length || 1) || 1;
  const parts = passages.map((p, at): ScoreParts => {
    // BM25's saturation and length normalisation (k1 1.2, b 0.75): a long section that mentions
    // everything once (a reference list, a hub of links) no longer beats the short one about it.
    const saturation = BM25_K1 * (1 - BM25_B + BM25_B * lengths[at]! / averageLength);
    let text = 0;
    let heading = 0;
    let title = 0;
    let titleWeight = 0;
    matchers.forEach((m, i) => {
      const h = held[i]![at]!;
      const tf = h.text >= 1 ? Math.max(1, m.occurrences(folded[at]!.text)) : h.text;
      text += weight[i]! * TEXT_SCALE * tf / (tf + saturation);
      if (p.kind === 'doc' && !p.intro) heading += h.heading;
      title += h.title;
      titleWeight += weight[i]! * h.title;
    });
    const part: ScoreParts = {
      text: text / total,
      // Forum titles are the question itself: they say most of all.
      heading: p.kind === 'doc' ? 1.5 * heading / words.length : 0,
      title: (p.kind === 'doc' ? 0.5 : 1.75) * title / words.length,
      rank: (p.rank / (p.rank + 0.2)) * 0.3,
      post: p.kind === 'post' ? 0.6 : 1,
      table: tableShare(p.markdown || p.text) > 0.5 ? 0.85 : 1,
      how: how && PROCEDURE.test(p.markdown) ? 0.25 : 0,
      // Accepted answers first: a solved question whose title says at least half of what the reader
      // asks (by the words' weight) is the reader's own question, and its accepted answer leads.
      accepted: p.kind === 'answer' && titleWeight >= 0.5 * total ? 1 : 0,
      score: 0,
    };
    const s = (part.text + part.heading + part.title + part.rank) * part.post * part.table + part.how + part.accepted;
    part.score = p.sameLang ? 10 + s : s;
    return part;
  });
  // A solved question's accepted answer comes before the question itself.
  passages.forEach((p, i) => {
    if (p.kind !== 'post') return;
    const answer = passages.findIndex((a) => a.kind === 'answer' && a.title === p.title);
    if (answer >= 0) parts[answer]!.score = Math.max(parts[answer]!.score, parts[i]!.score + 0.01);
  });
  return parts;
}

/** Strips a leading front matter block (`---` … `---`). */
const withoutFrontMatter = (md: string): string => md.replace(/^---\r?\n[\s\S]*?\r?\n---\r?\n/, '');

/**
 * The markdown of a page's `ordinal`-th section, as md/render.ts's sectionsOf splits it (at
 * headings outside code fences; 0 is the text before the first heading), without its heading
 * line. Null when the page has fewer sections.
 */
export function sectionMarkdown(markdown: string, ordinal: number): string | null {
  const chunks: string[][] = [[]];
  let fence: string | null = null;
  for (const line of withoutFrontMatter(markdown).split('\n')) {
    const f = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (f) {
      if (!fence) fence = f[1]![0]!;
      else if (f[1]![0] === fence) fence = null;
    }
    if (!fence && /^\s{0,3}#{1,6}\s+/.test(line)) {
      chunks.push([]);
      continue;
    }
    chunks.at(-1)!.push(line);
  }
  const chunk = chunks[ordinal];
  return chunk ? chunk.join('\n').trim() : null;
}

async function docPassages(db: Db, words: string[], member: boolean, lang: string): Promise<Passage[]> {
  const query = wordsQuery(words, '|');
  if (!query) return [];
  const q = sql`${query}::tsquery`;
  const rows = await db.select({
    book: mdBook.name, page: mdPage.name, pageId: mdPage.id, pageTitle: mdPage.title, anchor: mdSection.anchor, heading: mdSection.heading, text: mdSection.text,
    ordinal: sql<number>`(select count(*)::int from md_section s2 where s2.page_id = ${mdSection.pageId} and s2.id < ${mdSection.id})`,
    rank: sql<number>`ts_rank(${mdSection.searchVector}, ${q})`, sameLang: sql<boolean>`${mdBook.lang} = ${lang}`,
  }).from(mdSection).innerJoin(mdPage, eq(mdPage.id, mdSection.pageId)).innerJoin(mdBook, eq(mdBook.id, mdSection.bookId))
    .where(and(sql`${mdSection.searchVector} @@ ${q}`, eq(mdBook.archiveTime, 0), member ? undefined : eq(mdBook.visibility, 'public')))
    .orderBy(desc(sql`${mdBook.lang} = ${lang}`), desc(sql`ts_rank(${mdSection.searchVector}, ${q})`), mdSection.id).limit(30);
  const found = rows.filter((r) => r.text.trim());
  // The sections' markdown, split from their pages (one query): tables and code are told apart
  // from prose by it, and the site assistant quotes it.
  const ids = [...new Set(found.map((r) => r.pageId))];
  const pages = ids.length ? await db.select({ id: mdPage.id, content: mdPage.content }).from(mdPage).where(inArray(mdPage.id, ids)) : [];
  const content = new Map(pages.map((p) => [p.id, p.content]));
  return found.map((r) => ({
    kind: 'doc', title: r.pageTitle, heading: r.heading, url: `/md/${r.book}/${r.page}${r.anchor ? `#${encodeURIComponent(r.anchor)}` : ''}`,
    text: r.text, markdown: sectionOf(content.get(r.pageId) ?? '', Number(r.ordinal), r.text), intro: !r.anchor, sameLang: !!r.sameLang, rank: Number(r.rank), score: 0,
  }));
}

/**
 * A section's markdown from its page; the plain text when the split does not hold the indexed
 * text's start (a page edited in between).
 */
function sectionOf(page: string, ordinal: number, text: string): string {
  const md = sectionMarkdown(page, ordinal);
  return md && plainText(md).startsWith(Array.from(text).slice(0, 12).join('')) ? md : text;
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
async function forumPassages(db: Db, words: string[], lang: string): Promise<Passage[]> {
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
  for (const p of found) {
    const sameLang = questionLang(p.title) === lang;
    if (p.answerId && p.answer) out.push({ kind: 'answer', title: p.title, heading: '', url: `/ask/info/${p.id}#reply-${p.answerId}`, text: plainText(p.answer), markdown: p.answer, intro: false, sameLang, rank: 0, score: 0 });
    out.push({ kind: 'post', title: p.title, heading: '', url: `/ask/info/${p.id}`, text: plainText(p.body), markdown: p.body, intro: false, sameLang, rank: 0, score: 0 });
  }
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

/** Every candidate passage for a question's topic words, best first. */
export async function candidates(db: Db, question: string, words: string[], lang: 'zh-cn' | 'en', member: boolean): Promise<Passage[]> {
  const [docs, posts] = await Promise.all([docPassages(db, words, member, lang), forumPassages(db, words, lang)]);
  const all = [...docs, ...posts];
  scorePassages(question, words, all).forEach((score, i) => { all[i]!.score = score; });
  return all.sort((a, b) => b.score - a.score);
}

/** The best passages for a question within the budget, numbered from 1. */
export async function retrieve(db: Db, question: string, options: RetrieveOptions, cache?: RetrievalCache): Promise<Source[]> {
  const words = keywordsOf(question);
  if (!words.length) return [];
  const lang = readerLang(question, options.locale);
  if (cache) return cache.get(`${options.member ? 1 : 0}:${lang}:${HOW.test(question) ? 'how' : ''}:${options.tokenBudget}:${options.limit ?? 6}:${words.join(' ')}`, () => retrieve(db, question, options));
  const all = await candidates(db, question, words, lang, options.member);
  const limit = options.limit ?? 6;
  const perPassage = Math.max(80, Math.floor(options.tokenBudget / Math.min(limit, Math.max(1, all.length))));
  const chosen: Passage[] = [];
  const texts: string[] = [];
  let used = 0;
  for (const p of all) {
    if (chosen.length >= limit || used >= options.tokenBudget) break;
    if (chosen.some((s) => s.url === p.url)) continue;
    const text = cut(p.text.replace(/\s+/g, ' ').trim(), Math.min(perPassage, options.tokenBudget - used));
    used += estimateTokens(text);
    chosen.push(p);
    texts.push(text);
  }
  const sources: Source[] = chosen.map((p, i) => ({ n: i + 1, kind: p.kind, title: p.title, heading: p.heading, url: p.url, text: texts[i]!, markdown: p.markdown.slice(0, 6000) }));
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
