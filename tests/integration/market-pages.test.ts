// The module market's public pages over HTTP on PGlite (in process, so the test can put modules,
// versions, orders and reviews straight into the database): the list with its filters, sorts,
// search, pagination and empty states; a module's page for visitors, buyers, developers,
// reviewers and installers; the page cache; the sitemap.
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../src/lib/server/runtime';
import { createUser, type UserRow } from '../../src/lib/server/account/users';
import { ADMIN_GROUP } from '../../src/lib/server/site/seed';
import { module, moduleInstall, moduleOrder, moduleReview, moduleVersion } from '../../src/lib/server/db/schema';
import { moduleText } from '../../src/lib/server/market/text';
import { installModule, uninstallModule } from '../../src/lib/server/modules/installs';
import { startInProcess, type InProcessServer } from '../helpers/in-process';
import { loginAs } from '../helpers/members';
import { raw, type RawResponse } from '../helpers/server';
import { scaled } from '../helpers/time-scale.mjs';

let srv: InProcessServer;
let rt: Runtime;
const people: Record<string, { row: UserRow; cookie: string }> = {};
const ids: Record<string, number> = {};

async function member(name: string, groupId = 1): Promise<void> {
  const row = await createUser(rt.db, { username: name, password: 'market123', groupId });
  const s = await loginAs(srv.url, rt, name, 'market123');
  people[name] = { row, cookie: s.cookie };
}

/** A page in English, as a visitor or as a member. */
const page = (path: string, name?: string): Promise<RawResponse> =>
  raw(srv.url, path, { headers: { cookie: name ? `${people[name]!.cookie}; ba-lang=en` : 'ba-lang=en' } });

// Newer than the first-party modules the template database lists, so test modules sort first.
let clock = Math.floor(Date.now() / 1000) + 3600;

interface Seed {
  uid: string; name: string; summary?: string; description?: string; category?: string; tags?: string[];
  price?: number; scorePrice?: number; status?: string; downloads?: number; rating?: number; ratingCount?: number;
  developer?: string; cover?: string; screenshots?: string[]; siteModule?: number;
}

/** Puts a module in the database the way the developer pages save one (rendered text and search vectors). */
async function addModule(s: Seed): Promise<number> {
  const tags = s.tags ?? [];
  const text = await moduleText({ name: s.name, summary: s.summary ?? '', tags, description: s.description ?? '' });
  clock += 60;
  const [row] = await rt.db.insert(module).values({
    uid: s.uid, developerId: s.developer ? people[s.developer]!.row.id : people.maker!.row.id, name: s.name, summary: s.summary ?? '',
    description: s.description ?? '', category: s.category ?? 'tools', tags, price: s.price ?? 0, scorePrice: s.scorePrice ?? 0,
    status: s.status ?? 'published', downloads: s.downloads ?? 0, rating: s.rating ?? 0, ratingCount: s.ratingCount ?? 0,
    ratingSum: Math.round((s.rating ?? 0) * (s.ratingCount ?? 0)), cover: s.cover ?? '', screenshots: s.screenshots ?? [],
    siteModule: s.siteModule ?? 0, latestVersion: '1.0.0', publishTime: clock, createTime: clock, updateTime: clock, ...text,
  }).returning({ id: module.id });
  ids[s.uid] = row!.id;
  return row!.id;
}

/** The module uids linked from cards, in page order. */
function cardOrder(html: string): string[] {
  return [...html.matchAll(/<article class="card module-card"[\s\S]*?href="\/modules\/([a-z0-9-]+)"/g)].map((m) => m[1]!);
}

const fillers = Array.from({ length: 26 }, (_, i) => `filler-${String(i + 1).padStart(2, '0')}`);

beforeAll(async () => {
  srv = await startInProcess();
  rt = srv.runtime;
  await member('maker');
  await member('buyer');
  await member('stranger');
  await member('boss', ADMIN_GROUP);
}, scaled(120_000));

afterAll(async () => { await srv?.stop(); });

