// Documents through the HTTP API and the reader pages on PGlite (in process, so the test can set
// up books with the same services the product uses).
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../src/lib/server/runtime';
import { createUser, type UserRow } from '../../src/lib/server/account/users';
import { ADMIN_GROUP } from '../../src/lib/server/site/seed';
import { mdBook, mdRevision } from '../../src/lib/server/db/schema';
import { addEditor, createBook } from '../../src/lib/server/md/books';
import { createPage } from '../../src/lib/server/md/pages';
import { exportBook, importBook } from '../../src/lib/server/md/transfer';
import { readFolder, writeFolder } from '../../src/lib/server/md/folder';
import { installModule } from '../../src/lib/server/modules/installs';
import { startInProcess, type InProcessServer } from '../helpers/in-process';
import { loginAs } from '../helpers/members';
import { postJson, raw } from '../helpers/server';
import { ROOT, TMP } from '../helpers/paths';
import { scaled } from '../helpers/time-scale.mjs';

type Env = { code: number; msg: string; data: Record<string, unknown> };
const EN = { 'think-lang': 'en' };

let srv: InProcessServer;
let rt: Runtime;
const people: Record<string, { row: UserRow; token: string; cookie: string }> = {};

async function member(name: string, groupId = 1): Promise<void> {
  const row = await createUser(rt.db, { username: name, password: 'docs1234', groupId });
  const s = await loginAs(srv.url, rt, name, 'docs1234');
  people[name] = { row, token: s.token, cookie: s.cookie };
}
const as = (name: string | null): Record<string, string> => (name ? { 'ba-user-token': people[name]!.token, ...EN } : EN);
const call = async (name: string | null, path: string, body: unknown): Promise<Env> => (await postJson(srv.url, path, body, as(name))).json<Env>();
const get = async (name: string | null, path: string): Promise<Env> => (await raw(srv.url, path, { headers: as(name) })).json<Env>();
const page = (path: string, name?: string) => raw(srv.url, path, { headers: name ? { cookie: `${people[name]!.cookie}; ba-lang=en` } : { cookie: 'ba-lang=en' } });

beforeAll(async () => {
  srv = await startInProcess();
  rt = srv.runtime;
  await installModule(rt.db, 'editor');
  await member('owner');
  await member('helper');
  await member('reader');
  await member('admin', ADMIN_GROUP);
  const book = await createBook(rt.db, { name: 'handbook', title: 'Team handbook', ownerId: people.owner!.row.id });
  await addEditor(rt.db, book.id, people.helper!.row.id);
  const intro = await createPage(rt.db, { bookId: book.id, name: 'intro', title: 'Introduction', content: '## Welcome\n\nFirst words.\n\n## 数据库连接池\n\n连接池的大小怎么定？', authorId: people.owner!.row.id });
  await createPage(rt.db, { bookId: book.id, name: 'setup', title: 'Setup', content: 'Install it.', authorId: people.owner!.row.id });
  await createPage(rt.db, { bookId: book.id, name: 'details', title: 'Details', parentId: intro.id, content: 'Deep dive.', authorId: people.owner!.row.id });
  const secret = await createBook(rt.db, { name: 'internal', title: 'Internal notes', visibility: 'members', ownerId: people.owner!.row.id });
  await createPage(rt.db, { bookId: secret.id, name: 'plans', title: 'Plans', content: '## Roadmap\n\nConfidential zebra roadmap.', authorId: people.owner!.row.id });
}, scaled(120_000));

afterAll(async () => { await srv?.stop(); });

