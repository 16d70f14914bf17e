// Books run from the browser (issue 28 item 6): created, set up, given editors, archived, restored and
// deleted through /api/md/book* (members whose group holds `md/book`, on their own books) and the
// console's /api/admin/book* (every book, with audit rows). Who may call, what the server refuses and
// in which words, and what the index, search, sitemap, reader and editor show afterwards.
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../src/lib/server/runtime';
import { createUser, type UserRow } from '../../src/lib/server/account/users';
import { ADMIN_GROUP, MEMBER_GROUP } from '../../src/lib/server/site/seed';
import { adminLog, mdBook, mdPage, mdRevision, mdSection, userGroup, userRule } from '../../src/lib/server/db/schema';
import { installModule } from '../../src/lib/server/modules/installs';
import { startInProcess, type InProcessServer } from '../helpers/in-process';
import { loginAs } from '../helpers/members';
import { postJson, raw } from '../helpers/server';
import { scaled } from '../helpers/time-scale.mjs';

type Env = { code: number; msg: string; data: Record<string, unknown> | null };

let srv: InProcessServer;
let rt: Runtime;
const people: Record<string, { row: UserRow; token: string; cookie: string }> = {};

async function member(name: string, groupId: number): Promise<void> {
  const row = await createUser(rt.db, { username: name, password: 'books1234', groupId });
  const s = await loginAs(srv.url, rt, name, 'books1234');
  people[name] = { row, token: s.token, cookie: s.cookie };
}
const headers = (name: string | null, lang = 'en'): Record<string, string> => (name ? { 'ba-user-token': people[name]!.token, 'think-lang': lang } : { 'think-lang': lang });
const call = async (name: string | null, path: string, body: unknown, lang = 'en'): Promise<Env> => (await postJson(srv.url, path, body, headers(name, lang))).json<Env>();
const get = async (name: string | null, path: string): Promise<Env> => (await raw(srv.url, path, { headers: headers(name) })).json<Env>();
/** A page as a visitor (the shared cached copy) or as a member, in English. */
const page = (path: string, name?: string) => raw(srv.url, path, { headers: { cookie: name ? `${people[name]!.cookie}; ba-lang=en` : 'ba-lang=en' } });
const fields = (env: Env): Record<string, string> => (env.data as { fields?: Record<string, string> } | null)?.fields ?? {};
const audit = async (action: string, target: string) => rt.db.select().from(adminLog).where(and(eq(adminLog.action, action), eq(adminLog.target, target)));

beforeAll(async () => {
  srv = await startInProcess();
  rt = srv.runtime;
  await installModule(rt.db, 'editor');
  // Writers: the member rules plus `md/book`, the rule the seed adds for creating books.
  const [rule] = await rt.db.select({ id: userRule.id }).from(userRule).where(eq(userRule.name, 'md/book'));
  const [members] = await rt.db.select({ rules: userGroup.rules }).from(userGroup).where(eq(userGroup.id, MEMBER_GROUP));
  const [writers] = await rt.db.insert(userGroup).values({ name: 'Writers', rules: [members!.rules, rule?.id].filter(Boolean).join(','), status: 1, createTime: 0, updateTime: 0 }).returning({ id: userGroup.id });
  await member('writer', writers!.id);
  await member('helper', MEMBER_GROUP);
  await member('plain', MEMBER_GROUP);
  await member('boss', ADMIN_GROUP);
}, scaled(120_000));

afterAll(async () => { await srv?.stop(); });

