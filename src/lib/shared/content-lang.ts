// The `lang` of text members wrote, where it plainly differs from the page's (WCAG 3.1.2): a
// Chinese title on an English page is read with a Chinese voice, an English one on a Chinese page
// with an English voice. Text in the page's language, or that cannot be told (numbers, names in
// Latin letters mixed with Chinese), gets no attribute and inherits the page's.
import type { Locale } from '../i18n/types';

const HAN = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]/;
/** A Latin-script word: two letters or more. */
const LATIN_WORD = /[A-Za-z]{2,}/;

export function contentLang(text: string | null | undefined, locale: Locale): Locale | undefined {
  if (!text) return undefined;
  const han = HAN.test(text);
  if (locale === 'en') return han ? 'zh-cn' : undefined;
  return !han && LATIN_WORD.test(text) ? 'en' : undefined;
}
