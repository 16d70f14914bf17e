// The forum through its HTTP API on PGlite (in process, so the test can read the database the
// server writes), and the rules that depend on the database engine again on PostgreSQL.
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../src/lib/server/env';
import type { Runtime } from '../../src/lib/server/runtime';
import { createRuntime } from '../../src/lib/server/boot/runtime';
import { createUser, type UserRow } from '../../src/lib/server/account/users';
import { ADMIN_GROUP } from '../../src/lib/server/site/seed';
import { askCategory, askPost, askReply, messages, userScoreLog } from '../../src/lib/server/db/schema';
import { installModule, uninstallModule } from '../../src/lib/server/modules/installs';
import { createPost } from '../../src/lib/server/ask/posts';
import { createReply } from '../../src/lib/server/ask/replies';
import { vote } from '../../src/lib/server/ask/interactions';
import { searchPosts } from '../../src/lib/server/ask/search';
import { moderatePost } from '../../src/lib/server/ask/moderation';
import { startInProcess, type InProcessServer } from '../helpers/in-process';
import { loginAs } from '../helpers/members';
import { freshPostgres, postJson, raw } from '../helpers/server';
import { ROOT } from '../helpers/paths';
import { scaled } from '../helpers/time-scale.mjs';

type Env = { code: number; msg: string; data: Record<string, unknown> & { id?: number } };
const EN = { 'think-lang': 'en' };

let srv: InProcessServer;
let rt: Runtime;
let question = 0;
let discussion = 0;
const people: Record<string, { row: UserRow; token: string; cookie: string }> = {};

async function member(name: string, groupId = 1): Promise<void> {
  const row = await createUser(rt.db, { username: name, password: 'forum123', groupId });
  // Old enough not to meet the new-member limits, unless a test says otherwise.
  await rt.db.execute(sql`update "user" set join_time = join_time - 200000 where id = ${row.id}`);
  const session = await loginAs(srv.url, rt, name, 'forum123');
  people[name] = { row, token: session.token, cookie: session.cookie };
}

function as(name: string): Record<string, string> {
  return { 'ba-user-token': people[name]!.token, ...EN };
}

async function call(name: string | null, path: string, body: unknown): Promise<Env> {
  const res = await postJson(srv.url, path, body, name ? as(name) : EN);
  return res.json<Env>();
}

async function get(path: string, name?: string): Promise<Env> {
  return (await raw(srv.url, path, { headers: name ? as(name) : EN })).json<Env>();
}

let nonceSeq = 0;
const nonce = (): string => `test-nonce-${++nonceSeq}-${Date.now()}`;

beforeAll(async () => {
  srv = await startInProcess();
  rt = srv.runtime;
  const cats = await rt.db.select().from(askCategory);
  question = cats.find((c) => c.slug === 'question')!.id;
  discussion = cats.find((c) => c.slug === 'discussion')!.id;
  await member('asker');
  await member('helper');
  await member('third');
  await member('moder', ADMIN_GROUP);
}, scaled(120_000));

afterAll(async () => { await srv?.stop(); });

describe('the editor module', () => {
  it('is required to post: the API says "Editor required" and the page "Please install editor" until it is installed', async () => {
    await uninstallModule(rt.db, 'editor');
    const reply = await call('asker', '/api/ask/post', { title: 'Needs an editor', category_id: question, content: 'body', nonce: nonce() });
    expect(reply.code).toBe(0);
    expect(reply.msg).toBe('Editor required');
    const page = await raw(srv.url, '/ask/post', { headers: { cookie: `${people.asker!.cookie}; ba-lang=en` } });
    expect(page.status).toBe(200);
    expect(page.text).toContain('<h2>Please install editor</h2>');
    expect(page.text).not.toContain('name="title"');
    await installModule(rt.db, 'editor');
    const ready = await raw(srv.url, '/ask/post', { headers: { cookie: `${people.asker!.cookie}; ba-lang=en` } });
    expect(ready.text).not.toContain('<h2>Please install editor</h2>');
    expect(ready.text).toContain('name="title"');
  });
});