describe('the rule to create books', () => {
  it('is seeded, held by administrators and not by members', async () => {
    const [rule] = await rt.db.select().from(userRule).where(eq(userRule.name, 'md/book'));
    expect(rule).toBeTruthy();
    const [members] = await rt.db.select({ rules: userGroup.rules }).from(userGroup).where(eq(userGroup.id, MEMBER_GROUP));
    expect(members!.rules.split(',')).not.toContain(String(rule!.id));
    const [admins] = await rt.db.select({ rules: userGroup.rules }).from(userGroup).where(eq(userGroup.id, ADMIN_GROUP));
    expect(admins!.rules).toBe('*');
  });

  it('refuses visitors, members without it, and console calls from those without the books section', async () => {
    const routes: [string, unknown][] = [
      ['/api/md/bookCreate', { name: 'nope', title: 'Nope' }],
      ['/api/md/bookSave', { name: 'guide', title_en: 'Mine' }],
      ['/api/md/bookEditor', { name: 'guide', user_id: people.plain!.row.id }],
      ['/api/md/bookArchive', { name: 'guide', archive: 1 }],
      ['/api/md/bookDelete', { name: 'guide', confirm: 'guide' }],
    ];
    for (const [path, body] of routes) {
      expect((await call(null, path, body)).code, `${path} as a visitor`).toBe(303);
      const refused = await call('plain', path, body);
      expect(refused.code, `${path} as a member`).toBe(401);
    }
    for (const path of ['/api/admin/bookCreate', '/api/admin/bookArchive', '/api/admin/bookDelete', '/api/admin/books', '/api/admin/bookEditor']) {
      expect((await call('writer', path, { name: 'guide', title: 'X', archive: 1, confirm: 'guide', user_id: 1 })).code, `${path} as a writer`).toBe(401);
    }
    // Nothing happened to the guide.
    const [guide] = await rt.db.select().from(mdBook).where(eq(mdBook.name, 'guide'));
    expect(guide!.archiveTime).toBe(0);
    // The management page: the permission page for a plain member, the login page for a visitor.
    expect((await page('/md/edit', 'plain')).status).toBe(403);
    expect((await page('/md/edit')).status).toBe(302);
    expect((await page('/md/edit', 'writer')).status).toBe(200);
    // The index offers the page only to those who may use it.
    expect((await page('/md', 'writer')).text).toContain('href="/md/edit"');
    expect((await page('/md', 'plain')).text).not.toContain('href="/md/edit"');
  });

  it("lets a writer run only the books they own, and name nobody else as owner", async () => {
    expect((await call('writer', '/api/md/bookSave', { name: 'guide', title_en: 'Taken over' })).code).toBe(0);
    expect((await call('writer', '/api/md/bookArchive', { name: 'guide', archive: 1 })).msg).toBe('The book does not exist');
    const other = await call('writer', '/api/md/bookCreate', { name: 'for-boss', title: '给老板', owner: 'boss' });
    expect(other.code).toBe(401);
    expect(await rt.db.select().from(mdBook).where(eq(mdBook.name, 'for-boss'))).toEqual([]);
  });
});

describe('validation', () => {
  it('answers each wrong field with a message that says what is wanted', async () => {
    const bad = await call('writer', '/api/md/bookCreate', { name: '-bad name', title: '' });
    expect(bad.code).toBe(0);
    expect(fields(bad)).toEqual({
      name: 'A book name is 1 to 100 letters, digits, . _ or -, starting with a letter or digit',
      title: 'The Chinese title must be 1 to 120 characters',
    });
    const long = await call('writer', '/api/md/bookCreate', { name: 'ok', title: 'x'.repeat(121), title_en: 'y'.repeat(121), description: 'z'.repeat(501), visibility: 'secret', lang: 'fr' });
    expect(Object.keys(fields(long)).sort()).toEqual(['description', 'lang', 'title', 'title_en', 'visibility']);
    expect(fields(long).visibility).toBe('Choose everyone or members only');
    // In Chinese too.
    const zh = await call('writer', '/api/md/bookCreate', { name: 'a b', title: '标题' }, 'zh-cn');
    expect(fields(zh).name).toBe('书籍标识为 1 到 100 个字母、数字或 . _ -，以字母或数字开头');
    // Ids in range; unknown fields refused.
    expect((await call('boss', '/api/md/bookEditor', { name: 'guide', user_id: 2_147_483_648 })).code).toBe(0);
    expect((await call('boss', '/api/md/bookEditor', { name: 'guide', user_id: 0 })).code).toBe(0);
    expect((await call('boss', '/api/md/bookArchive', { name: 'guide', archive: 2 })).code).toBe(0);
    expect((await call('boss', '/api/md/bookCreate', { name: 'x1', title: 'X', weigh: 5 })).code).toBe(0);
    expect(await rt.db.select().from(mdBook).where(eq(mdBook.name, 'x1'))).toEqual([]);
  });

  it('refuses a taken or reserved name, whatever its letter case, and an unknown account', async () => {
    for (const name of ['Guide', 'edit', 'SEARCH']) {
      const taken = await call('writer', '/api/md/bookCreate', { name, title: 'Dup' });
      expect(fields(taken), name).toEqual({ name: 'This name is already taken' });
    }
    const nobody = await call('boss', '/api/admin/bookCreate', { name: 'orphan', title: 'Orphan', owner: 'no-such-member' });
    expect(fields(nobody)).toEqual({ owner: 'No member has this account' });
    const noEditor = await call('boss', '/api/admin/books', { name: 'guide', editor: 'no-such-member' });
    expect(fields(noEditor)).toEqual({ editor: 'No member has this account' });
  });
});

