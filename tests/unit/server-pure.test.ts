import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { negotiateLocale, negotiateTheme, readCookie } from '../../src/lib/server/request-context';
import { pickEncoding } from '../../src/lib/server/compress';
import { parseSize } from '../../src/lib/server/site/config';
import { parseHeadNav } from '../../src/lib/server/site/chrome';
import { fieldErrors, apiLocale } from '../../src/lib/server/http';

describe('locale negotiation', () => {
  it('prefers the ba-lang cookie', () => {
    expect(negotiateLocale('a=1; ba-lang=en', 'zh-CN')).toBe('en');
    expect(negotiateLocale('ba-lang=zh-cn', 'en-US')).toBe('zh-cn');
  });
  it('falls back to Accept-Language by quality, then zh-cn', () => {
    expect(negotiateLocale(undefined, 'en-US,en;q=0.9')).toBe('en');
    expect(negotiateLocale(undefined, 'fr;q=1, zh-TW;q=0.8, en;q=0.5')).toBe('zh-cn');
    expect(negotiateLocale(undefined, 'fr, de')).toBe('zh-cn');
    expect(negotiateLocale('ba-lang=xx', undefined)).toBe('zh-cn');
    expect(negotiateLocale(undefined, 'en;q=0, zh;q=0.1')).toBe('zh-cn');
  });
  it('reads cookies and theme', () => {
    expect(readCookie('x=1; ba-is-dark=true', 'ba-is-dark')).toBe('true');
    expect(readCookie('x=%E0', 'x')).toBeUndefined();
    expect(negotiateTheme('ba-is-dark=true')).toBe('dark');
    expect(negotiateTheme('ba-is-dark=false')).toBe('light');
    expect(negotiateTheme('')).toBe('auto');
  });
  it('takes the API language from think-lang or ba-lang headers', () => {
    const h = (o: Record<string, string>) => (n: string) => o[n];
    expect(apiLocale(h({ 'think-lang': 'en' }), 'zh-cn')).toBe('en');
    expect(apiLocale(h({ 'ba-lang': 'en' }), 'zh-cn')).toBe('en');
    expect(apiLocale(h({ 'think-lang': 'fr' }), 'en')).toBe('en');
  });
});

describe('content encoding', () => {
  it('picks brotli, then gzip, honouring q=0', () => {
    expect(pickEncoding('gzip, deflate, br')).toBe('br');
    expect(pickEncoding('gzip')).toBe('gzip');
    expect(pickEncoding('br;q=0, gzip')).toBe('gzip');
    expect(pickEncoding('')).toBe('identity');
    expect(pickEncoding('br', ['gzip'])).toBe('identity');
  });
});

describe('site configuration', () => {
  it('parses sizes 1024-based', () => {
    expect(parseSize('10mb')).toBe(10 * 1024 * 1024);
    expect(parseSize('512KB')).toBe(512 * 1024);
    expect(parseSize('2048')).toBe(2048);
    expect(parseSize('lots')).toBe(0);
  });
  it('localises head navigation and survives bad JSON', () => {
    const host = { area: 'ask' as const, port: '', siteDomain: 'example.com' };
    const nav = parseHeadNav(JSON.stringify([{ title: { 'zh-cn': '文档', en: 'Docs' }, url: '/md' }, { title: 'Plain', url: '/ask' }]), 'en', host);
    expect(nav).toEqual([{ title: 'Docs', url: '/md', href: '//doc.example.com/' }, { title: 'Plain', url: '/ask', href: '/' }]);
    expect(parseHeadNav('{oops', 'en', host)).toEqual([]);
  });
});

describe('field errors', () => {
  const schema = z.object({ name: z.string().min(3).max(5), age: z.number().int(), kind: z.enum(['a', 'b']) }).strict();
  it('speaks the request language and names every field', () => {
    const r = schema.safeParse({ name: 'x', age: 'old', kind: 'c', extra: 1 });
    expect(r.success).toBe(false);
    if (r.success) return;
    expect(fieldErrors(r.error, 'en')).toEqual({
      name: 'At least 3 characters', age: 'Wrong type, expected number', kind: 'Must be one of: a, b', extra: 'Unknown field',
    });
    expect(fieldErrors(r.error, 'zh-cn').extra).toBe('不支持的字段');
  });
  it('says Required for a missing field', () => {
    const r = schema.safeParse({});
    if (r.success) throw new Error('expected failure');
    expect(fieldErrors(r.error, 'en').name).toBe('Required');
  });
});
