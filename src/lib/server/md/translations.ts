// One book, two translations: a book named `{name}-en` (language en) is the English translation of
// the book `{name}` (Chinese), like the guide this repository ships (`guide`, `guide-en`). A reader
// lands on the translation in their interface language and switches with the language switch.
import type { Locale } from '../../i18n';
import type { BookRow } from './books';

/** The name of the book's translation in `locale`, or null when the book is already in it (or has no translation by name). */
export function translationName(book: Pick<BookRow, 'name' | 'lang'>, locale: Locale): string | null {
  if (book.lang === locale) return null;
  if (locale === 'en' && !book.name.endsWith('-en')) return `${book.name}-en`;
  if (locale === 'zh-cn' && book.name.endsWith('-en')) return book.name.slice(0, -'-en'.length);
  return null;
}

/** The books a reader should see in their language: a book whose translation in it is listed drops out. */
export function inReaderLanguage<T extends Pick<BookRow, 'name' | 'lang'>>(books: T[], locale: Locale): T[] {
  const names = new Set(books.map((b) => b.name));
  return books.filter((b) => {
    const other = translationName(b, locale);
    return !(other && names.has(other) && books.find((x) => x.name === other)?.lang === locale);
  });
}
