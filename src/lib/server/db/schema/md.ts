import { sql } from 'drizzle-orm';
import { bigint, check, customType, index, integer, jsonb, pgTable, primaryKey, serial, text, uniqueIndex, varchar } from 'drizzle-orm/pg-core';

const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });

/**
 * A book: `name` is its URL slug; members-only books are invisible to visitors everywhere. `title`
 * is the Chinese title, `titleEn` the English one (empty: the Chinese one everywhere). An archived
 * book (`archiveTime` > 0) is read-only and missing from the index, search and the sitemap.
 */
export const mdBook = pgTable('md_book', {
  id: serial('id').primaryKey(),
  name: varchar('name', { length: 100 }).notNull(),
  title: varchar('title', { length: 120 }).notNull(),
  titleEn: varchar('title_en', { length: 120 }).notNull().default(''),
  description: varchar('description', { length: 500 }).notNull().default(''),
  cover: varchar('cover', { length: 255 }).notNull().default(''),
  lang: varchar('lang', { length: 10 }).notNull().default('zh-cn'),
  visibility: varchar('visibility', { length: 10 }).notNull().default('public'),
  ownerId: integer('owner_id').notNull().default(0),
  weigh: integer('weigh').notNull().default(0),
  pageCount: integer('page_count').notNull().default(0),
  archiveTime: bigint('archive_time', { mode: 'number' }).notNull().default(0),
  createTime: bigint('create_time', { mode: 'number' }).notNull(),
  updateTime: bigint('update_time', { mode: 'number' }).notNull(),
}, (t) => [
  uniqueIndex('md_book_name_uq').on(sql`lower(${t.name})`),
  check('md_book_visibility_chk', sql`${t.visibility} in ('public','members')`),
]);

/** Members who may edit a book besides its owner and the administrators. */
export const mdBookEditor = pgTable('md_book_editor', {
  bookId: integer('book_id').notNull(),
  userId: integer('user_id').notNull(),
}, (t) => [primaryKey({ columns: [t.bookId, t.userId] })]);

export interface MdHeading { level: number; text: string; id: string }

/** A page of a book, in a tree (`parentId` 0 = top level, siblings by `weigh` ascending). */
export const mdPage = pgTable('md_page', {
  id: serial('id').primaryKey(),
  bookId: integer('book_id').notNull(),
  name: varchar('name', { length: 100 }).notNull(),
  title: varchar('title', { length: 150 }).notNull(),
  parentId: integer('parent_id').notNull().default(0),
  weigh: integer('weigh').notNull().default(0),
  content: text('content').notNull().default(''),
  /** Rendered once per revision: readers never pay for markdown. */
  html: text('html').notNull().default(''),
  /** The modules' markdown (uid@version, sorted) `html` was rendered with; re-rendered when the site's set differs. */
  renderSet: varchar('render_set', { length: 400 }).notNull().default(''),
  headings: jsonb('headings').$type<MdHeading[]>().notNull().default([]),
  revisionId: integer('revision_id').notNull().default(0),
  updatedBy: integer('updated_by').notNull().default(0),
  createTime: bigint('create_time', { mode: 'number' }).notNull(),
  updateTime: bigint('update_time', { mode: 'number' }).notNull(),
}, (t) => [
  uniqueIndex('md_page_name_uq').on(t.bookId, t.name),
  index('md_page_tree_idx').on(t.bookId, t.parentId, t.weigh),
]);

/** Every saved version of a page: full content, author, message. Restoring adds a new one. */
export const mdRevision = pgTable('md_revision', {
  id: serial('id').primaryKey(),
  pageId: integer('page_id').notNull(),
  bookId: integer('book_id').notNull(),
  title: varchar('title', { length: 150 }).notNull(),
  content: text('content').notNull(),
  message: varchar('message', { length: 200 }).notNull().default(''),
  authorId: integer('author_id').notNull().default(0),
  createTime: bigint('create_time', { mode: 'number' }).notNull(),
}, (t) => [index('md_revision_page_idx').on(t.pageId, t.id)]);

/** Old page names that still lead somewhere after a rename. */
export const mdRedirect = pgTable('md_redirect', {
  bookId: integer('book_id').notNull(),
  name: varchar('name', { length: 100 }).notNull(),
  pageId: integer('page_id').notNull(),
}, (t) => [primaryKey({ columns: [t.bookId, t.name] })]);

/** Search documents: one per page section (the text under a heading), so a hit links to `page#heading`. */
export const mdSection = pgTable('md_section', {
  id: serial('id').primaryKey(),
  pageId: integer('page_id').notNull(),
  bookId: integer('book_id').notNull(),
  anchor: varchar('anchor', { length: 200 }).notNull().default(''),
  heading: varchar('heading', { length: 300 }).notNull().default(''),
  text: text('text').notNull().default(''),
  searchVector: tsvector('search_vector').notNull(),
}, (t) => [
  index('md_section_page_idx').on(t.pageId),
  index('md_section_search_idx').using('gin', t.searchVector),
]);