describe('first start', () => {
  it('ships the user guide as books in both languages', async () => {
    const books = await rt.db.select().from(mdBook);
    expect(books.map((b) => b.name)).toEqual(expect.arrayContaining(['guide', 'guide-en']));
    expect(books.find((b) => b.name === 'guide')!.pageCount).toBeGreaterThan(5);
    const res = await page('/md/guide-en');
    expect(res.status).toBe(302);
    const first = await page(String(res.headers.location));
    expect(first.status).toBe(200);
    expect(first.text).toContain('class="markdown-body"');
  });

  it('is one guide in two translations: each reader lands on theirs and can switch', async () => {
    // An English reader at the Chinese guide goes to the English one, the same page when it exists.
    expect((await page('/md/guide')).headers.location).toBe('/md/guide-en');
    expect((await page('/md/guide/install')).headers.location).toBe('/md/guide-en/install');
    const zh = { headers: { cookie: 'ba-lang=zh-cn' } };
    expect((await raw(srv.url, '/md/guide-en/install', zh)).headers.location).toBe('/md/guide/install');
    // A page neither translation has is a 404 for both readers, not the other book's first page.
    expect((await page('/md/guide/nope')).status).toBe(404);
    expect((await raw(srv.url, '/md/guide-en/nope', zh)).status).toBe(404);
    expect((await raw(srv.url, '/md/guide/nope', zh)).status).toBe(404);
    // Each reads in its own language, with the way across through the language switch.
    const en = await page('/md/guide-en/install');
    expect(en.status).toBe(200);
    expect(en.text).toMatch(/data-action="set-language" data-locale="zh-cn" lang="zh-cn">阅读中文版</);
    const cn = await raw(srv.url, '/md/guide/install', zh);
    expect(cn.text).toMatch(/data-action="set-language" data-locale="en" lang="en">Read in English</);
    // The docs index lists the reader's translation only.
    const index = await page('/md');
    expect(index.text).toContain('href="/md/guide-en"');
    expect(index.text).not.toContain('href="/md/guide"');
    // The history's first message is in the book's language.
    const rows = await rt.db.selectDistinct({ lang: mdBook.lang, message: mdRevision.message }).from(mdRevision)
      .innerJoin(mdBook, eq(mdBook.id, mdRevision.bookId)).where(inArray(mdBook.name, ['guide', 'guide-en']));
    expect(rows.map((r) => `${r.lang}:${r.message}`).sort()).toEqual(['en:Guide shipped with Atrium', 'zh-cn:Atrium 自带的使用指南']);
  });
});

describe('permissions', () => {
  const writes: [string, Record<string, unknown>][] = [
    ['/api/md/save', { book: 'handbook', name: 'setup', title: 'Setup', content: 'x', base_revision: 1, message: '' }],
    ['/api/md/create', { book: 'handbook', name: 'new-page', title: 'New' }],
    ['/api/md/rename', { book: 'handbook', name: 'setup', new_name: 'setup-2' }],
    ['/api/md/move', { book: 'handbook', name: 'setup', direction: 'up' }],
    ['/api/md/delete', { book: 'handbook', name: 'setup' }],
    ['/api/md/restore', { book: 'handbook', name: 'setup', revision_id: 1 }],
  ];
  const reads = ['/api/md/page?book=handbook&name=setup', '/api/md/history?book=handbook&name=setup', '/api/md/revision?book=handbook&name=setup&ids=1'];

  it('asks visitors to log in and refuses members without rights, for every editing API', async () => {
    for (const [path, body] of writes) {
      const visitor = await call(null, path, body);
      expect(visitor.code, path).toBe(303);
      expect((visitor.data as { type: string }).type).toBe('need login');
      expect((await call('reader', path, body)).code, path).toBe(401);
    }
    for (const path of reads) {
      expect((await get(null, path)).code, path).toBe(303);
      expect((await get('reader', path)).code, path).toBe(401);
    }
  });

  it('lets the owner, listed editors and administrators edit', async () => {
    for (const who of ['owner', 'helper', 'admin']) {
      const res = await get(who, '/api/md/page?book=handbook&name=setup');
      expect(res.code, who).toBe(1);
    }
  });

  it('editor pages: visitors go to the login, members without rights get a permission error', async () => {
    const visitor = await page('/md/edit/handbook/setup');
    expect(visitor.status).toBe(302);
    expect(visitor.headers.location).toMatch(/^\/user\/login\?to=/);
    expect((await page('/md/edit/handbook/setup', 'reader')).status).toBe(403);
    expect((await page('/md/edit/handbook/setup', 'helper')).status).toBe(200);
    expect((await page('/md/edit/nobook/setup', 'helper')).status).toBe(404);
  });

  it('shows the edit link only to editors', async () => {
    expect((await page('/md/handbook/setup', 'helper')).text).toContain('/md/edit/handbook/setup');
    expect((await page('/md/handbook/setup', 'reader')).text).not.toContain('/md/edit/handbook/setup');
    expect((await page('/md/handbook/setup')).text).not.toContain('/md/edit/handbook/setup');
  });
});

