import { describe, expect, it } from 'vitest';
import { DICTIONARIES, LOCALES, translator, interpolate } from '../../src/lib/i18n';
import zhClient from '../../src/lib/i18n/zh-cn/client';
import enClient from '../../src/lib/i18n/en/client';

describe('dictionaries', () => {
  it('every group has the same keys in every locale', () => {
    const [first, ...rest] = LOCALES;
    for (const group of Object.keys(DICTIONARIES[first]) as (keyof (typeof DICTIONARIES)['zh-cn'])[]) {
      const reference = Object.keys(DICTIONARIES[first][group]).sort();
      for (const locale of rest) {
        expect(Object.keys(DICTIONARIES[locale][group]).sort(), `${locale}/${group}`).toEqual(reference);
      }
    }
    expect(Object.keys(enClient).sort()).toEqual(Object.keys(zhClient).sort());
  });

  it('no message is empty', () => {
    for (const locale of LOCALES) {
      for (const [group, messages] of Object.entries(DICTIONARIES[locale])) {
        for (const [key, value] of Object.entries(messages)) expect(value.trim(), `${locale}/${group}/${key}`).not.toBe('');
      }
    }
  });

  it('translates with the page group and falls back to common', () => {
    const t = translator('en', 'ask');
    expect(t('ask.empty')).toBe('No posts yet');
    expect(t('nav.home')).toBe('Home');
    expect(translator('zh-cn', 'ask')('ask.empty')).toBe('还没有帖子');
  });

  it('fills placeholders and leaves unknown ones', () => {
    expect(interpolate('Page Not Found: {path}', { path: '/x' })).toBe('Page Not Found: /x');
    expect(interpolate('{a} {b}', { a: 1 })).toBe('1 {b}');
  });
});

describe('English plural forms', () => {
  it('picks one or other with Intl.PluralRules, numbers formatted or not', async () => {
    const { interpolate, translator } = await import('../../src/lib/i18n');
    const t = translator('en', 'ask');
    expect(t('ask.meta.replies', { count: 1 })).toBe('1 reply');
    expect(t('ask.meta.replies', { count: 0 })).toBe('0 replies');
    expect(t('ask.meta.views', { count: 1 })).toBe('1 view');
    expect(t('ask.meta.views', { count: '1,234' })).toBe('1,234 views');
    expect(interpolate('{n} {n|star|stars}', { n: '10,000+' })).toBe('10,000+ stars');
    expect(interpolate('{n|a|b}', {})).toBe('{n|a|b}');
    expect(translator('zh-cn', 'ask')('ask.meta.replies', { count: 1 })).toBe('1 回复');
  });
});
