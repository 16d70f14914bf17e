import { describe, expect, it } from 'vitest';
import {
  chunkUrls, escapeXml, MAX_SITEMAP_URLS, rfc822Date, robotsTxt, rssFeed, sitemapIndexXml, sitemapXml, w3cDate, type FeedItem,
} from '../../src/lib/server/seo/feeds';
import {
  absoluteUrl, canonicalHref, listSource, parseSitemapFile, publicOrigin, siteSitemap, siteSitemapFile, withoutTracking,
  type PublicOrigin, type SitemapEntry,
} from '../../src/lib/server/seo/sitemap';
import type { Db } from '../../src/lib/server/db/client';
import type { HostContext } from '../../src/lib/shared/hosts';
import { matchRoute } from '../../src/lib/shared/routes';

// ---------------------------------------------------------------------------------------------
// A small XML 1.0 reader: enough to prove a document is well-formed (one root, nested and matching
// tags, quoted unique attributes, known entities, only XML characters, nothing but space outside the
// root) and to read text back, so a test sees what a feed reader would see.

interface XmlElement { name: string; attrs: Record<string, string>; children: XmlElement[]; text: string }

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
const NAME_START = /[A-Za-z_:]/;
const NAME_CHAR = /[\w.:-]/;

function isXmlChar(cp: number): boolean {
  return cp === 0x9 || cp === 0xa || cp === 0xd || (cp >= 0x20 && cp <= 0xd7ff) || (cp >= 0xe000 && cp <= 0xfffd) || (cp >= 0x10000 && cp <= 0x10ffff);
}