describe('a book from creation to deletion', () => {
  it('is created by a writer, shows in the index at once in both titles, and gets an editor who writes a page', async () => {
    expect((await page('/md')).text).not.toContain('Field notes'); // the visitors' copy is cached now
    const made = await call('writer', '/api/md/bookCreate', { name: 'field-notes', title: '野外笔记', title_en: 'Field notes', description: 'Notes', visibility: 'public' });
    expect(made).toMatchObject({ code: 1, msg: 'Book created', data: { name: 'field-notes' } });
    const [book] = await rt.db.select().from(mdBook).where(eq(mdBook.name, 'field-notes'));
    expect(book).toMatchObject({ ownerId: people.writer!.row.id, title: '野外笔记', titleEn: 'Field notes', archiveTime: 0 });
    expect((await page('/md')).text).toContain('Field notes');
    expect((await raw(srv.url, '/md', { headers: { cookie: 'ba-lang=zh-cn' } })).text).toContain('野外笔记');
    expect((await audit('book:create', 'field-notes')).length).toBe(1);

    // The editor cannot write before they are chosen.
    expect((await call('helper', '/api/md/create', { book: 'field-notes', name: 'day-1', title: 'Day 1' })).code).toBe(401);
    const chosen = await call('writer', '/api/md/bookSave', { name: 'field-notes', editor: 'helper', description: 'Notes from the field' });
    expect(chosen).toMatchObject({ code: 1, msg: 'Book saved' });
    const edit = await audit('book:edit', 'field-notes');
    expect(JSON.parse(edit[0]!.after)).toEqual({ description: 'Notes from the field', addedEditor: 'helper' });
    expect(JSON.parse(edit[0]!.before)).toEqual({ description: 'Notes' });
    const created = await call('helper', '/api/md/create', { book: 'field-notes', name: 'day-1', title: 'Day 1' });
    expect(created.code).toBe(1);
    const saved = await call('helper', '/api/md/save', { book: 'field-notes', name: 'day-1', title: 'Day 1', content: '## Camp\n\nA heron by the zanderlake.', base_revision: (created.data as { revision_id: number }).revision_id });
    expect(saved.code).toBe(1);
    expect((await page('/md/field-notes/day-1')).text).toContain('zanderlake');
    expect(((await get(null, '/api/md/search?q=zanderlake')).data as { total: number }).total).toBe(1);
  });

  it('when archived is read-only and gone from the index, search, sitemap and feeds, but still readable; restoring brings it back', async () => {
    const sitemap = async () => (await page('/sitemap/md-pages-1.xml')).text;
    expect(await sitemap()).toContain('/md/field-notes/day-1');
    // The home page's recent docs (a Chinese book: first for Chinese readers).
    const home = async () => (await raw(srv.url, '/', { headers: { cookie: 'ba-lang=zh-cn' } })).text;
    expect(await home()).toContain('/md/field-notes/day-1');
    const archived = await call('writer', '/api/md/bookArchive', { name: 'field-notes', archive: 1 });
    expect(archived).toMatchObject({ code: 1, msg: 'Book archived: read-only, and hidden from the docs index, search and the sitemap' });
    expect((await audit('book:archive', 'field-notes')).length).toBe(1);

    expect((await page('/md')).text).not.toContain('Field notes');
    expect((await page('/md', 'helper')).text).not.toContain('Field notes');
    const list = (await get('helper', '/api/md/books')).data as { list: { name: string }[] };
    expect(list.list.map((b) => b.name)).not.toContain('field-notes');
    expect(((await get('helper', '/api/md/search?q=zanderlake')).data as { total: number }).total).toBe(0);
    expect((await page('/md/search?q=zanderlake')).text).not.toContain('/md/field-notes/day-1');
    expect(await sitemap()).not.toContain('/md/field-notes');
    expect(await home()).not.toContain('/md/field-notes/day-1');

    // Still readable by its address, marked archived, not indexed, without an edit link.
    const reader = await page('/md/field-notes/day-1', 'helper');
    expect(reader.status).toBe(200);
    expect(reader.text).toContain('This book is archived: it can be read but not edited.');
    expect(reader.text).toMatch(/<meta name="robots" content="noindex/);
    expect(reader.text).not.toContain('/md/edit/field-notes/day-1');
    // Read-only: the editor refuses every write, and its page says why.
    const refused = await call('helper', '/api/md/save', { book: 'field-notes', name: 'day-1', title: 'Day 1', content: 'Changed', base_revision: 0 });
    expect(refused).toMatchObject({ code: 0, msg: 'This book is archived: it is read-only until it is restored' });
    expect((await call('helper', '/api/md/create', { book: 'field-notes', name: 'day-2', title: 'Day 2' })).msg).toBe('This book is archived: it is read-only until it is restored');
    expect((await call('boss', '/api/md/delete', { book: 'field-notes', name: 'day-1' })).msg).toBe('This book is archived: it is read-only until it is restored');
    const editor = await page('/md/edit/field-notes/day-1', 'helper');
    expect(editor.status).toBe(409);
    expect(editor.text).toContain('This book is archived');
    // Someone who could never edit it still gets no more than before.
    expect((await call('plain', '/api/md/save', { book: 'field-notes', name: 'day-1', title: 'x', content: 'x', base_revision: 0 })).code).toBe(401);
    // Its owner still sees it on the management page, to restore it.
    expect((await page('/md/edit', 'writer')).text).toContain('data-book="field-notes"');

    const restored = await call('writer', '/api/md/bookArchive', { name: 'field-notes', archive: 0 });
    expect(restored).toMatchObject({ code: 1, msg: 'Book restored' });
    expect((await audit('book:restore', 'field-notes')).length).toBe(1);
    expect((await page('/md')).text).toContain('Field notes');
    expect(((await get(null, '/api/md/search?q=zanderlake')).data as { total: number }).total).toBe(1);
    expect(await sitemap()).toContain('/md/field-notes/day-1');
    expect((await page('/md/field-notes/day-1', 'helper')).text).toContain('/md/edit/field-notes/day-1');
  });

  it('loses an editor through the console, with an audit row', async () => {
    const removed = await call('boss', '/api/admin/bookEditor', { name: 'field-notes', user_id: people.helper!.row.id });
    expect(removed.code).toBe(1);
    expect((await audit('book:editor-remove', 'field-notes')).length).toBe(1);
    expect((await call('helper', '/api/md/create', { book: 'field-notes', name: 'day-3', title: 'Day 3' })).code).toBe(401);
  });

  it('is deleted only with its name typed again, with its pages and their history', async () => {
    const unconfirmed = await call('writer', '/api/md/bookDelete', { name: 'field-notes', confirm: 'field-note' });
    expect(unconfirmed.code).toBe(0);
    expect(fields(unconfirmed)).toEqual({ confirm: "Type the book's name exactly to confirm the deletion" });
    const [book] = await rt.db.select().from(mdBook).where(eq(mdBook.name, 'field-notes'));
    const revisions = await rt.db.select().from(mdRevision).where(eq(mdRevision.bookId, book!.id));
    expect(revisions.length).toBe(2);

    const deleted = await call('writer', '/api/md/bookDelete', { name: 'field-notes', confirm: 'Field-Notes' });
    expect(deleted).toMatchObject({ code: 1, msg: 'Book deleted with 1 page and 2 saved versions', data: { pages: 1, revisions: 2 } });
    for (const table of [mdPage, mdRevision, mdSection] as const) {
      expect(await rt.db.select().from(table).where(eq(table.bookId, book!.id))).toEqual([]);
    }
    expect(await rt.db.select().from(mdBook).where(eq(mdBook.id, book!.id))).toEqual([]);
    expect((await page('/md/field-notes/day-1')).status).toBe(404);
    expect((await page('/md')).text).not.toContain('Field notes');
    const row = await audit('book:delete', 'field-notes');
    expect(JSON.parse(row[0]!.before)).toEqual({ title: '野外笔记', pages: 1, revisions: 2 });
    // The name is free again.
    expect((await call('writer', '/api/md/bookCreate', { name: 'field-notes', title: '新的笔记' })).code).toBe(1);
  });
});

describe('the console', () => {
  it('creates a book for another owner, edits, archives, restores and deletes it, each with an audit row', async () => {
    const made = await call('boss', '/api/admin/bookCreate', { name: 'handbook', title: '手册', owner: 'writer', visibility: 'members' });
    expect(made.code).toBe(1);
    const [book] = await rt.db.select().from(mdBook).where(eq(mdBook.name, 'handbook'));
    expect(book).toMatchObject({ ownerId: people.writer!.row.id, visibility: 'members' });
    // The owner runs it from /md/edit too.
    expect((await call('writer', '/api/md/bookSave', { name: 'handbook', title_en: 'Handbook' })).code).toBe(1);
    expect((await call('boss', '/api/admin/books', { name: 'handbook', visibility: 'public', owner: 'boss' })).code).toBe(1);
    const [moved] = await rt.db.select().from(mdBook).where(eq(mdBook.name, 'handbook'));
    expect(moved).toMatchObject({ ownerId: people.boss!.row.id, visibility: 'public', titleEn: 'Handbook' });
    // No longer the writer's to run.
    expect((await call('writer', '/api/md/bookArchive', { name: 'handbook', archive: 1 })).code).toBe(0);
    expect((await call('boss', '/api/admin/bookArchive', { name: 'handbook', archive: 1 })).code).toBe(1);
    expect((await call('boss', '/api/admin/bookArchive', { name: 'handbook', archive: 0 })).code).toBe(1);
    expect((await call('boss', '/api/admin/bookDelete', { name: 'handbook', confirm: 'handbook' })).code).toBe(1);
    const actions = (await rt.db.select().from(adminLog).where(eq(adminLog.target, 'handbook'))).map((r) => `${r.username} ${r.action}`);
    expect(actions).toEqual(['boss book:create', 'writer book:edit', 'boss book:edit', 'boss book:archive', 'boss book:restore', 'boss book:delete']);
    const page404 = await get('boss', '/api/admin/books');
    expect((page404.data as { list: { name: string }[] }).list.map((b) => b.name)).not.toContain('handbook');
  });

  it('shows the book forms in both languages', async () => {
    const en = await page('/admin/books', 'boss');
    expect(en.status).toBe(200);
    expect(en.text).toContain('New book');
    expect(en.text).toContain('Delete for good');
    const zh = await raw(srv.url, '/admin/books', { headers: { cookie: `${people.boss!.cookie}; ba-lang=zh-cn` } });
    expect(zh.text).toContain('新建书籍');
    expect(zh.text).toContain('永久删除');
  });
});