describe('the module list', () => {
  it('says there are no modules yet while nothing is published', async () => {
    await rt.db.update(module).set({ status: 'delisted' }).where(eq(module.uid, 'editor'));
    await rt.pageCache.invalidate(['modules']);
    const res = await page('/modules');
    expect(res.status).toBe(200);
    expect(res.text).toContain('<h2>No modules yet</h2>');
    expect(res.text).not.toContain('No modules match');
    await rt.db.update(module).set({ status: 'published' }).where(eq(module.uid, 'editor'));
  });

  it('lists published modules as cards with price, rating and downloads, and nothing unpublished', async () => {
    for (const uid of fillers) await addModule({ uid, name: `Filler ${uid.slice(-2)}`, summary: 'A plain utility', tags: ['filler'] });
    await addModule({
      uid: 'md-editor-pro', name: 'Markdown Editor Pro', summary: 'A richer editor for posts and pages', category: 'editor',
      tags: ['markdown', 'editor'], price: 1200, downloads: 50, rating: 4.5, ratingCount: 2,
      description: '## Features\n\nTables, **footnotes** and diagrams.', cover: '/storage/covers/md.png', screenshots: ['/storage/shots/1.png', '/storage/shots/2.png'],
    });
    await addModule({ uid: 'cn-search', name: '中文全文搜索', summary: '为论坛和文档提供中文分词搜索', category: 'tools', tags: ['搜索', 'search'], scorePrice: 300, downloads: 500, rating: 3, ratingCount: 1 });
    await addModule({ uid: 'ai-writer', name: 'AI Writer', summary: 'Drafts replies with a language model', category: 'ai', tags: ['ai', 'markdown'], downloads: 10, rating: 5, ratingCount: 3 });
    await addModule({ uid: 'both-prices', name: 'Both Prices', summary: 'Money or points', category: 'commerce', price: 990, scorePrice: 500 });
    await addModule({ uid: 'draft-thing', name: 'Secret Draft', summary: 'Not ready', category: 'ai', status: 'draft' });
    await addModule({ uid: 'pulled', name: 'Pulled Module', category: 'ai', status: 'delisted' });
    await rt.pageCache.invalidate(['modules']);

    const res = await page('/modules');
    expect(res.status).toBe(200);
    expect(res.text).toContain('<title>Module market - ');
    expect(res.text).toContain('31 modules');
    const cards = cardOrder(res.text);
    expect(cards).toHaveLength(24);
    // Newest first.
    expect(cards.slice(0, 4)).toEqual(['both-prices', 'ai-writer', 'cn-search', 'md-editor-pro']);
    expect(res.text).not.toContain('Secret Draft');
    expect(res.text).not.toContain('Pulled Module');
    const card = (uid: string): string => res.text.slice(res.text.lastIndexOf('<article', res.text.indexOf(`href="/modules/${uid}"`)), res.text.indexOf('</article>', res.text.indexOf(`href="/modules/${uid}"`)));
    expect(card('md-editor-pro')).toContain('¥12.00');
    expect(card('md-editor-pro')).toContain('src="/storage/covers/md.png"');
    expect(card('md-editor-pro')).toContain('loading="lazy"');
    expect(card('md-editor-pro')).toContain('aria-label="Rated 4.5 out of 5"');
    expect(card('md-editor-pro')).toContain('50 downloads');
    expect(card('cn-search')).toContain('300 points');
    expect(card('ai-writer')).toMatch(/class="price free"[^>]*>Free</);
    expect(card('both-prices')).toContain('¥9.90 or 500 points');
    expect(card('both-prices')).toContain('No ratings yet');
    // No cover: a letter tile.
    expect(card('both-prices')).toMatch(/class="module-tile letter-tile" style="--hue:\d+"[^>]*>B</);
  });

  it('counts categories beside the list and links popular tags', async () => {
    const res = await page('/modules');
    expect(res.text).toMatch(/href="\/modules\?category=ai"[^>]*><span>AI<\/span><span class="count">1<\/span>/);
    expect(res.text).toMatch(/href="\/modules\?category=tools"[^>]*><span>Tools<\/span><span class="count">27<\/span>/);
    expect(res.text).toMatch(/href="\/modules"[^>]*aria-current="page"[^>]*><span>All<\/span><span class="count">31<\/span>/);
    expect(res.text).toContain('href="/modules?tag=filler"');
    expect(res.text).toContain('href="/modules?tag=markdown"');
  });

  it('filters by category, tag and price, and the filters combine', async () => {
    const ai = await page('/modules?category=ai');
    expect(ai.text).toContain('<h1 class="page-title">AI modules</h1>');
    expect(cardOrder(ai.text)).toEqual(['ai-writer']);
    expect(ai.text).toMatch(/href="\/modules\?category=ai"[^>]*aria-current="page"/);

    const tagged = await page('/modules?tag=markdown');
    expect(cardOrder(tagged.text).sort()).toEqual(['ai-writer', 'editor', 'md-editor-pro']);
    expect(tagged.text).toContain('3 modules');
    expect(tagged.text).toContain('<h1 class="page-title">Modules tagged “markdown”</h1>');
    expect(cardOrder((await page(`/modules?tag=${encodeURIComponent('搜索')}`)).text)).toEqual(['cn-search']);

    const freeTagged = await page('/modules?price=free&tag=markdown');
    expect(cardOrder(freeTagged.text).sort()).toEqual(['ai-writer', 'editor']);
    expect(freeTagged.text).toContain('2 modules');
    // The category counts follow the price filter.
    expect((await page('/modules?price=free')).text).toMatch(/href="\/modules\?category=tools&amp;price=free"[^>]*><span>Tools<\/span><span class="count">26<\/span>/);
    const paid = await page('/modules?price=paid');
    expect(cardOrder(paid.text).sort()).toEqual(['both-prices', 'cn-search', 'md-editor-pro']);
    expect(paid.text).toContain('3 modules');

    const both = await page('/modules?category=editor&price=paid');
    expect(cardOrder(both.text)).toEqual(['md-editor-pro']);
    // Each active filter can be taken off on its own; links keep the other filters.
    expect(both.text).toContain('href="/modules?price=paid" aria-label="Remove filter: Editor"');
    expect(both.text).toContain('href="/modules?category=editor" aria-label="Remove filter: Paid"');
  });

  it('sorts by downloads, rating and price', async () => {
    expect(cardOrder((await page('/modules?sort=popular')).text).slice(0, 3)).toEqual(['cn-search', 'md-editor-pro', 'ai-writer']);
    expect(cardOrder((await page('/modules?sort=rating')).text).slice(0, 3)).toEqual(['ai-writer', 'md-editor-pro', 'cn-search']);
    expect(cardOrder((await page('/modules?price=paid&sort=price')).text)).toEqual(['cn-search', 'both-prices', 'md-editor-pro']);
    const sorted = await page('/modules?sort=rating&category=tools');
    expect(sorted.text).toMatch(/href="\/modules\?category=tools&amp;sort=rating"[^>]*aria-current="page"[^>]*>Top rated</);
  });

  it('finds English words in names, tags and summaries, name matches first, highlighted', async () => {
    const res = await page('/modules?q=markdown');
    expect(res.status).toBe(200);
    expect(res.text).toContain('Results for “markdown”');
    const found = cardOrder(res.text);
    expect(found[0]).toBe('md-editor-pro');
    expect(found).toEqual(expect.arrayContaining(['ai-writer', 'editor']));
    expect(found).not.toContain('cn-search');
    expect(res.text).toContain('<mark>Markdown</mark> Editor Pro');
    // Stems: "drafting" finds "Drafts".
    const stem = await page('/modules?q=drafting');
    expect(cardOrder(stem.text)).toContain('ai-writer');
    expect(stem.text).toContain('<mark>Drafts</mark> replies');
    // Relevance is the default sort while searching, and is offered only then.
    expect(res.text).toMatch(/aria-current="page"[^>]*>Relevance</);
    expect((await page('/modules')).text).not.toContain('>Relevance<');
  });

  it('finds Chinese text by its characters, highlighted, and keeps filters with the search', async () => {
    const res = await page(`/modules?q=${encodeURIComponent('全文搜索')}`);
    expect(cardOrder(res.text)).toEqual(['cn-search']);
    expect(res.text).toContain('中文<mark>全文搜索</mark>');
    const summary = await page(`/modules?q=${encodeURIComponent('分词')}`);
    expect(summary.text).toContain('为论坛和文档提供中文<mark>分词</mark>搜索');
    const filtered = await page(`/modules?q=${encodeURIComponent('搜索')}&category=ai`);
    expect(cardOrder(filtered.text)).toEqual([]);
    expect(filtered.text).toContain('No modules match “搜索”');
  });

  it('tells a search without results from filters without results', async () => {
    const none = await page('/modules?q=zebracorn');
    expect(none.status).toBe(200);
    expect(none.text).toContain('<h2>No modules match “zebracorn”</h2>');
    expect(none.text).toContain('Try other words, or clear the filters.');
    const filtered = await page('/modules?category=theme');
    expect(filtered.text).toContain('<h2>No modules match these filters</h2>');
    expect(filtered.text).not.toContain('No modules yet');
  });

  it('escapes what developers typed, in cards and in highlights', async () => {
    await addModule({ uid: 'evil-name', name: 'Evil <img src=x onerror=alert(1)>', summary: '"quoted" & <b>bold</b>', tags: ['evil'] });
    await rt.pageCache.invalidate(['modules']);
    for (const path of ['/modules?tag=evil', '/modules?q=evil']) {
      const res = await page(path);
      expect(cardOrder(res.text), path).toEqual(['evil-name']);
      expect(res.text).not.toContain('<img src=x');
      expect(res.text).not.toContain('<b>bold</b>');
      expect(res.text).toContain('&lt;img src=x onerror=alert(1)&gt;');
    }
    await rt.db.delete(module).where(eq(module.uid, 'evil-name'));
    await rt.pageCache.invalidate(['modules']);
  });

  it('pages by 24 with links that keep the filters, and refuses pages past the end', async () => {
    const first = await page('/modules');
    expect(first.text).toContain('href="?page=2" rel="next"');
    const second = await page('/modules?page=2');
    expect(second.status).toBe(200);
    expect(cardOrder(second.text)).toHaveLength(7);
    expect(second.text).toContain('<title>Module market - Page 2 - ');
    expect(new Set([...cardOrder(first.text), ...cardOrder(second.text)]).size).toBe(31);
    expect((await page('/modules?page=3')).status).toBe(404);
    const tagged = await page('/modules?tag=filler&sort=popular');
    expect(tagged.text).toContain('href="?tag=filler&amp;sort=popular&amp;page=2" rel="next"');
    // Malformed values are ignored rather than refused.
    const odd = await page('/modules?page=abc&sort=nonsense&category=nope&price=cheap');
    expect(odd.status).toBe(200);
    expect(cardOrder(odd.text)).toEqual(cardOrder(first.text));
  });

  it('serves anonymous repeats from the page cache until the market changes', async () => {
    await rt.pageCache.invalidate(['modules']);
    const first = await page('/modules?category=storage');
    expect(first.headers['x-atrium-cache']).not.toBe('hit');
    expect(first.text).toContain('No modules match these filters');
    expect((await page('/modules?category=storage')).headers['x-atrium-cache']).toBe('hit');
    // Members never get a cached page.
    expect((await page('/modules?category=storage', 'buyer')).headers['x-atrium-cache']).not.toBe('hit');

    await addModule({ uid: 'cloud-store', name: 'Cloud Store', summary: 'Uploads to object storage', category: 'storage' });
    expect((await page('/modules?category=storage')).text).not.toContain('Cloud Store');
    await rt.pageCache.invalidate(['modules']);
    const fresh = await page('/modules?category=storage');
    expect(fresh.headers['x-atrium-cache']).not.toBe('hit');
    expect(cardOrder(fresh.text)).toEqual(['cloud-store']);
    // The category counts beside the list were dropped with the pages.
    expect(fresh.text).toMatch(/href="\/modules\?category=storage"[^>]*aria-current="page"[^>]*><span>Storage<\/span><span class="count">1<\/span>/);
    await rt.db.delete(module).where(eq(module.uid, 'cloud-store'));
    await rt.pageCache.invalidate(['modules']);
  });
});