describe('posts', () => {
  let postId = 0;

  it('publishes a post once for a double-submitted form, rewards points and counts the category', async () => {
    const before = (await rt.db.select().from(askCategory).where(eq(askCategory.id, question)))[0]!.postCount;
    const n = nonce();
    const body = { title: '如何配置数据库连接池？', category_id: question, content: '## 问题\n\n生产环境的 **数据库连接池** 应该怎么设置？\n\n```ts\nconst pool = new Pool({ max: 20 })\n```', tags: ['postgresql', '数据库'], nonce: n };
    const [a, b] = await Promise.all([call('asker', '/api/ask/post', body), call('asker', '/api/ask/post', body)]);
    expect(a.code).toBe(1);
    expect(b.code).toBe(1);
    expect(a.data.id).toBe(b.data.id);
    postId = a.data.id!;
    const rows = await rt.db.select().from(askPost).where(eq(askPost.nonce, n));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.html).toContain('<pre class="shiki');
    // Its tags, by name, in the list (read with the rows) and on the page.
    const listed = (await get('/api/ask/index')).data.list as { id: number; tags: { name: string }[] }[];
    expect(listed.find((p) => p.id === postId)?.tags.map((t) => t.name)).toEqual(['postgresql', '数据库']);
    const page = (await raw(srv.url, `/ask/info/${postId}`)).text;
    expect(page.indexOf('>#postgresql<')).toBeGreaterThan(0);
    expect(page.indexOf('>#数据库<')).toBeGreaterThan(page.indexOf('>#postgresql<'));
    // The Chinese title and body carry their language on an English page, and none on a Chinese one.
    const english = (await raw(srv.url, `/ask/info/${postId}`, { headers: { cookie: 'ba-lang=en' } })).text;
    expect(english).toContain('<span data-user-content lang="zh-cn">如何配置数据库连接池？</span>');
    expect(english).toContain('<div class="markdown-body" lang="zh-cn">');
    expect(page).not.toContain('lang="zh-cn">如何配置数据库连接池');
    const after = (await rt.db.select().from(askCategory).where(eq(askCategory.id, question)))[0]!.postCount;
    expect(after).toBe(before + 1);
    const log = await rt.db.select().from(userScoreLog).where(and(eq(userScoreLog.userId, people.asker!.row.id), eq(userScoreLog.memo, `Post #${postId} published`)));
    expect(log).toHaveLength(1);
  });

  it('refuses a second post within 15 seconds, and a new member waits longer', async () => {
    const again = await postJson(srv.url, '/api/ask/post', { title: 'Another one quickly', category_id: discussion, content: 'text', nonce: nonce() }, as('asker'));
    expect(again.status).toBe(429);
    expect(again.json<Env>().msg).toMatch(/Too many|try again/i);
    const fresh = await createUser(rt.db, { username: 'newbie', password: 'forum123' });
    const s = await loginAs(srv.url, rt, 'newbie', 'forum123');
    const h = { 'ba-user-token': s.token, ...EN };
    expect((await postJson(srv.url, '/api/ask/reply', { post_id: postId, content: 'first reply', nonce: nonce() }, h)).json<Env>().code).toBe(1);
    // 5 s is the limit for established members; a member of a few seconds waits 30 s.
    expect((await postJson(srv.url, '/api/ask/reply', { post_id: postId, content: 'second reply', nonce: nonce() }, h)).status).toBe(429);
    expect(fresh.id).toBeGreaterThan(0);
  });

  it('refuses empty and oversize bodies with the spec messages, keeping nothing', async () => {
    const empty = await call('helper', '/api/ask/post', { title: 'Empty body here', category_id: discussion, content: '   ', nonce: nonce() });
    expect(empty.code).toBe(0);
    // The body is written in the site editor: empty, it is the spec's "Editor required" (§5), in the
    // reader's language; a comment is a plain line and keeps "Content cannot be empty".
    expect((empty.data as { fields: Record<string, string> }).fields.content).toBe('Editor required');
    const zh = (await postJson(srv.url, '/api/ask/post', { title: '正文为空的帖子', category_id: discussion, content: '', nonce: nonce() }, { ...as('helper'), 'think-lang': 'zh-cn' })).json<Env>();
    expect((zh.data as { fields: Record<string, string> }).fields.content).toBe('编辑器必填');
    const reply = await call('helper', '/api/ask/reply', { post_id: postId, content: ' ', nonce: nonce() });
    expect((reply.data as { fields: Record<string, string> }).fields.content).toBe('Editor required');
    const comment = await call('helper', '/api/ask/reply', { post_id: postId, parent_id: 1, content: ' ', nonce: nonce() });
    expect((comment.data as { fields: Record<string, string> }).fields.content).toBe('Content cannot be empty');
    const big = await call('helper', '/api/ask/post', { title: 'Oversize body', category_id: discussion, content: 'x'.repeat(30_001), nonce: nonce() });
    expect((big.data as { fields: Record<string, string> }).fields.content).toMatch(/too long/);
    const title = await call('helper', '/api/ask/post', { title: 'ab', category_id: discussion, content: 'ok', nonce: nonce() });
    expect((title.data as { fields: Record<string, string> }).fields.title).toMatch(/4 to 150/);
  });

  it('renders markdown safely: no script, no event handlers, no javascript: links', async () => {
    const content = '<script>alert(1)</script>\n\n[x](javascript:alert(1)) <img src=x onerror=alert(1)>\n\n![i](data:text/html;base64,PHNjcmlwdD4=)\n\n<svg onload=alert(1)>';
    const res = await call('helper', '/api/ask/post', { title: 'Markup that must not run', category_id: discussion, content, nonce: nonce() });
    expect(res.code).toBe(1);
    const page = await raw(srv.url, `/ask/info/${res.data.id}`);
    const body = page.text.slice(page.text.indexOf('class="markdown-body"'));
    expect(body).not.toMatch(/<script>alert|<img[^>]*onerror|<svg|href="javascript:|src="data:text/);
    expect(body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('lets only the author or a moderator edit', async () => {
    const edit = { id: postId, title: '如何配置数据库连接池（已更新）', category_id: question, content: '更新后的 **数据库连接池** 问题', tags: ['postgresql'] };
    const stranger = await call('third', '/api/ask/post', edit);
    expect(stranger.code).toBe(401);
    expect((await call('asker', '/api/ask/post', edit)).code).toBe(1);
    expect((await call('moder', '/api/ask/post', { ...edit, title: '如何配置数据库连接池（版主修改）' })).code).toBe(1);
    const [row] = await rt.db.select().from(askPost).where(eq(askPost.id, postId));
    expect(row!.version).toBe(3);
  });

  it('replies, comments and mentions notify their recipients; only the asker accepts, and the answerer earns points', async () => {
    const reply = await call('helper', '/api/ask/reply', { post_id: postId, content: 'Set `max` to the number of cores times two. cc @third', nonce: nonce() });
    expect(reply.code).toBe(1);
    const replyId = reply.data.id!;
    const comment = await call('asker', '/api/ask/reply', { post_id: postId, parent_id: replyId, content: 'Thanks, that works!', nonce: nonce() });
    expect(comment.code).toBe(1);
    const inbox = async (who: string) => rt.db.select().from(messages).where(eq(messages.recipientId, people[who]!.row.id));
    expect((await inbox('asker')).map((m) => m.type)).toContain('ask_reply');
    expect((await inbox('helper')).map((m) => m.type)).toContain('ask_comment');
    expect((await inbox('third')).map((m) => m.type)).toContain('ask_mention');
    expect((await call('third', '/api/ask/accept', { reply_id: replyId })).code).toBe(401);
    const accepted = await call('asker', '/api/ask/accept', { reply_id: replyId });
    expect(accepted.code).toBe(1);
    expect((await inbox('helper')).map((m) => m.type)).toContain('ask_accept');
    const points = await rt.db.select().from(userScoreLog).where(and(eq(userScoreLog.userId, people.helper!.row.id), eq(userScoreLog.memo, `Answer #${replyId} accepted`)));
    expect(points).toHaveLength(1);
    // Taking it back and accepting again pays nothing more.
    await call('asker', '/api/ask/accept', { reply_id: replyId });
    await call('asker', '/api/ask/accept', { reply_id: replyId });
    const again = await rt.db.select().from(userScoreLog).where(and(eq(userScoreLog.userId, people.helper!.row.id), eq(userScoreLog.memo, `Answer #${replyId} accepted`)));
    expect(again).toHaveLength(1);
    const info = await get(`/api/ask/info?id=${postId}`);
    const list = (info.data.replies as { list: { id: number; accepted: boolean; comments: unknown[] }[] }).list;
    expect(list[0]!.id).toBe(replyId);
    expect(list[0]!.accepted).toBe(true);
    expect(list[0]!.comments).toHaveLength(1);
  });

  it('tells the post author once when a reply also mentions them, with a plain-text summary', async () => {
    const content = '@asker try this:\n\n```js\nconst pool = 8;\n```\n\n**Bold** and `code`.';
    // Through the service: the API would make the helper wait out the reply interval.
    const { id } = await createPost(rt.db, people.asker!.row.id, { title: 'Mentioned and replied to', category_id: discussion, content: 'Body', tags: [] });
    const reply = await createReply(rt.db, people.helper!.row.id, { post_id: id, parent_id: 0, content });
    const link = `/ask/info/${id}#reply-${reply.id}`;
    const told = await rt.db.select().from(messages).where(and(eq(messages.recipientId, people.asker!.row.id), eq(messages.link, link)));
    expect(told.map((m) => m.type)).toEqual(['ask_reply']);
    expect(told[0]!.summary).toBe('@asker try this: const pool = 8; Bold and code.');
  });

  it('accepting is only for questions', async () => {
    const { id } = await createPost(rt.db, people.asker!.row.id, { title: 'A discussion topic', category_id: discussion, content: 'Talk', tags: [] });
    const r = await createReply(rt.db, people.helper!.row.id, { post_id: id, parent_id: 0, content: 'An opinion' });
    const res = await call('asker', '/api/ask/accept', { reply_id: r.id });
    expect(res.code).toBe(0);
    expect(res.msg).toBe('Only posts in a Q&A category can accept an answer');
  });

  it('toggles votes and collections, and lists them in the member center', async () => {
    const up = await call('third', '/api/ask/vote', { type: 'post', id: postId, value: 1 });
    expect(up.data).toMatchObject({ my_vote: 1, score: 1 });
    const down = await call('third', '/api/ask/vote', { type: 'post', id: postId, value: -1 });
    expect(down.data).toMatchObject({ my_vote: -1, score: -1 });
    const undo = await call('third', '/api/ask/vote', { type: 'post', id: postId, value: -1 });
    expect(undo.data).toMatchObject({ my_vote: 0, score: 0 });
    expect((await call('asker', '/api/ask/vote', { type: 'post', id: postId, value: 1 })).msg).toBe('You cannot vote on your own content');
    expect((await call('third', '/api/ask/collect', { post_id: postId })).data).toMatchObject({ collected: true, count: 1 });
    const mine = await get('/api/ask/my?kind=collect', 'third');
    expect((mine.data.list as { id: number }[]).map((p) => p.id)).toContain(postId);
    const posts = await get('/api/ask/my?kind=post', 'asker');
    expect((posts.data.list as { id: number }[]).map((p) => p.id)).toContain(postId);
    const replies = await get('/api/ask/my?kind=comment', 'helper');
    expect((replies.data.list as { postId: number }[]).map((p) => p.postId)).toContain(postId);
    const page = await raw(srv.url, '/user/ask/collect', { headers: { cookie: `${people.third!.cookie}; ba-lang=en` } });
    expect(page.text).toContain(`/ask/info/${postId}`);
  });

  it('finds posts by Chinese and English keywords and highlights them', async () => {
    await createPost(rt.db, people.helper!.row.id, { title: 'Connection pooling with PostgreSQL', category_id: discussion, content: 'How connections are reused by the pool.', tags: ['postgresql'] });
    for (const [q, title] of [['数据库', '数据库连接池'], ['连接', '数据库连接池'], ['connection', 'Connection pooling'], ['connect', 'Connection pooling'], ['pools', 'Connection pooling']] as const) {
      const res = await get(`/api/ask/search?keywords=${encodeURIComponent(q)}`);
      const titles = (res.data.list as { title: string }[]).map((p) => p.title);
      expect(titles.some((t) => t.includes(title)), `${q} → ${titles.join(' | ')}`).toBe(true);
    }
    const page = await raw(srv.url, `/ask/search/${encodeURIComponent('连接池')}`);
    expect(page.text).toContain('<mark>连接池</mark>');
  });

  it('moderation: only moderators; hidden and deleted posts leave lists and search but keep their rows', async () => {
    expect((await call('third', '/api/ask/moderate', { post_id: postId, action: 'hide' })).code).toBe(401);
    expect((await call('moder', '/api/ask/moderate', { post_id: postId, action: 'pin' })).code).toBe(1);
    expect((await call('moder', '/api/ask/moderate', { post_id: postId, action: 'hide' })).code).toBe(1);
    const latest = await get('/api/ask/index');
    expect((latest.data.list as { id: number }[]).map((p) => p.id)).not.toContain(postId);
    const found = await get(`/api/ask/search?keywords=${encodeURIComponent('数据库')}`);
    expect((found.data.list as { id: number }[]).map((p) => p.id)).not.toContain(postId);
    expect((await raw(srv.url, `/ask/info/${postId}`)).status).toBe(404);
    expect((await raw(srv.url, `/ask/info/${postId}`, { headers: { cookie: people.asker!.cookie } })).status).toBe(200);
    expect((await call('asker', '/api/ask/remove', { type: 'post', id: postId })).code).toBe(1);
    const [row] = await rt.db.select().from(askPost).where(eq(askPost.id, postId));
    expect(row!.status).toBe('deleted');
    expect((await raw(srv.url, `/ask/info/${postId}`, { headers: { cookie: people.asker!.cookie } })).status).toBe(404);
    expect((await raw(srv.url, `/ask/info/${postId}`, { headers: { cookie: people.moder!.cookie } })).status).toBe(200);
    expect((await call('moder', '/api/ask/moderate', { post_id: postId, action: 'restore' })).code).toBe(1);
    expect((await get('/api/ask/index')).data.list as { id: number }[]).toEqual(expect.arrayContaining([expect.objectContaining({ id: postId, pinned: true })]));
    const counts = await rt.db.execute(sql`select c.post_count, (select count(*)::int from ask_post p where p.category_id = c.id and p.status = 'published') as real from ask_category c`);
    for (const c of (counts as unknown as { rows: { post_count: number; real: number }[] }).rows) expect(c.post_count).toBe(c.real);
  });

  it('reports reach the moderators list, not the members', async () => {
    const [reply] = await rt.db.select().from(askReply).limit(1);
    expect((await call('third', '/api/ask/report', { type: 'reply', id: reply!.id, reason: 'Spam link' })).code).toBe(1);
    expect((await call('third', '/api/ask/report', { type: 'reply', id: reply!.id, reason: 'Spam link' })).msg).toMatch(/already reported/);
    expect((await get('/api/ask/reports', 'third')).code).toBe(401);
    const list = await get('/api/ask/reports', 'moder');
    expect((list.data.list as { reason: string }[]).map((r) => r.reason)).toContain('Spam link');
    const page = await raw(srv.url, '/user/ask/reports', { headers: { cookie: `${people.moder!.cookie}; ba-lang=en` } });
    expect(page.text).toContain('Spam link');
  });

  it('shows a new reply at once to an anonymous reader of a cached page', async () => {
    const { id } = await createPost(rt.db, people.third!.row.id, { title: 'Cache me if you can', category_id: discussion, content: 'Body', tags: [] });
    await rt.pageCache.invalidate(['ask']);
    const first = await raw(srv.url, `/ask/info/${id}`);
    expect(first.status).toBe(200);
    expect((await raw(srv.url, `/ask/info/${id}`)).headers['x-atrium-cache']).toBe('hit');
    expect((await call('moder', '/api/ask/reply', { post_id: id, content: 'A fresh reply nobody has seen', nonce: nonce() })).code).toBe(1);
    const second = await raw(srv.url, `/ask/info/${id}`);
    expect(second.text).toContain('A fresh reply nobody has seen');
  });

  it('lists published posts in the sitemap and the RSS feeds, never hidden ones', async () => {
    const shown = await createPost(rt.db, people.third!.row.id, { title: 'Sitemap & feed <visible>', category_id: question, content: 'Listed', tags: [] });
    const hidden = await createPost(rt.db, people.third!.row.id, { title: 'Hidden from crawlers', category_id: question, content: 'Not listed', tags: [] });
    await moderatePost(rt.db, 0, { post_id: hidden.id, action: 'hide' });
    await rt.pageCache.invalidate(['ask']);
    const sitemap = await raw(srv.url, '/sitemap.xml');
    expect(sitemap.status).toBe(200);
    expect(sitemap.headers['content-type']).toMatch(/xml/);
    expect(sitemap.text).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\s*<urlset xmlns="http:\/\/www.sitemaps.org\/schemas\/sitemap\/0.9">/);
    expect(sitemap.text).toContain(`/ask/info/${shown.id}</loc>`);
    expect(sitemap.text).not.toContain(`/ask/info/${hidden.id}</loc>`);
    for (const path of ['/ask/feed.xml', '/ask/feed/question.xml']) {
      const feed = await raw(srv.url, path, { headers: { 'accept-language': 'en' } });
      expect(feed.status, path).toBe(200);
      expect(feed.text).toMatch(/<rss version="2.0"[^>]*>\s*<channel>/);
      const items = feed.text.split('<item>').slice(1);
      expect(items.length).toBeGreaterThan(0);
      for (const item of items) expect(item).toMatch(/<title>[\s\S]*<\/title>[\s\S]*<link>[\s\S]*<guid[\s\S]*<pubDate>\w{3}, \d{2} \w{3} \d{4}/);
      expect(feed.text).toContain('Sitemap &amp; feed &lt;visible&gt;');
      expect(feed.text).not.toContain('Hidden from crawlers');
    }
    expect((await raw(srv.url, '/ask/feed/no-such-category.xml')).status).toBe(404);
    const robots = await raw(srv.url, '/robots.txt');
    expect(robots.text).toMatch(/Sitemap: http:\/\/127\.0\.0\.1:\d+\/sitemap\.xml/);
  });

  it('answers 404 for unknown list types and ids', async () => {
    expect((await raw(srv.url, '/ask/lists/nothing/1')).status).toBe(404);
    expect((await raw(srv.url, '/ask/lists/category/99999')).status).toBe(404);
    expect((await raw(srv.url, '/ask/lists/tag/99999')).status).toBe(404);
    expect((await raw(srv.url, `/ask/lists/user/${people.helper!.row.id}`)).status).toBe(200);
    expect((await raw(srv.url, '/ask/info/99999')).status).toBe(404);
  });
});

describe('counters and search on the database engines', () => {
  async function exercise(db: Runtime['db']): Promise<void> {
    const author = await createUser(db, { username: `au${Date.now().toString(36)}`, password: 'forum123' });
    const cats = await db.select().from(askCategory);
    const q = cats.find((c) => c.slug === 'question')!.id;
    const { id } = await createPost(db, author.id, { title: '数据库连接池的最佳实践', category_id: q, content: 'Tuning the connection pool of PostgreSQL', tags: ['数据库'] });
    const voters = await Promise.all(Array.from({ length: 50 }, (_, i) => createUser(db, { username: `v${i}x${Date.now().toString(36)}`.slice(0, 15), password: 'forum123' })));
    await Promise.all(voters.map((v) => vote(db, v.id, 'post', id, 1)));
    await Promise.all(voters.slice(0, 10).map((v) => vote(db, v.id, 'post', id, 1)));
    const [row] = await db.select().from(askPost).where(eq(askPost.id, id));
    expect(row!.upCount).toBe(40);
    for (const keywords of ['数据库', '连接', '连接池', 'pool', 'pooling', 'PostgreSQL', 'tuning']) {
      const found = await searchPosts(db, { keywords, sort: 'relevance', page: 1, limit: 20 });
      expect(found.list.map((p) => p.id), keywords).toContain(id);
    }
    await moderatePost(db, 0, { post_id: id, action: 'delete' });
    const gone = await searchPosts(db, { keywords: '数据库', sort: 'relevance', page: 1, limit: 20 });
    expect(gone.list.map((p) => p.id)).not.toContain(id);
  }

  it('PGlite: 50 concurrent votes, toggling, recall and soft delete', async () => {
    await exercise(rt.db);
  });

  it.runIf(process.env.TEST_DATABASE_URL)('PostgreSQL: the same', async () => {
    const pg = await createRuntime(readConfig({ ATRIUM_ROOT: ROOT, DATABASE_URL: await freshPostgres(), DATABASE_POOL_SIZE: '20', LOG_LEVEL: 'warn' }));
    try {
      await exercise(pg.db);
    } finally {
      await pg.close();
    }
  }, scaled(60_000));
});
