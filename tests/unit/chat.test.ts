// The chat's pure pieces: topic words, citation links, the branch tree, the quota day, prices,
// provider failures and the site assistant's answer.
import { describe, expect, it } from 'vitest';
import { APICallError } from 'ai';
import { keywordsOf, estimateTokens } from '../../src/lib/server/chat/retrieve';
import { linkCitations } from '../../src/lib/shared/chat';
import { mergeBranch, newestLeaf, pathTo, siblingsOf, type Tree } from '../../src/islands/chat/tree';
import { dayBounds, holdFor, replyBudget, replyCost } from '../../src/lib/server/chat/quota';
import { failureOf } from '../../src/lib/server/chat/provider';
import { assistantAnswer, pieces } from '../../src/lib/server/chat/assistant';
import { mayUse } from '../../src/lib/server/chat/models';
import { renderMarkdown } from '../../src/lib/markdown/render';
import { expandFraming, frameLine, type Translate } from '../../src/lib/shared/chat-frame';
import { translator } from '../../src/lib/i18n';

describe('keywordsOf', () => {
  it('keeps the topic words of a question in either language', () => {
    expect(keywordsOf('How do I move Atrium to PostgreSQL?')).toEqual(['postgresql', 'atrium', 'move']);
    const zh = keywordsOf('如何把站点迁移到 PostgreSQL 数据库？');
    expect(zh).toContain('postgresql');
    expect(zh).toContain('迁移');
    expect(zh).not.toContain('如何');
  });
  it('glues a lone CJK character to the word beside it instead of dropping it', () => {
    expect(keywordsOf('缓存')).toEqual(['缓存']);
    expect(keywordsOf('数据库连接池')).toEqual(expect.arrayContaining(['数据库']));
    expect(keywordsOf('怎么避免死锁？')).toContain('死锁');
    expect(keywordsOf('的')).toEqual([]);
  });
  it('counts CJK text as more tokens than Latin text of the same length', () => {
    expect(estimateTokens('数据库迁移')).toBeGreaterThan(estimateTokens('abcde'));
  });
  it('counts CJK characters as the script pattern does: kana and hangul too, a character outside the BMP once, a lone surrogate as Latin', () => {
    const cjk = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Hangul}]/gu;
    const reference = (text: string): number => {
      const n = text.match(cjk)?.length ?? 0;
      return Math.ceil(n / 1.5 + (text.length - n) / 4);
    };
    const samples = ['', 'plain words', '上传的文件存在哪里？', 'ひらがな カタカナ 한국어', '𠀀𠀁 ext-B 𪚥, emoji 😀', 'a\ud800b lone \udc00 surrogates', '〆々〇 ⺀ 豈 ㄅ'];
    for (let cp = 0; cp < 0x110000; cp += 251) if (cp < 0xd800 || cp > 0xdfff) samples.push(`x${String.fromCodePoint(cp)}y`);
    for (const text of samples) expect(estimateTokens(text), JSON.stringify(text)).toBe(reference(text));
    expect(estimateTokens('上传的文件')).toBe(4);
  });
});

describe('linkCitations', () => {
  const sources = [{ n: 1, url: '/md/guide/install#postgresql', title: 'Install', heading: 'PostgreSQL' }];
  it('links known citations outside code and leaves the rest', () => {
    const text = 'Set DATABASE_URL [1]. Unknown [2].\n```\narr[1]\n```\n[1](http://x) stays';
    const html = renderMarkdown(linkCitations(text, sources)).html;
    expect(html).toContain('<a href="/md/guide/install#postgresql" title="Install › PostgreSQL">[1]</a>');
    expect(html).toContain('Unknown [2]');
    expect(html).toContain('arr[1]');
    expect(html).toMatch(/<a href="http:\/\/x"[^>]*>1<\/a> stays/);
  });
  it('cannot be turned into script by a source title or text', () => {
    const html = renderMarkdown(linkCitations('x [1] <script>alert(1)</script>', [{ n: 1, url: 'javascript:alert(1)', title: '"><img src=x onerror=alert(1)>', heading: '' }])).html;
    expect(html).not.toContain('<script');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('href="javascript:');
  });
});

describe('the branch tree', () => {
  it('keeps an edited question and a regenerated answer beside the originals', () => {
    let tree: Tree = new Map();
    tree = mergeBranch(tree, [{ id: 'q1', role: 'user', text: 'a' }, { id: 'a1', role: 'assistant', text: 'x' }]);
    tree = mergeBranch(tree, [{ id: 'q1', role: 'user', text: 'a' }, { id: 'a2', role: 'assistant', text: 'y' }]);
    tree = mergeBranch(tree, [{ id: 'q2', role: 'user', text: 'b' }, { id: 'a3', role: 'assistant', text: 'z' }]);
    expect(siblingsOf(tree, tree.get('a2')!).map((n) => n.id)).toEqual(['a1', 'a2']);
    expect(siblingsOf(tree, tree.get('q2')!).map((n) => n.id)).toEqual(['q1', 'q2']);
    expect(newestLeaf(tree, 'q1')).toBe('a2');
    expect(pathTo(tree, 'a2').map((n) => n.id)).toEqual(['q1', 'a2']);
  });
});

