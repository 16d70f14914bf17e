import { describe, expect, it } from 'vitest';
import { contentLang } from '../../src/lib/shared/content-lang';

describe('contentLang: the lang of member text that differs from the page', () => {
  it('marks Chinese text on an English page', () => {
    expect(contentLang('数据库连接池配置', 'en')).toBe('zh-cn');
    expect(contentLang('PostgreSQL 连接池', 'en')).toBe('zh-cn');
  });
  it('marks English text on a Chinese page', () => {
    expect(contentLang('How do I move to PostgreSQL?', 'zh-cn')).toBe('en');
  });
  it('leaves text in the page language, or that cannot be told, alone', () => {
    expect(contentLang('How do I move to PostgreSQL?', 'en')).toBeUndefined();
    expect(contentLang('数据库连接池配置', 'zh-cn')).toBeUndefined();
    expect(contentLang('PostgreSQL 连接池', 'zh-cn')).toBeUndefined();
    expect(contentLang('2026 v1.0', 'zh-cn')).toBeUndefined();
    expect(contentLang('', 'en')).toBeUndefined();
    expect(contentLang(null, 'en')).toBeUndefined();
  });
});