describe('saving', () => {
  it('detects a conflict instead of overwriting, and saves on top of the newer revision', async () => {
    const start = await get('owner', '/api/md/page?book=handbook&name=setup');
    const base = (start.data as { revision_id: number }).revision_id;
    const theirs = await call('helper', '/api/md/save', { book: 'handbook', name: 'setup', title: 'Setup', content: 'Install it with npm.', base_revision: base, message: 'npm' });
    expect(theirs.code).toBe(1);
    const mine = await call('owner', '/api/md/save', { book: 'handbook', name: 'setup', title: 'Setup', content: 'Install it with care.', base_revision: base, message: 'care' });
    expect(mine.code).toBe(0);
    expect(mine.msg).toBe('Someone saved this page while you were editing');
    const conflict = (mine.data as { conflict: { revision_id: number; content: string; author: string } }).conflict;
    expect(conflict.content).toBe('Install it with npm.');
    expect(conflict.author).toBe('helper');
    const merged = await call('owner', '/api/md/save', { book: 'handbook', name: 'setup', title: 'Setup', content: 'Install it with npm, with care.', base_revision: conflict.revision_id, message: 'merge' });
    expect(merged.code).toBe(1);
  });

  it('shows a save to an anonymous reader at once (the cached page is dropped)', async () => {
    await rt.pageCache.invalidate(['md']);
    expect((await page('/md/handbook/setup')).status).toBe(200);
    expect((await page('/md/handbook/setup')).headers['x-atrium-cache']).toBe('hit');
    const current = await get('owner', '/api/md/page?book=handbook&name=setup');
    const saved = await call('owner', '/api/md/save', { book: 'handbook', name: 'setup', title: 'Setup', content: 'Fresh sentence 7731.', base_revision: (current.data as { revision_id: number }).revision_id, message: '' });
    expect(saved.code).toBe(1);
    expect((await page('/md/handbook/setup')).text).toContain('Fresh sentence 7731.');
  });

  it('restores an old revision as a new one', async () => {
    const history = await get('owner', '/api/md/history?book=handbook&name=setup');
    const list = (history.data as { list: { id: number }[] }).list;
    const oldest = list.at(-1)!;
    const restored = await call('owner', '/api/md/restore', { book: 'handbook', name: 'setup', revision_id: oldest.id });
    expect(restored.code).toBe(1);
    const after = await get('owner', '/api/md/history?book=handbook&name=setup');
    expect((after.data as { list: unknown[] }).list).toHaveLength(list.length + 1);
    const [first] = await rt.db.select().from(mdRevision).where(eq(mdRevision.id, oldest.id));
    expect((await get('owner', '/api/md/page?book=handbook&name=setup')).data).toMatchObject({ content: first!.content });
    const diff = await get('owner', `/api/md/revision?book=handbook&name=setup&ids=${oldest.id},${list[0]!.id}`);
    expect((diff.data as { list: unknown[] }).list).toHaveLength(2);
  });

  it('keeps links working after a rename (the old name redirects) and moves pages in the tree', async () => {
    expect((await call('owner', '/api/md/rename', { book: 'handbook', name: 'setup', new_name: 'getting-started' })).code).toBe(1);
    const old = await page('/md/handbook/setup');
    expect(old.status).toBe(301);
    expect(old.headers.location).toMatch(/\/md\/handbook\/getting-started$/);
    expect((await call('owner', '/api/md/move', { book: 'handbook', name: 'getting-started', direction: 'up' })).code).toBe(1);
    const tree = (await get(null, '/api/md/tree?book=handbook')).data.tree as { name: string; children: { name: string }[] }[];
    expect(tree.map((n) => n.name)).toEqual(['getting-started', 'intro']);
    expect((await call('owner', '/api/md/move', { book: 'handbook', name: 'getting-started', parent: 'intro' })).code).toBe(1);
    expect((await call('owner', '/api/md/move', { book: 'handbook', name: 'intro', parent: 'getting-started' })).msg).toBe('A page cannot move under itself or its own sub-pages');
    const moved = (await get(null, '/api/md/tree?book=handbook')).data.tree as { name: string; children: { name: string }[] }[];
    expect(moved[0]!.children.map((c) => c.name)).toEqual(['details', 'getting-started']);
    expect((await page('/md/handbook/setup')).status).toBe(301);
    expect((await call('owner', '/api/md/delete', { book: 'handbook', name: 'intro' })).msg).toBe('Delete or move its sub-pages first');
    expect((await call('owner', '/api/md/create', { book: 'handbook', name: 'Bad Name', title: 'x' })).code).toBe(0);
    expect((await call('owner', '/api/md/create', { book: 'handbook', name: 'faq', title: 'FAQ', parent: 'intro' })).code).toBe(1);
    expect((await call('owner', '/api/md/delete', { book: 'handbook', name: 'faq' })).code).toBe(1);
    expect((await page('/md/handbook/faq')).status).toBe(404);
  });
});