describe('quotas', () => {
  it('knows when the day starts and ends in the site time zone', () => {
    const noonShanghai = Date.UTC(2026, 0, 15, 4, 0, 0); // 12:00 in UTC+8
    const { start, end } = dayBounds('Asia/Shanghai', noonShanghai);
    expect(new Date(start * 1000).toISOString()).toBe('2026-01-14T16:00:00.000Z');
    expect(end - start).toBe(86_400);
    expect(new Date(dayBounds('UTC', noonShanghai).start * 1000).toISOString()).toBe('2026-01-15T00:00:00.000Z');
  });
  it('prices a reply per message and per 1,000 tokens, rounding up', () => {
    expect(replyCost({ pricePer1k: 2, pricePerMessage: 1 }, 1200, 300)).toBe(1 + 3);
    expect(replyCost({ pricePer1k: 0, pricePerMessage: 0 }, 5000, 5000)).toBe(0);
  });
  it('holds the price of a reply, or what the prompt and the longest reply cost per 1,000 tokens', () => {
    expect(replyBudget({ contextWindow: 8192 })).toBe(2048);
    expect(replyBudget({ contextWindow: 4000 })).toBe(1000);
    expect(holdFor({ pricePer1k: 0, pricePerMessage: 10, contextWindow: 8192 }, 500)).toBe(10);
    expect(holdFor({ pricePer1k: 2, pricePerMessage: 0, contextWindow: 8192 }, 952)).toBe(6);
    expect(holdFor({ pricePer1k: 2, pricePerMessage: 1, contextWindow: 4000 }, 1000)).toBe(1 + 4);
    expect(holdFor({ pricePer1k: 0, pricePerMessage: 0, contextWindow: 8192 }, 5000)).toBe(0);
  });
  it('lets visitors use only what is open to visitors, and groups only their members', () => {
    expect(mayUse({ audience: 'members', groups: '' }, { userId: 0, groupId: 0 })).toBe(false);
    expect(mayUse({ audience: 'visitors', groups: '' }, { userId: 0, groupId: 0 })).toBe(true);
    expect(mayUse({ audience: 'groups', groups: '2,3' }, { userId: 5, groupId: 3 })).toBe(true);
    expect(mayUse({ audience: 'groups', groups: '2,3' }, { userId: 5, groupId: 1 })).toBe(false);
  });
});

describe('failureOf', () => {
  const apiError = (statusCode: number, responseBody = ''): APICallError => new APICallError({ message: 'x', url: 'u', requestBodyValues: {}, statusCode, responseBody });
  it('names each provider failure', () => {
    expect(failureOf(apiError(401), false)).toBe('auth');
    expect(failureOf(apiError(429), false)).toBe('rateLimit');
    expect(failureOf(apiError(400, 'maximum context length is 8192 tokens'), false)).toBe('context');
    expect(failureOf(apiError(500), false)).toBe('server');
    expect(failureOf(apiError(200), false)).toBe('cut');
    expect(failureOf(new TypeError('fetch failed'), false)).toBe('unreachable');
    expect(failureOf(null, true)).toBe('timeout');
  });
});

describe('the site assistant', () => {
  it('labels itself, quotes with citations, and offers the forum when nothing is found', () => {
    const answer = assistantAnswer('backup', [
      { n: 1, kind: 'doc', title: 'Guide', heading: 'Backups', url: '/md/guide/ops#backups', text: 'Copy the data directory while the server is stopped. Then restart.' },
      { n: 2, kind: 'post', title: 'How to back up?', heading: '', url: '/ask/info/3', text: 'question' },
    ], 'en', '/ask/post?title=backup');
    // The framing is markers, in the reader's words when shown (chat-frame.test.ts).
    expect(answer).toContain(frameLine('label'));
    expect(expandFraming(answer, translator('en', 'chat') as Translate)).toContain('not written by an AI model');
    expect(answer).toContain('Copy the data directory while the server is stopped. [1]');
    expect(answer).toContain('- [How to back up?](/ask/info/3) [2]');
    const none = assistantAnswer('zzz', [], 'zh-cn', '/ask/post?title=zzz');
    expect(expandFraming(none, translator('zh-cn', 'chat') as Translate)).toContain('[到社区提问](/ask/post?title=zzz)');
    expect([...pieces('数据库迁移 to PostgreSQL')].join('')).toBe('数据库迁移 to PostgreSQL');
  });
});

describe('RetrievalCache', () => {
  it('answers a repeated question from memory, forgets the oldest beyond its size, and clears', async () => {
    const { RetrievalCache } = await import('../../src/lib/server/chat/retrieve');
    const cache = new RetrievalCache(2);
    let loads = 0;
    const load = async () => { loads++; return []; };
    await cache.get('a', load);
    await cache.get('a', load);
    expect(loads).toBe(1);
    await cache.get('b', load);
    await cache.get('c', load);
    await cache.get('a', load);
    expect(loads).toBe(4);
    cache.clear();
    await cache.get('c', load);
    expect(loads).toBe(5);
  });
});

describe('questionLang', () => {
  it('reads Chinese from Han characters, English otherwise', async () => {
    const { questionLang } = await import('../../src/lib/server/chat/retrieve');
    expect(questionLang('如何迁移到 PostgreSQL？')).toBe('zh-cn');
    expect(questionLang('How do I move Atrium to PostgreSQL?')).toBe('en');
    expect(questionLang('PostgreSQL 连接池')).toBe('zh-cn');
    expect(questionLang('1234 ???')).toBe('en');
  });
});
