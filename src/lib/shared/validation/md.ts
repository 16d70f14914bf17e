// Docs input, shared by the API and the editor. Messages are keys of the `validation` and `md` groups.
import { z } from 'zod';
import { INT_MAX } from './common';

export const MAX_PAGE = 200_000;
const book = z.string().trim().min(1).max(100);
const name = z.string().trim().min(1, { error: 'md.pageName' }).max(100, { error: 'md.pageName' });
const title = z.string({ error: 'md.pageTitle' }).trim().min(1, { error: 'md.pageTitle' }).max(150, { error: 'md.pageTitle' });

export const BookInput = z.object({ book });
export const PageRef = z.object({ book, name });
export const SaveInput = z.object({
  book, name, title,
  content: z.string().max(MAX_PAGE, { error: 'validation.bodyTooLong' }),
  base_revision: z.coerce.number().int().min(0).max(INT_MAX),
  message: z.string().trim().max(200).default(''),
}).strict();
export const CreateInput = z.object({ book, name, title, parent: z.string().trim().max(100).default('') }).strict();
export const RenameInput = z.object({ book, name, new_name: name }).strict();
export const MoveInput = z.object({ book, name, direction: z.enum(['up', 'down']).optional(), parent: z.string().trim().max(100).nullable().optional() }).strict()
  .refine((v) => v.direction !== undefined || v.parent !== undefined, { error: 'validation.required', path: ['direction'] });
export const RevisionInput = z.object({ book, name, ids: z.string().regex(/^\d{1,10}(,\d{1,10})?$/).refine((v) => v.split(',').every((n) => Number(n) <= INT_MAX)) });
export const RestoreInput = z.object({ book, name, revision_id: z.coerce.number().int().positive().max(INT_MAX) }).strict();
export const DocSearchInput = z.object({ q: z.string().trim().max(100).default(''), page: z.coerce.number().int().min(1).max(100).default(1) });

// Books: created, set up, archived and deleted from /md/edit and the console's books section (and
// the CLI's md:book checks its name with the same rule).
/** A book's URL name: letters, digits, `.`, `_`, `-`, starting with a letter or digit. */
export const BOOK_NAME = /^[A-Za-z0-9][\w.-]{0,99}$/;
export const bookName = z.string({ error: 'md.books.name' }).trim().regex(BOOK_NAME, { error: 'md.books.name' });
const bookTitle = z.string({ error: 'md.books.title' }).trim().min(1, { error: 'md.books.title' }).max(120, { error: 'md.books.title' });
const bookTitleEn = z.string().trim().max(120, { error: 'md.books.titleEn' });
const bookDescription = z.string().trim().max(500, { error: 'md.books.description' });
const account = z.string().trim().max(100, { error: 'md.books.account' });
const visibility = z.enum(['public', 'members'], { error: 'md.books.visibility' });
const lang = z.enum(['zh-cn', 'en'], { error: 'md.books.lang' });

export const BookCreateInput = z.object({
  name: bookName, title: bookTitle, title_en: bookTitleEn.default(''), description: bookDescription.default(''),
  lang: lang.default('zh-cn'), visibility: visibility.default('public'), owner: account.default(''),
}).strict();
/** Settings of a book: only the fields given change; `editor` adds an editor by account. */
export const BookSettingsInput = z.object({
  name: bookName, title: bookTitle.optional(), title_en: bookTitleEn.optional(), description: bookDescription.optional(),
  lang: lang.optional(), visibility: visibility.optional(), owner: account.default(''), editor: account.default(''),
}).strict();
export const BookEditorInput = z.object({ name: bookName, user_id: z.coerce.number().int().min(1).max(INT_MAX) }).strict();
export const BookArchiveInput = z.object({ name: bookName, archive: z.coerce.number().int().min(0).max(1) }).strict();
/** Deleting asks for the book's name typed again: pages and history go with it. */
export const BookDeleteInput = z.object({ name: bookName, confirm: z.string().trim().max(100).default('') }).strict()
  .refine((v) => v.confirm.toLowerCase() === v.name.toLowerCase(), { error: 'md.books.confirmName', path: ['confirm'] });