describe('a module page', () => {
  beforeAll(async () => {
    const t = clock;
    await rt.db.insert(moduleVersion).values([
      { moduleId: ids['md-editor-pro']!, version: '1.0.0', changelog: 'First **release**.', packagePath: 'md/1.0.0.zip', packageSize: 12_595, status: 'published', publishTime: t - 400, createTime: t - 400 },
      { moduleId: ids['md-editor-pro']!, version: '1.2.0', changelog: 'Adds <script>alert(1)</script> tables.', packagePath: 'md/1.2.0.zip', packageSize: 20_000, minAtrium: '0.1.0', status: 'published', publishTime: t - 100, createTime: t - 100 },
      { moduleId: ids['md-editor-pro']!, version: '2.0.0-beta.1', changelog: 'Not yet.', status: 'review', createTime: t },
      { moduleId: ids['ai-writer']!, version: '1.0.0', changelog: '', packagePath: 'ai/1.0.0.zip', status: 'published', publishTime: t, createTime: t },
    ]);
    await rt.db.update(module).set({ latestVersion: '1.2.0' }).where(eq(module.uid, 'md-editor-pro'));
    await rt.db.insert(moduleOrder).values({
      orderNo: '20240101000000000001', userId: people.buyer!.row.id, moduleId: ids['md-editor-pro']!, developerId: people.maker!.row.id,
      payType: 'balance', amount: 1200, status: 'paid', updatesUntil: Date.UTC(2031, 5, 15) / 1000, payTime: t, createTime: t,
    });
    await rt.db.insert(moduleReview).values([
      { moduleId: ids['md-editor-pro']!, userId: people.stranger!.row.id, rating: 4, content: 'Solid <b>editor</b>.', reply: 'Thanks, fixed in 1.2.0!', replyTime: t, createTime: t - 50, updateTime: t - 50 },
      { moduleId: ids['md-editor-pro']!, userId: people.boss!.row.id, rating: 5, content: 'Great tables.', createTime: t - 40, updateTime: t - 40 },
    ]);
    await rt.pageCache.invalidate(['modules']);
  });

  it('shows a visitor the facts, description, screenshots, versions, developer and reviews', async () => {
    const res = await page('/modules/md-editor-pro');
    expect(res.status).toBe(200);
    const html = res.text;
    expect(html).toContain('<title>Markdown Editor Pro - ');
    expect(html).toContain('<meta name="description" content="A richer editor for posts and pages">');
    expect(html).toMatch(/<link rel="canonical" href="http:\/\/127\.0\.0\.1:\d+\/modules\/md-editor-pro">/);
    expect(html).toContain('<h1 data-user-content>Markdown Editor Pro</h1>');
    expect(html).toContain('href="/user/card/' + people.maker!.row.id + '">maker</a>');
    expect(html).toContain('href="/modules?category=editor">Editor</a>');
    expect(html).toContain('href="/modules?tag=markdown">#markdown</a>');
    expect(html).toContain('<strong>footnotes</strong>');
    expect(html).toMatch(/<img src="\/storage\/shots\/1\.png" alt="Markdown Editor Pro screenshot 1"[^>]*loading="lazy"/);
    // Versions: published only, highest first, changelogs rendered and sanitised.
    const v12 = html.indexOf('<span>1.2.0</span>');
    const v10 = html.indexOf('<span>1.0.0</span>');
    expect(v12).toBeGreaterThan(0);
    expect(v10).toBeGreaterThan(v12);
    expect(html).not.toContain('2.0.0-beta.1');
    expect(html).toContain('First <strong>release</strong>.');
    expect(html).not.toContain('<script>alert(1)</script>');
    expect(html).toContain('Requires Atrium 0.1.0 or later');
    expect(html).toContain('Package 12.3 KB');
    // A visitor downloads nothing and is sent to log in, then back.
    expect(html).not.toContain('/api/modules/download');
    expect(html).toContain('href="/user/login?to=%2Fmodules%2Fmd-editor-pro">Log in to buy</a>');
    expect(html).not.toContain('data-market="buy"');
    // The developer's card.
    expect(html).toContain('About the developer');
    // Reviews: average, distribution, replies, escaped text.
    expect(html).toContain('Average 4.5 from 2 reviews');
    expect(html).toContain('aria-label="5 stars: 1"');
    expect(html).toContain('aria-label="3 stars: 0"');
    expect(html).toContain('Solid &lt;b&gt;editor&lt;/b&gt;.');
    expect(html).toContain('Thanks, fixed in 1.2.0!');
    expect(html).not.toContain('data-market="review"');
    expect(html).not.toContain('data-market="reply"');
    // One script more than the list, which has none of its own.
    const scripts = (text: string): number => text.split('<script').length - 1;
    expect(scripts(html)).toBe(scripts((await page('/modules')).text) + 1);
  });

  it('offers a member the ways the module is sold, and no others', async () => {
    const money = (await page('/modules/md-editor-pro', 'stranger')).text;
    expect(money).toContain('data-market="ask-buy" data-pay="balance">Buy with balance ¥12.00</button>');
    // Buying asks first, with the price and what the balance would be; without the funds it only says so.
    expect(money).toContain('Confirm your purchase');
    expect(money).toContain('<dt>Your balance</dt><dd>¥0.00</dd>');
    expect(money).toContain('Your balance is not enough to buy this module.');
    expect(money).not.toContain('data-market="buy"');
    expect(money).not.toContain('data-pay="score"');
    const points = (await page('/modules/cn-search', 'stranger')).text;
    expect(points).toContain('data-market="ask-buy" data-pay="score">Buy with 300 points</button>');
    expect(points).not.toContain('data-pay="balance"');
    const both = (await page('/modules/both-prices', 'stranger')).text;
    expect(both).toContain('data-pay="balance"');
    expect(both).toContain('data-pay="score"');
    // Errors have a place beside the buttons.
    expect(money).toMatch(/<p class="form-error" role="alert" data-market-error><\/p>/);
  });

  it('tells an owner until when updates last, with downloads and the review form', async () => {
    const html = (await page('/modules/md-editor-pro', 'buyer')).text;
    expect(html).toContain('You own this module — updates until 2031-06-15.');
    expect(html).toContain('href="/api/modules/download?uid=md-editor-pro" download>Download 1.2.0</a>');
    expect(html).toContain('href="/api/modules/download?uid=md-editor-pro&amp;version=1.0.0"');
    expect(html).not.toContain('data-market="buy"');
    expect(html).toContain('data-market="review" data-uid="md-editor-pro"');
    expect(html).toContain('Write a review');
  });

  it('lets a reviewer edit their review, and not write a second one', async () => {
    await rt.db.insert(moduleOrder).values({
      orderNo: '20240101000000000002', userId: people.stranger!.row.id, moduleId: ids['md-editor-pro']!, developerId: people.maker!.row.id,
      payType: 'balance', amount: 1200, status: 'paid', updatesUntil: clock + 86_400, payTime: clock, createTime: clock,
    });
    const html = (await page('/modules/md-editor-pro', 'stranger')).text;
    expect(html).toContain('Edit your review');
    expect(html).toMatch(/<input type="radio" id="rating-4" name="rating" value="4" checked/);
    expect(html).toContain('>Solid &lt;b&gt;editor&lt;/b&gt;.</textarea>');
    await rt.db.delete(moduleOrder).where(eq(moduleOrder.orderNo, '20240101000000000002'));
  });

  it('gives a free module a download for members and a log-in link for visitors', async () => {
    expect((await page('/modules/ai-writer')).text).toContain('href="/user/login?to=%2Fmodules%2Fai-writer">Log in to download</a>');
    const html = (await page('/modules/ai-writer', 'stranger')).text;
    expect(html).toContain('href="/api/modules/download?uid=ai-writer" download>Download 1.0.0</a>');
    expect(html).toContain('No changelog.');
    // Reviewing a free module needs a download first.
    expect(html).toContain('Buyers (and downloaders of a free module) can review it.');
  });

  it('lets the developer answer unanswered reviews, once', async () => {
    const html = (await page('/modules/md-editor-pro', 'maker')).text;
    expect(html).toContain('This is your module.');
    const replies = [...html.matchAll(/data-market="reply" data-review="(\d+)"/g)].map((m) => Number(m[1]));
    const [unanswered] = await rt.db.select({ id: moduleReview.id }).from(moduleReview).where(eq(moduleReview.userId, people.boss!.row.id));
    expect(replies).toEqual([unanswered!.id]);
    expect(html).not.toContain('data-market="review"');
  });

  it('shows members allowed to install a site module its state, the update and the buttons', async () => {
    await rt.db.update(module).set({ siteModule: 1 }).where(eq(module.uid, 'editor'));
    await uninstallModule(rt.db, 'editor');
    const member = (await page('/modules/editor', 'stranger')).text;
    expect(member).not.toContain('data-market="install"');
    const fresh = (await page('/modules/editor', 'boss')).text;
    expect(fresh).toContain('This module is not installed on this site.');
    // What it asks for, in words, confirmed before installing (issue 26: client code is a capability).
    expect(fresh).toContain('<li data-capability="client:code">Runs code in members&#39; browsers</li>');
    expect(fresh).toMatch(/data-market="install" data-confirm="Install Atrium Editor on this site\? It asks for: Runs code in members(&#39;|')? browsers\.">Install on this site<\/button>/);
    const version = await installModule(rt.db, 'editor');
    expect(version).toBeTruthy();
    const installed = (await page('/modules/editor', 'boss')).text;
    expect(installed).toContain(`Installed version ${version}`);
    expect(installed).toContain('data-market="uninstall"');
    expect(installed).not.toContain('Update available');
    await rt.db.update(module).set({ latestVersion: '9.9.9' }).where(eq(module.uid, 'editor'));
    const outdated = (await page('/modules/editor', 'boss')).text;
    expect(outdated).toContain(`Update available: ${version} → 9.9.9`);
    expect(outdated).toMatch(/data-market="install" data-confirm="[^"]+">Update to 9\.9\.9<\/button>/);
    await rt.db.update(module).set({ latestVersion: version as string }).where(eq(module.uid, 'editor'));
    await rt.db.delete(moduleInstall).where(eq(moduleInstall.uid, 'editor'));
  });

  it('is not found when unknown or unpublished, except as a preview for its developer and reviewers', async () => {
    for (const path of ['/modules/no-such-module', '/modules/draft-thing', '/modules/pulled', '/modules/Bad_Uid']) {
      expect((await page(path)).status, path).toBe(404);
    }
    expect((await page('/modules/draft-thing', 'stranger')).status).toBe(404);
    for (const who of ['maker', 'boss']) {
      const res = await page('/modules/draft-thing', who);
      expect(res.status, who).toBe(200);
      expect(res.text).toContain('Preview: this module is not published, so visitors cannot see this page. Status: draft.');
      expect(res.text).toContain('<meta name="robots" content="noindex">');
      expect(res.text).not.toContain('data-market="buy"');
    }
  });

  it('is cached for visitors and refreshed when the market changes', async () => {
    await rt.pageCache.invalidate(['modules']);
    expect((await page('/modules/ai-writer')).headers['x-atrium-cache']).not.toBe('hit');
    expect((await page('/modules/ai-writer')).headers['x-atrium-cache']).toBe('hit');
    await rt.db.update(module).set({ summary: 'Writes drafts for you' }).where(eq(module.uid, 'ai-writer'));
    await rt.pageCache.invalidate(['modules']);
    const fresh = await page('/modules/ai-writer');
    expect(fresh.headers['x-atrium-cache']).not.toBe('hit');
    expect(fresh.text).toContain('Writes drafts for you');
  });

  it('speaks Chinese by default', async () => {
    const res = await raw(srv.url, '/modules/md-editor-pro');
    expect(res.text).toContain('<html lang="zh-cn"');
    expect(res.text).toContain('版本历史');
    expect(res.text).toContain('登录后购买');
    const list = await raw(srv.url, '/modules?price=free');
    expect(list.text).toContain('免费');
    expect(list.text).toContain('次下载');
  });
});