describe('members-only books', () => {
  it('are hidden from visitors in the index, pages, search and sitemap, and shown to members', async () => {
    await rt.pageCache.invalidate(['md', 'site']);
    expect((await page('/md')).text).not.toContain('Internal notes');
    expect((await page('/md', 'reader')).text).toContain('Internal notes');
    expect((await page('/md/internal/plans')).status).toBe(404);
    expect((await page('/md/internal/plans', 'reader')).status).toBe(200);
    const visitorSearch = await get(null, '/api/md/search?q=zebra');
    expect((visitorSearch.data as { total: number }).total).toBe(0);
    const memberSearch = await get('reader', '/api/md/search?q=zebra');
    expect((memberSearch.data as { list: { page: string; anchor: string }[] }).list[0]).toMatchObject({ page: 'plans', anchor: 'roadmap' });
    expect((await page('/md/search?q=zebra')).text).not.toContain('Confidential');
    const sitemap = await raw(srv.url, '/sitemap.xml');
    expect(sitemap.text).toContain('/md/handbook/intro');
    expect(sitemap.text).not.toContain('/md/internal/');
  });

  it('search finds a Chinese phrase and links to its heading', async () => {
    const res = await get(null, `/api/md/search?q=${encodeURIComponent('连接池')}`);
    const hit = (res.data as { list: { book: string; page: string; anchor: string; snippetHtml: string }[] }).list.find((h) => h.book === 'handbook');
    expect(hit).toMatchObject({ page: 'intro', anchor: '数据库连接池' });
    expect(hit!.snippetHtml).toContain('<mark>连接池</mark>');
  });
});

describe('import and export', () => {
  it('round-trips the shipped guide without loss', async () => {
    const original = await readFolder(join(ROOT, 'docs', 'en'));
    await importBook(rt.db, 'roundtrip', original, { title: 'Round trip' });
    const exported = await exportBook(rt.db, 'roundtrip');
    expect(exported).toEqual(original);
    const dir = mkdtempSync(join(TMP, 'md-export-'));
    try {
      await writeFolder(dir, exported!);
      const again = await readFolder(dir);
      expect(again).toEqual(exported);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
