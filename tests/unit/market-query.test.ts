import { describe, expect, it } from 'vitest';
import {
  MARKET_MAX_PAGE, formatCount, formatSize, hasFilters, marketPath, marketSearch, parseMarketQuery, roundRating, sortsFor, tileHue, tileLetter,
  type MarketQuery,
} from '../../src/lib/shared/market-query';

const parse = (qs: string): MarketQuery => parseMarketQuery(new URLSearchParams(qs));

describe('parseMarketQuery', () => {
  it('gives the unfiltered newest-first first page for an empty URL', () => {
    expect(parse('')).toEqual({ q: '', category: '', tag: '', price: '', sort: 'newest', page: 1 });
  });

  it('sorts a search by relevance unless the URL names another sort', () => {
    expect(parse('q=editor').sort).toBe('relevance');
    expect(parse('q=editor&sort=rating').sort).toBe('rating');
  });

  it('falls back to newest for relevance without a search, and for unknown sorts', () => {
    expect(parse('sort=relevance').sort).toBe('newest');
    expect(parse('sort=cheapest').sort).toBe('newest');
    expect(parse('q=x&sort=bogus').sort).toBe('relevance');
  });

  it('keeps known categories and prices and drops the rest', () => {
    expect(parse('category=editor&price=free')).toMatchObject({ category: 'editor', price: 'free' });
    expect(parse('category=Editor&price=cheap')).toMatchObject({ category: '', price: '' });
    expect(parse('category=ai&price=paid')).toMatchObject({ category: 'ai', price: 'paid' });
  });

  it('trims the search and the tag, collapses whitespace, drops control characters and caps their length', () => {
    expect(parse('q=%20%20markdown%0A%20%20editor%09').q).toBe('markdown editor');
    expect(parse('tag=%20%E7%BC%96%E8%BE%91%E5%99%A8%20').tag).toBe('编辑器');
    expect(Array.from(parse(`q=${'数'.repeat(150)}`).q)).toHaveLength(100);
    expect(parse(`tag=${'a'.repeat(40)}`).tag).toHaveLength(30);
    expect(parse('q=%20%20').q).toBe('');
  });

  it('reads the page as a positive whole number, capped, and 1 otherwise', () => {
    expect(parse('page=3').page).toBe(3);
    for (const bad of ['0', '-2', '1.5', 'abc', '', '1e3x']) expect(parse(`page=${bad}`).page, bad).toBe(1);
    expect(parse('page=999999').page).toBe(MARKET_MAX_PAGE);
  });

  it('reads a plain object as well as URLSearchParams', () => {
    expect(parseMarketQuery({ q: 'ai', category: 'ai', page: '2' })).toMatchObject({ q: 'ai', category: 'ai', page: 2, sort: 'relevance' });
  });
});

describe('marketSearch and marketPath', () => {
  const base = parse('');

  it('writes nothing for the defaults', () => {
    expect(marketSearch(base)).toBe('');
    expect(marketPath(base)).toBe('/modules');
  });

  it('writes parameters in one order whatever order the URL had', () => {
    const a = parse('price=paid&tag=markdown&category=editor&sort=rating&q=md');
    const b = parse('q=md&sort=rating&category=editor&price=paid&tag=markdown');
    expect(marketSearch(a)).toBe(marketSearch(b));
    expect(marketSearch(a)).toBe('?q=md&category=editor&tag=markdown&price=paid&sort=rating');
  });

  it('goes back to page 1 when a filter changes, and keeps other filters', () => {
    const q = parse('category=editor&page=4');
    expect(marketSearch(q, { price: 'free' })).toBe('?category=editor&price=free');
    expect(marketSearch(q, { page: 5 })).toBe('?category=editor&page=5');
    expect(marketSearch(q, { page: 1 })).toBe('?category=editor');
  });

  it('removes a filter set to empty', () => {
    expect(marketSearch(parse('category=editor&tag=x'), { tag: '' })).toBe('?category=editor');
  });

  it('leaves the default sort out: relevance while searching, newest otherwise', () => {
    expect(marketSearch(parse('q=md'), { sort: 'relevance' })).toBe('?q=md');
    expect(marketSearch(parse('q=md'), { sort: 'newest' })).toBe('?q=md&sort=newest');
    expect(marketSearch(base, { sort: 'popular' })).toBe('?sort=popular');
  });

  it('drops relevance when the search is cleared', () => {
    expect(marketSearch(parse('q=md&category=ai'), { q: '' })).toBe('?category=ai');
    expect(marketSearch(parse('q=md&sort=price'), { q: '' })).toBe('?sort=price');
  });

  it('encodes what it writes', () => {
    expect(marketSearch(base, { tag: 'c++ & 数据' })).toBe('?tag=c%2B%2B+%26+%E6%95%B0%E6%8D%AE');
    expect(parse(marketSearch(base, { tag: 'c++ & 数据' }).slice(1)).tag).toBe('c++ & 数据');
  });
});

describe('helpers', () => {
  it('offers relevance only while searching', () => {
    expect(sortsFor('')).toEqual(['newest', 'popular', 'rating', 'price']);
    expect(sortsFor('x')[0]).toBe('relevance');
  });

  it('says whether the list is filtered beyond the search', () => {
    expect(hasFilters(parse('q=x'))).toBe(false);
    expect(hasFilters(parse('price=free'))).toBe(true);
    expect(hasFilters(parse('tag=a'))).toBe(true);
  });

  it('gives a module without a cover a stable hue and its first letter', () => {
    expect(tileHue('editor')).toBe(tileHue('editor'));
    expect(tileHue('editor')).not.toBe(tileHue('editors'));
    expect(tileHue('x')).toBeGreaterThanOrEqual(0);
    expect(tileHue('x')).toBeLessThan(360);
    expect(tileLetter(' atrium editor')).toBe('A');
    expect(tileLetter('编辑器')).toBe('编');
    expect(tileLetter('😀 smile')).toBe('😀');
    expect(tileLetter('')).toBe('?');
  });

  it('rounds ratings to a tenth within 0–5', () => {
    expect(roundRating(4.26)).toBe(4.3);
    expect(roundRating(0)).toBe(0);
    expect(roundRating(Number.NaN)).toBe(0);
    expect(roundRating(7)).toBe(5);
  });

  it('formats package sizes', () => {
    expect(formatSize(850)).toBe('850 B');
    expect(formatSize(12_595)).toBe('12.3 KB');
    expect(formatSize(4.5 * 1024 * 1024)).toBe('4.5 MB');
    expect(formatSize(300 * 1024 * 1024)).toBe('300 MB');
  });

  it('groups digits in counts', () => {
    expect(formatCount(1234567, 'en')).toBe('1,234,567');
    expect(formatCount(12345, 'zh-cn')).toBe('12,345');
    expect(formatCount(7, 'en')).toBe('7');
  });
});
