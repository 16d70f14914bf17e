import { and, desc, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { mdBook, mdPage, mdSection } from '../db/schema';
import { bookTitle } from './books';
import { highlight, searchQuery, snippet, stripCalloutMarkers } from '../search/text';

export interface DocHit {
  book: string; bookTitle: string; page: string; pageTitle: string; anchor: string; heading: string;
  headingHtml: string; snippetHtml: string;
}

/**
 * Searches every section of every book the reader may see (members-only books only for members),
 * best match first; each hit names the page and the heading it sits under.
 */
export async function searchDocs(db: Db, keywords: string, member: boolean, page = 1, limit = 20, locale = 'zh-cn'): Promise<{ list: DocHit[]; total: number; terms: string[] }> {
  const parsed = searchQuery(keywords);
  if (!parsed) return { list: [], total: 0, terms: [] };
  const q = sql`${parsed.query}::tsquery`;
  // Archived books are out of search: read-only, reachable only by their address.
  const where = and(sql`${mdSection.searchVector} @@ ${q}`, eq(mdBook.archiveTime, 0), member ? undefined : eq(mdBook.visibility, 'public'));
  const from = db.select({
    book: mdBook.name, bookTitle: mdBook.title, bookTitleEn: mdBook.titleEn, page: mdPage.name, pageTitle: mdPage.title, anchor: mdSection.anchor,
    heading: mdSection.heading, text: mdSection.text,
  }).from(mdSection).innerJoin(mdPage, eq(mdPage.id, mdSection.pageId)).innerJoin(mdBook, eq(mdBook.id, mdSection.bookId));
  const [rows, [{ total } = { total: 0 }]] = await Promise.all([
    from.where(where).orderBy(desc(sql`ts_rank(${mdSection.searchVector}, ${q})`), mdSection.id).limit(limit).offset((page - 1) * limit),
    db.select({ total: sql<number>`count(*)::int` }).from(mdSection).innerJoin(mdBook, eq(mdBook.id, mdSection.bookId)).where(where),
  ]);
  return {
    total,
    terms: parsed.terms,
    list: rows.map((r) => ({
      book: r.book, bookTitle: bookTitle({ title: r.bookTitle, titleEn: r.bookTitleEn }, locale), page: r.page, pageTitle: r.pageTitle, anchor: r.anchor, heading: r.heading,
      headingHtml: highlight(r.heading, parsed.terms), snippetHtml: snippet(stripCalloutMarkers(r.text), parsed.terms),
    })),
  };
}
