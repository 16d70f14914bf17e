import { describe, expect, it } from 'vitest';
import { DICTIONARIES, LOCALES, translator, interpolate } from '../../src/lib/i18n';
import zhClient from '../../src/lib/i18n/zh-cn/client';
import enClient from '../../src/lib/i18n/en/client';
import { describeMessage } from '../../src/lib/server/messages/inbox';

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

describe('counts in English', () => {
  // Placeholders that hold words, not numbers ("{category} modules").
  const WORDS = new Set(['category', 'name', 'date', 'code', 'resets', 'title', 'url', 'field', 'time']);
  it('never read "1 attempts": every number placeholder before a noun picks its plural form', () => {
    const offenders: string[] = [];
    const groups = { ...DICTIONARIES.en, client: enClient } as Record<string, Record<string, string>>;
    for (const [group, dict] of Object.entries(groups)) {
      for (const [key, template] of Object.entries(dict)) {
        const names = [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
        const text = interpolate(template, Object.fromEntries(names.map((n) => [n, WORDS.has(n) ? 'X' : 1])));
        // "1 members", "1 unread messages", "1 minutes": a one followed by a word ending in s.
        const hit = /(?:^|[^\w.,¥%])1 (?:[a-z]+ )?[a-z]*[^s\W]s\b/.exec(text);
        if (hit && !/1 (?:of|is|was|has|ms)\b/.test(hit[0])) offenders.push(`${group}:${key} → ${text}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('names the latest liker once and counts the others', () => {
    const like = (groupCount: number, summary = 'like_reply') => ({ type: 'ask_vote', groupCount, summary });
    expect(describeMessage('en', like(1))).toBe('liked your answer');
    expect(describeMessage('en', like(2, 'like_post'))).toBe('and 1 other liked your post');
    expect(describeMessage('en', like(3))).toBe('and 2 others liked your answer');
    expect(describeMessage('zh-cn', like(1, 'like_post'))).toBe('赞了你的帖子');
    expect(describeMessage('zh-cn', like(3))).toBe('等 3 位会员赞了你的回答');
    expect(describeMessage('en', like(1), false)).toBe('1 member liked your answer');
    expect(describeMessage('en', like(4), false)).toBe('4 members liked your answer');
  });
});