describe('the sitemap', () => {
  it('lists published module pages and no others', async () => {
    await rt.pageCache.invalidate(['modules', 'site']);
    const res = await raw(srv.url, '/sitemap.xml');
    expect(res.status).toBe(200);
    expect(res.text).toMatch(/\/modules\/md-editor-pro<\/loc>/);
    expect(res.text).toMatch(/\/modules\/editor<\/loc>/);
    expect(res.text).not.toContain('/modules/draft-thing<');
    expect(res.text).not.toContain('/modules/pulled<');
    const published = await rt.db.select({ n: sql<number>`count(*)::int` }).from(module).where(eq(module.status, 'published'));
    const listed = [...res.text.matchAll(/\/modules\/[a-z0-9-]+<\/loc>/g)].length;
    expect(listed).toBe(Number(published[0]!.n));
  });
});

describe('a module in each reader\'s language', () => {
  it('shows the English name, summary and description to English readers and the Chinese ones to Chinese readers, each falling back to the other', async () => {
    const texts = { name: '番茄钟', nameEn: 'Pomodoro timer', summary: '专注二十五分钟', summaryEn: 'Focus for twenty-five minutes', description: '## 用法\n\n点开始。', descriptionEn: '## Usage\n\nPress start.' };
    const text = await moduleText({ ...texts, tags: [] });
    clock += 60;
    await rt.db.insert(module).values({
      uid: 'pomodoro', developerId: people.maker!.row.id, ...texts, category: 'tools', tags: [], status: 'published', latestVersion: '1.0.0',
      publishTime: clock, createTime: clock, updateTime: clock, ...text,
    });
    await rt.pageCache.invalidate(['modules']);
    const en = (await page('/modules/pomodoro')).text;
    expect(en).toContain('Pomodoro timer');
    expect(en).toContain('Focus for twenty-five minutes');
    expect(en).toContain('Press start.');
    expect(en).not.toMatch(/番茄钟|专注二十五分钟|点开始/);
    const zh = (await raw(srv.url, '/modules/pomodoro', { headers: { cookie: 'ba-lang=zh-cn' } })).text;
    expect(zh).toContain('番茄钟');
    expect(zh).toContain('点开始。');
    expect(zh).not.toMatch(/Pomodoro timer|Press start/);
    expect((await page('/modules?q=pomodoro')).text).toContain('Pomodoro');
    expect((await raw(srv.url, `/modules?q=${encodeURIComponent('番茄')}`, { headers: { cookie: 'ba-lang=zh-cn' } })).text).toContain('<mark>番茄</mark>钟');

    // Only Chinese written: English readers see it rather than nothing.
    await rt.db.update(module).set({ nameEn: '', summaryEn: '', descriptionEnHtml: '' }).where(eq(module.uid, 'pomodoro'));
    await rt.pageCache.invalidate(['modules', 'module:pomodoro']);
    expect((await page('/modules/pomodoro')).text).toContain('番茄钟');
  });

  it('lists the editor in the reader\'s language, not both joined', async () => {
    const en = (await page('/modules/editor')).text;
    expect(en).toContain('Atrium Editor');
    expect(en).not.toContain('站点的 Markdown 编辑器');
    const zh = (await raw(srv.url, '/modules/editor', { headers: { cookie: 'ba-lang=zh-cn' } })).text;
    expect(zh).toContain('站点的 Markdown 编辑器');
    expect(zh).not.toContain('live preview, image paste');
  });
});