function parseXml(xml: string): XmlElement {
  for (const ch of xml) {
    const cp = ch.codePointAt(0)!;
    if (!isXmlChar(cp)) throw new Error(`character U+${cp.toString(16)} is not allowed in XML`);
  }
  let i = 0;
  function fail(why: string): never { throw new Error(`${why} at ${i}: ${JSON.stringify(xml.slice(i, i + 40))}`); }
  const decode = (raw: string): string => {
    let out = '';
    for (let j = 0; j < raw.length; j++) {
      const c = raw[j]!;
      if (c === '<') fail('raw < in text');
      if (c !== '&') { out += c; continue; }
      const end = raw.indexOf(';', j);
      if (end < 0) fail('unterminated entity');
      const name = raw.slice(j + 1, end);
      if (name in ENTITIES) out += ENTITIES[name];
      else if (/^#\d+$/.test(name)) out += String.fromCodePoint(Number(name.slice(1)));
      else if (/^#x[0-9a-f]+$/i.test(name)) out += String.fromCodePoint(parseInt(name.slice(2), 16));
      else fail(`unknown entity &${name};`);
      j = end;
    }
    return out;
  };
  const readName = (): string => {
    const start = i;
    if (!NAME_START.test(xml[i] ?? '')) fail('expected a name');
    while (i < xml.length && NAME_CHAR.test(xml[i]!)) i++;
    return xml.slice(start, i);
  };
  const skipSpace = (): void => { while (/\s/.test(xml[i] ?? '')) i++; };

  if (xml.startsWith('<?xml')) {
    i = xml.indexOf('?>') + 2;
    if (i < 2) fail('unterminated declaration');
  }
  const stack: XmlElement[] = [];
  let root: XmlElement | null = null;
  while (i < xml.length) {
    if (xml[i] !== '<') {
      const end = xml.indexOf('<', i) < 0 ? xml.length : xml.indexOf('<', i);
      const raw = xml.slice(i, end);
      if (raw.includes(']]>')) fail(']]> in text');
      const top = stack.at(-1);
      if (top) top.text += decode(raw);
      else if (raw.trim()) fail('text outside the root element');
      i = end;
      continue;
    }
    if (xml.startsWith('<!--', i)) { i = xml.indexOf('-->', i) + 3; if (i < 3) fail('unterminated comment'); continue; }
    if (xml.startsWith('<![CDATA[', i)) {
      const end = xml.indexOf(']]>', i);
      if (end < 0 || !stack.length) fail('bad CDATA');
      stack.at(-1)!.text += xml.slice(i + 9, end);
      i = end + 3;
      continue;
    }
    if (xml.startsWith('</', i)) {
      i += 2;
      const name = readName();
      skipSpace();
      if (xml[i] !== '>') fail('expected >');
      i++;
      const open = stack.pop();
      if (!open || open.name !== name) fail(`</${name}> closes <${open?.name ?? 'nothing'}>`);
      continue;
    }
    i++;
    const el: XmlElement = { name: readName(), attrs: {}, children: [], text: '' };
    const parent = stack.at(-1);
    if (parent) parent.children.push(el);
    else if (root) fail('second root element');
    else root = el;
    for (;;) {
      const before = i;
      skipSpace();
      if (xml.startsWith('/>', i)) { i += 2; break; }
      if (xml[i] === '>') { i++; stack.push(el); break; }
      if (i === before) fail('expected space before an attribute');
      const attr = readName();
      if (attr in el.attrs) fail(`duplicate attribute ${attr}`);
      if (xml[i] !== '=') fail('expected =');
      const quote = xml[++i];
      if (quote !== '"' && quote !== "'") fail('unquoted attribute');
      const end = xml.indexOf(quote, i + 1);
      if (end < 0) fail('unterminated attribute');
      el.attrs[attr] = decode(xml.slice(i + 1, end));
      i = end + 1;
    }
  }
  if (stack.length) fail(`<${stack.at(-1)!.name}> is never closed`);
  if (!root) fail('no root element');
  return root;
}

const child = (el: XmlElement, name: string): XmlElement => {
  const found = el.children.find((c) => c.name === name);
  if (!found) throw new Error(`<${el.name}> has no <${name}>`);
  return found;
};
const all = (el: XmlElement, name: string): XmlElement[] => el.children.filter((c) => c.name === name);

describe('the test XML reader', () => {
  it('rejects what is not well-formed', () => {
    expect(() => parseXml('<a><b></a></b>')).toThrow();
    expect(() => parseXml('<a>x & y</a>')).toThrow();
    expect(() => parseXml('<a>]]></a>')).toThrow();
    expect(() => parseXml('<a x=1/>')).toThrow();
    expect(() => parseXml('<a>\u0001</a>')).toThrow();
    expect(() => parseXml('<a/><b/>')).toThrow();
    expect(parseXml('<a k="&lt;"><b>x &amp; y</b></a>').children[0]!.text).toBe('x & y');
  });
});

// ---------------------------------------------------------------------------------------------

const NASTY = 'Say <script>alert("x")</script> & \'bye\' ]]> now\u0000\u0008\u000B\u000C\u001F\uFFFE\uD800!';
const CLEAN = 'Say <script>alert("x")</script> & \'bye\' ]]> now!';
const MARCH_5 = Date.UTC(2024, 2, 5, 10, 0, 0) / 1000;

describe('escapeXml', () => {
  it('escapes markup so nothing can open a tag or end a CDATA section', () => {
    expect(escapeXml('<script>')).toBe('&lt;script&gt;');
    expect(escapeXml('a & b')).toBe('a &amp; b');
    expect(escapeXml(']]>')).toBe(']]&gt;');
    expect(escapeXml(`"it's"`)).toBe('&quot;it&apos;s&quot;');
  });

  it('drops the characters XML 1.0 forbids and keeps tab, newlines, Chinese and emoji', () => {
    expect(escapeXml('a\u0000b\u0008c\u000Bd\u000Ce\u001Ff\uFFFEg\uFFFFh')).toBe('abcdefgh');
    expect(escapeXml('lone \uD800 and \uDFFF surrogates')).toBe('lone  and  surrogates');
    expect(escapeXml('\t\n\r 数据库 😀')).toBe('\t\n\r 数据库 😀');
  });
});

describe('dates', () => {
  it('writes RSS dates as RFC 822 with a four-digit year in GMT', () => {
    expect(rfc822Date(MARCH_5)).toBe('Tue, 05 Mar 2024 10:00:00 GMT');
    expect(rfc822Date(0)).toBe('Thu, 01 Jan 1970 00:00:00 GMT');
  });

  it('writes sitemap dates as W3C Datetime without fractions', () => {
    expect(w3cDate(MARCH_5)).toBe('2024-03-05T10:00:00Z');
  });
});

describe('rssFeed', () => {
  const item = (n: number, extra: Partial<FeedItem> = {}): FeedItem => ({
    title: `Post ${n}`, link: `https://ask.example.com/info/${n}`, guid: `https://ask.example.com/info/${n}`,
    description: `Excerpt ${n}`, pubDate: MARCH_5 + n, ...extra,
  });
  const channel = {
    title: 'Atrium Community', link: 'https://ask.example.com/', self: 'https://ask.example.com/feed.xml',
    description: 'The newest posts', language: 'en',
  };

  it('is a well-formed RSS 2.0 document with a self link', () => {
    const rss = parseXml(rssFeed({ ...channel, items: [item(1), item(2, { category: 'Q&A' })] }));
    expect(rss.name).toBe('rss');
    expect(rss.attrs).toMatchObject({ version: '2.0', 'xmlns:atom': 'http://www.w3.org/2005/Atom' });
    const ch = child(rss, 'channel');
    expect(child(ch, 'title').text).toBe('Atrium Community');
    expect(child(ch, 'link').text).toBe('https://ask.example.com/');
    expect(child(ch, 'language').text).toBe('en');
    expect(child(ch, 'atom:link').attrs).toEqual({ href: 'https://ask.example.com/feed.xml', rel: 'self', type: 'application/rss+xml' });
    expect(child(ch, 'lastBuildDate').text).toBe(rfc822Date(MARCH_5 + 2));
    const items = all(ch, 'item');
    expect(items).toHaveLength(2);
    expect(child(items[0]!, 'guid').attrs.isPermaLink).toBe('true');
    expect(child(items[0]!, 'pubDate').text).toBe('Tue, 05 Mar 2024 10:00:01 GMT');
    expect(all(items[0]!, 'category')).toHaveLength(0);
    expect(child(items[1]!, 'category').text).toBe('Q&A');
  });

  it('carries hostile text as plain text: escaped, control characters gone', () => {
    const xml = rssFeed({ ...channel, title: NASTY, items: [item(1, { title: NASTY, description: NASTY, category: NASTY, guid: 'post-1' })] });
    expect(xml).not.toContain('<script>');
    expect(xml).not.toContain(']]>');
    expect(xml).not.toMatch(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/);
    const ch = child(parseXml(xml), 'channel');
    expect(child(ch, 'title').text).toBe(CLEAN);
    const it0 = child(ch, 'item');
    for (const name of ['title', 'description', 'category']) expect(child(it0, name).text).toBe(CLEAN);
    expect(child(it0, 'guid').attrs.isPermaLink).toBe('false');
  });

  it('escapes URLs in elements and attributes', () => {
    const xml = rssFeed({ ...channel, self: 'https://x.test/feed.xml?a=1&b="2"', items: [item(1, { link: 'https://x.test/?a=1&b=2' })] });
    const ch = child(parseXml(xml), 'channel');
    expect(child(ch, 'atom:link').attrs.href).toBe('https://x.test/feed.xml?a=1&b="2"');
    expect(child(child(ch, 'item'), 'link').text).toBe('https://x.test/?a=1&b=2');
  });

  it('stays well-formed without items', () => {
    const ch = child(parseXml(rssFeed({ ...channel, items: [] })), 'channel');
    expect(all(ch, 'item')).toHaveLength(0);
    expect(all(ch, 'lastBuildDate')).toHaveLength(0);
  });
});

describe('sitemaps', () => {
  const urls = (n: number) => Array.from({ length: n }, (_, i) => ({ loc: `https://example.com/ask/info/${i + 1}`, lastmod: MARCH_5 }));

  it('writes a sitemaps.org 0.9 urlset', () => {
    const set = parseXml(sitemapXml([{ loc: 'https://example.com/ask?tab=hot&page=2' }, { loc: 'https://example.com/', lastmod: MARCH_5 }]));
    expect(set.name).toBe('urlset');
    expect(set.attrs.xmlns).toBe('http://www.sitemaps.org/schemas/sitemap/0.9');
    const [first, second] = all(set, 'url');
    expect(child(first!, 'loc').text).toBe('https://example.com/ask?tab=hot&page=2');
    expect(all(first!, 'lastmod')).toHaveLength(0);
    expect(child(second!, 'lastmod').text).toBe('2024-03-05T10:00:00Z');
  });

  it('holds at most 10,000 URLs per file', () => {
    expect(MAX_SITEMAP_URLS).toBe(10_000);
    expect(all(parseXml(sitemapXml(urls(10_000))), 'url')).toHaveLength(10_000);
    expect(() => sitemapXml(urls(10_001))).toThrow(RangeError);
    expect(chunkUrls(urls(25_001)).map((c) => c.length)).toEqual([10_000, 10_000, 5_001]);
    expect(chunkUrls(urls(10_000))).toHaveLength(1);
    expect(chunkUrls([])).toEqual([]);
  });

  it('writes a sitemap index', () => {
    const index = parseXml(sitemapIndexXml([{ loc: 'https://example.com/sitemap/pages-1.xml' }, { loc: 'https://example.com/sitemap/ask-posts-1.xml', lastmod: MARCH_5 }]));
    expect(index.name).toBe('sitemapindex');
    expect(index.attrs.xmlns).toBe('http://www.sitemaps.org/schemas/sitemap/0.9');
    expect(all(index, 'sitemap').map((s) => child(s, 'loc').text)).toEqual(['https://example.com/sitemap/pages-1.xml', 'https://example.com/sitemap/ask-posts-1.xml']);
  });
});

describe('robotsTxt', () => {
  it('allows everything but the member center and the API, and names the sitemap', () => {
    expect(robotsTxt('https://example.com/sitemap.xml').split('\n')).toEqual([
      'User-agent: *', 'Allow: /', 'Disallow: /user', 'Disallow: /api', '', 'Sitemap: https://example.com/sitemap.xml', '',
    ]);
  });
});

// ---------------------------------------------------------------------------------------------

const plain: HostContext = { area: 'main', siteDomain: null, port: '4321' };
const onMain: HostContext = { area: 'main', siteDomain: 'example.com', port: '' };
const onAsk: HostContext = { area: 'ask', siteDomain: 'example.com', port: '' };
const origin = (host: HostContext, requestHost: string, protocol = 'https:'): PublicOrigin => ({ protocol, requestHost, host });

describe('canonical URLs', () => {
  it('uses the request host without subdomains', () => {
    expect(absoluteUrl('/ask/info/5', origin(plain, 'localhost:4321', 'http:'))).toBe('http://localhost:4321/ask/info/5');
    expect(absoluteUrl('/', origin(plain, 'localhost:4321', 'http:'))).toBe('http://localhost:4321/');
  });

  it('puts each area on its own subdomain, whichever host asked', () => {
    for (const o of [origin(onMain, 'example.com'), origin(onAsk, 'ask.example.com')]) {
      expect(absoluteUrl('/ask/info/5', o)).toBe('https://ask.example.com/info/5');
      expect(absoluteUrl('/ask', o)).toBe('https://ask.example.com/');
      expect(absoluteUrl('/ask/feed.xml', o)).toBe('https://ask.example.com/feed.xml');
      expect(absoluteUrl('/md', o)).toBe('https://doc.example.com/');
      expect(absoluteUrl('/modules', o)).toBe('https://modules.example.com/');
      expect(absoluteUrl('/', o)).toBe('https://example.com/');
      expect(absoluteUrl('/sitemap.xml', o)).toBe('https://example.com/sitemap.xml');
    }
    expect(canonicalHref('/ask/lists/category/2', { ...onMain, port: '8080' })).toBe('//ask.example.com:8080/lists/category/2');
  });

  it('leaves absolute URLs alone', () => {
    expect(absoluteUrl('https://elsewhere.test/x', origin(onAsk, 'ask.example.com'))).toBe('https://elsewhere.test/x');
    expect(absoluteUrl('//cdn.test/x', origin(onAsk, 'ask.example.com'))).toBe('https://cdn.test/x');
  });

  it('drops tracking parameters and keeps the ones that choose content', () => {
    expect(withoutTracking(new URL('https://example.com/ask?tab=hot&utm_source=x&fbclid=1&page=2'))).toBe('/ask?tab=hot&page=2');
    expect(withoutTracking(new URL('https://example.com/ask/info/5?utm_medium=rss'))).toBe('/ask/info/5');
  });

  it('believes X-Forwarded-Proto only behind a trusted proxy', () => {
    const headers = new Headers({ host: 'example.com', 'x-forwarded-proto': 'https' });
    expect(publicOrigin(new URL('http://example.com/'), headers, onMain, true).protocol).toBe('https:');
    expect(publicOrigin(new URL('http://example.com/'), headers, onMain, false).protocol).toBe('http:');
    expect(publicOrigin(new URL('http://internal:4321/'), headers, onMain, false).requestHost).toBe('example.com');
  });
});

describe('sitemap from sources', () => {
  const db = {} as Db;
  const entries = (n: number, prefix = '/ask/info/'): SitemapEntry[] => Array.from({ length: n }, (_, i) => ({ path: `${prefix}${i + 1}`, lastmod: MARCH_5 + i }));
  const o = origin(onMain, 'example.com');

  it('names files source-number', () => {
    expect(parseSitemapFile('ask-posts-3')).toEqual({ source: 'ask-posts', n: 3 });
    expect(parseSitemapFile('pages-0')).toBeNull();
    expect(parseSitemapFile('../etc-1')).toBeNull();
  });

  it('answers one urlset while the whole site fits in one file', async () => {
    const sources = [listSource('pages', ['site'], async () => [{ path: '/' }, { path: '/ask' }]), listSource('posts', ['ask'], async () => entries(9_998))];
    const set = parseXml(await siteSitemap(db, o, sources));
    expect(set.name).toBe('urlset');
    const locs = all(set, 'url').map((u) => child(u, 'loc').text);
    expect(locs).toHaveLength(10_000);
    expect(locs.slice(0, 3)).toEqual(['https://example.com/', 'https://ask.example.com/', 'https://ask.example.com/info/1']);
  });

  it('answers an index of files of at most 10,000 URLs past that', async () => {
    const sources = [listSource('pages', ['site'], async () => [{ path: '/' }]), listSource('posts', ['ask'], async () => entries(20_001))];
    const index = parseXml(await siteSitemap(db, o, sources));
    expect(index.name).toBe('sitemapindex');
    expect(all(index, 'sitemap').map((s) => child(s, 'loc').text)).toEqual([
      'https://example.com/sitemap/pages-1.xml', 'https://example.com/sitemap/posts-1.xml',
      'https://example.com/sitemap/posts-2.xml', 'https://example.com/sitemap/posts-3.xml',
    ]);
    expect(child(all(index, 'sitemap')[1]!, 'lastmod').text).toBe(w3cDate(MARCH_5 + 9_999));
    const sizes = await Promise.all([1, 2, 3].map(async (n) => all(parseXml((await siteSitemapFile(db, o, `posts-${n}`, sources))!), 'url').length));
    expect(sizes).toEqual([10_000, 10_000, 1]);
    expect(await siteSitemapFile(db, o, 'posts-4', sources)).toBeNull();
    expect(await siteSitemapFile(db, o, 'nobody-1', sources)).toBeNull();
  });
});

describe('routes of the feeds and sitemaps', () => {
  it('are in the route table, without a layout', () => {
    const cases: [string, string, Record<string, string>][] = [
      ['/robots.txt', 'robots', {}], ['/sitemap.xml', 'sitemap', {}], ['/sitemap/ask-posts-12.xml', 'sitemapFile', { file: 'ask-posts-12.xml' }],
      ['/ask/feed.xml', 'askFeed', {}], ['/ask/feed/question.xml', 'askFeedCategory', { category: 'question.xml' }],
    ];
    for (const [path, name, params] of cases) {
      expect(matchRoute(path), path).toMatchObject({ route: { name, layout: 'none' }, params, valid: true });
    }
  });

  it('refuse malformed file names before any query runs', () => {
    expect(matchRoute('/sitemap/ask-posts-0.xml')?.valid).toBe(false);
    expect(matchRoute('/sitemap/posts.xml')?.valid).toBe(false);
    expect(matchRoute('/ask/feed/question')?.valid).toBe(false);
    expect(matchRoute('/ask/feed/a%2Fb.xml')?.valid).toBe(false);
  });
});

describe('the public origin', () => {
  const headers = (host: string): Headers => new Headers({ host });
  it('takes SITE_URL whatever Host the request names', () => {
    const o = publicOrigin(new URL('http://evil.example/'), headers('evil.example'), plain, { trustProxy: false, siteUrl: 'https://site.example' });
    expect(absoluteUrl('/ask/info/5', o)).toBe('https://site.example/ask/info/5');
  });
  it('names a Host only when the operator allowed it (or it is a loopback name), else stays relative', () => {
    const evil = publicOrigin(new URL('http://evil.example/'), headers('evil.example'), plain, { trustProxy: false });
    expect(evil.requestHost).toBeNull();
    expect(absoluteUrl('/ask/info/5', evil)).toBe('/ask/info/5');
    const allowed = publicOrigin(new URL('http://x/'), headers('forum.example:8080'), plain, { trustProxy: false, allowedHosts: ['forum.example'] });
    expect(absoluteUrl('/ask', allowed)).toBe('http://forum.example:8080/ask');
    expect(publicOrigin(new URL('http://x/'), headers('127.0.0.1:4321'), plain, false).requestHost).toBe('127.0.0.1:4321');
    expect(publicOrigin(new URL('http://x/'), headers('ask.example.com'), onAsk, false).requestHost).toBe('ask.example.com');
  });
});
