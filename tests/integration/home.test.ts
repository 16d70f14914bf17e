// The home page as a community front page, and the member card as a profile: what they list, that
// visitors get them from the page cache, and that a change in the forum, docs or market drops them.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../src/lib/server/runtime';
import { createUser, type UserRow } from '../../src/lib/server/account/users';
import { askCategory, module, userSignIn } from '../../src/lib/server/db/schema';
import { createPost } from '../../src/lib/server/ask/posts';
import { createBook } from '../../src/lib/server/md/books';
import { createPage } from '../../src/lib/server/md/pages';
import { moduleText } from '../../src/lib/server/market/text';
import { installModule } from '../../src/lib/server/modules/installs';
import { signInMonth } from '../../src/lib/server/account/sign-in-month';
import { formatDate } from '../../src/lib/shared/date';
import { startInProcess, type InProcessServer } from '../helpers/in-process';
import { loginAs } from '../helpers/members';
import { postJson, raw, type RawResponse } from '../helpers/server';
import { scaled } from '../helpers/time-scale.mjs';

let srv: InProcessServer;
let rt: Runtime;
let question = 0;
const people: Record<string, { row: UserRow; token: string; cookie: string }> = {};

async function member(name: string): Promise<void> {
  const row = await createUser(rt.db, { username: name, password: 'home1234' });
  // Past the new-member limits.
  await rt.db.execute(sql`update "user" set join_time = join_time - 200000 where id = ${row.id}`);
  const s = await loginAs(srv.url, rt, name, 'home1234');
  people[name] = { row, token: s.token, cookie: s.cookie };
}

async function call(name: string, path: string, body: unknown): Promise<{ code: number; msg: string; data: { id?: number } }> {
  return (await postJson(srv.url, path, body, { 'ba-user-token': people[name]!.token, 'think-lang': 'en' })).json();
}

/** A page as an English-reading visitor. */
const visit = (path: string): Promise<RawResponse> => raw(srv.url, path, { headers: { cookie: 'ba-lang=en' } });

/** The HTML of one section of the home page, found by its heading's id. */
function section(html: string, id: string): string {
  const start = html.indexOf(`id="${id}"`);
  expect(start).toBeGreaterThan(-1);
  const end = html.indexOf('</section>', start);
  return html.slice(start, end);
}

let seq = 0;
const nonce = (): string => `home-${++seq}-${Date.now()}`;

beforeAll(async () => {
  srv = await startInProcess();
  rt = srv.runtime;
  await installModule(rt.db, 'editor');
  question = (await rt.db.select().from(askCategory)).find((c) => c.slug === 'question')!.id;
  await member('asker');
  await member('answerer');
}, scaled(120_000));

afterAll(async () => { await srv?.stop(); });

describe('the home page', () => {
  it('shows a new question at once, in the latest and the unsolved lists, although visitors get it from the cache', async () => {
    const first = await visit('/');
    expect(first.status).toBe(200);
    expect(first.text).toContain('Latest questions');
    expect((await visit('/')).headers['x-atrium-cache']).toBe('hit');

    const made = await call('asker', '/api/ask/post', { title: 'Where does the home page <b>cache</b> live?', category_id: question, content: 'Asking for a friend.', nonce: nonce() });
    expect(made.code).toBe(1);
    const after = await visit('/');
    expect(after.headers['x-atrium-cache']).not.toBe('hit');
    const latest = section(after.text, 'home-latest');
    expect(latest).toContain(`href="/ask/info/${made.data.id}"`);
    expect(latest).toContain('Where does the home page &lt;b&gt;cache&lt;/b&gt; live?');
    expect(latest).toContain(`href="/user/card/${people.asker!.row.id}"`);
    expect(section(after.text, 'home-unsolved')).toContain(`href="/ask/info/${made.data.id}"`);
    expect(after.text).toContain('href="/ask?tab=unsolved"');

    // Once answered and accepted it leaves the unsolved list and carries the success badge.
    const reply = await call('answerer', '/api/ask/reply', { post_id: made.data.id, content: 'In memory, per host, path, locale and theme.', nonce: nonce() });
    expect(reply.code).toBe(1);
    expect((await call('asker', '/api/ask/accept', { reply_id: reply.data.id })).code).toBe(1);
    const solved = await visit('/');
    expect(section(solved.text, 'home-unsolved')).not.toContain(`href="/ask/info/${made.data.id}"`);
    expect(section(solved.text, 'home-latest')).toMatch(new RegExp(`href="/ask/info/${made.data.id}"[^>]*>\\s*<span class="badge badge-solved">Solved</span>`));
  });

  it('lists recently updated docs pages of public books only, and follows a save through the API', async () => {
    const owner = people.asker!.row.id;
    const open = await createBook(rt.db, { name: 'home-open', title: 'Open handbook', lang: 'en', ownerId: owner });
    const closed = await createBook(rt.db, { name: 'home-closed', title: 'Members handbook', lang: 'en', ownerId: owner, visibility: 'members' });
    const page = await createPage(rt.db, { bookId: open.id, name: 'start', title: 'Getting started here', content: 'Hello.', authorId: owner });
    await createPage(rt.db, { bookId: closed.id, name: 'secret', title: 'Members only page', content: 'Hush.', authorId: owner });
    await rt.pageCache.invalidate(['md']);
    const before = await visit('/');
    const docs = section(before.text, 'home-docs');
    expect(docs).toContain('href="/md/home-open/start"');
    expect(docs).toContain('Getting started here');
    expect(docs).not.toContain('Members only page');
    expect((await visit('/')).headers['x-atrium-cache']).toBe('hit');

    const saved = await call('asker', '/api/md/save', { book: 'home-open', name: 'start', title: 'Getting started, revised', content: 'Hello again.', base_revision: page.revisionId, message: 'retitle' });
    expect(saved.code).toBe(1);
    const after = section((await visit('/')).text, 'home-docs');
    expect(after).toContain('Getting started, revised');
    expect(after.indexOf('Getting started, revised')).toBeLessThan(after.indexOf('</li>'));
  });

  it('lists new and popular modules with their prices, each linking to its page', async () => {
    const t = Math.floor(Date.now() / 1000) + 3600;
    const text = await moduleText({ name: 'Home tester', summary: 'Shown on the front page', tags: [], description: '' });
    await rt.db.insert(module).values({
      uid: 'home-tester', developerId: people.answerer!.row.id, name: 'Home tester', summary: 'Shown on the front page', description: '', category: 'tools', tags: [],
      price: 250, scorePrice: 0, status: 'published', downloads: 999_999, latestVersion: '1.0.0', publishTime: t, createTime: t, updateTime: t, ...text,
    });
    await rt.pageCache.invalidate(['modules']);
    const home = await visit('/');
    for (const id of ['home-new-modules', 'home-popular-modules']) {
      const box = section(home.text, id);
      expect(box.indexOf('href="/modules/home-tester"')).toBeGreaterThan(-1);
      expect(box).toContain('¥2.50');
    }
    expect(home.text).toContain('href="/modules?sort=popular"');
  });

  it('is dropped by a change to any area it shows, and only then', async () => {
    for (const tag of ['ask', 'md', 'modules', 'site'] as const) {
      await visit('/');
      expect((await visit('/')).headers['x-atrium-cache'], tag).toBe('hit');
      await rt.pageCache.invalidate(['chat']);
      expect((await visit('/')).headers['x-atrium-cache'], `${tag}: an unrelated change keeps it`).toBe('hit');
      await rt.pageCache.invalidate([tag]);
      expect((await visit('/')).headers['x-atrium-cache'], tag).not.toBe('hit');
    }
  });
});

describe('the member card', () => {
  it('shows the member\'s posts, accepted answers and published modules with their counts, and the site header', async () => {
    const card = await visit(`/user/card/${people.answerer!.row.id}`);
    expect(card.status).toBe(200);
    expect(card.text).toContain('class="site-header"');
    expect(card.text).toContain('data-action="set-language"');
    expect(card.text).toContain('Accepted answers');
    expect(card.text).toMatch(/<span class="badge badge-solved">Accepted answer<\/span><span data-user-content>Where does the home page &lt;b&gt;cache&lt;\/b&gt; live\?/);
    expect(card.text).toContain('In memory, per host, path, locale and theme.');
    expect(card.text).toContain('href="/modules/home-tester"');
    expect(card.text).toMatch(/<dt>Accepted<\/dt>\s*<dd><a href="#card-accepted">1<\/a><\/dd>/);
    expect(card.text).toMatch(/<dt>Modules<\/dt>\s*<dd><a href="#card-modules">1<\/a><\/dd>/);
    expect(card.text).toContain('No posts yet.');
    expect(card.text).toContain('data-card-actions');

    const asker = await visit(`/user/card/${people.asker!.row.id}`);
    expect(asker.text).toContain('Where does the home page &lt;b&gt;cache&lt;/b&gt; live?');
    expect(asker.text).toContain('No accepted answers yet.');
    expect(asker.text).toContain('No published modules yet.');
    expect(asker.text).toMatch(/<dt>Posts<\/dt>\s*<dd><a href="#card-posts">1<\/a><\/dd>/);
    expect((await visit('/user/card/2147483648')).status).toBe(404);
    expect((await visit('/user/card/0')).status).toBe(404);
  });

  it('is dropped from the cache by a new post of the member', async () => {
    const path = `/user/card/${people.answerer!.row.id}`;
    await visit(path);
    expect((await visit(path)).headers['x-atrium-cache']).toBe('hit');
    const made = await call('answerer', '/api/ask/post', { title: 'A second question for the card', category_id: question, content: 'Body text.', nonce: nonce() });
    expect(made.code).toBe(1);
    expect((await visit(path)).text).toContain('A second question for the card');
  });
});

describe('pages that lost the way back', () => {
  it('the login page has the site header with the language and theme switches and a link home', async () => {
    const login = await visit('/user/login');
    expect(login.status).toBe(200);
    expect(login.text).toContain('class="site-header"');
    expect(login.text).toMatch(/<a class="brand" href="\/">/);
    expect(login.text).toContain('data-action="toggle-theme"');
    expect(login.text).toMatch(/<h1 class="page-title">Log in<\/h1>/);
    const reset = await visit('/user/login?type=retrieve');
    expect(reset.text).toMatch(/<h1 class="page-title">Reset your password<\/h1>/);
    // The account (e-mail) and its code come before the new password.
    expect(reset.text.indexOf('name="email"')).toBeLessThan(reset.text.indexOf('name="password"'));
  });

  it('a missing member card answers 404 with the site header', async () => {
    const res = await visit('/user/card/999999');
    expect(res.status).toBe(404);
    expect(res.text).toContain('Page Not Found: /user/card/999999');
    expect(res.text).toContain('class="site-header"');
    expect(res.text).toContain('data-layout="none"');
  });

  it('a page the member may not open answers "403 Forbidden", not "403 OK"', async () => {
    const post = await createPost(rt.db, people.asker!.row.id, { title: 'Only mine to edit', category_id: question, content: 'Mine.', tags: [] });
    const res = await raw(srv.url, `/ask/post?id=${post.id}`, { headers: { cookie: `${people.answerer!.cookie}; ba-lang=en` } });
    expect(res.status).toBe(403);
    expect(res.statusText).toBe('Forbidden');
  });
});

describe('member center and market details', () => {
  it('the overview joins only the facts there are: no dangling separator without a last login', async () => {
    const id = people.answerer!.row.id;
    await rt.db.execute(sql`update "user" set last_login_time = 0 where id = ${id}`);
    await rt.sessions.forgetUser(id);
    const page = await raw(srv.url, '/user/account/overview', { headers: { cookie: `${people.answerer!.cookie}; ba-lang=en` } });
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/<p class="muted">Joined \d{4}-\d{2}-\d{2}<\/p>/);
    expect(page.text).not.toMatch(/<p class="muted">\s*·/);
  });

  it('the market search box says what it searches', async () => {
    const page = await visit('/modules');
    expect(page.text).toContain('placeholder="Search modules by name, description or tag"');
  });
});

describe('the check-in calendar', () => {
  it('gives the month of the member\'s check-ins with each day\'s points, and refuses months outside their membership', async () => {
    const id = people.asker!.row.id;
    const today = formatDate(Date.now(), 'yyyy-mm-dd', await rt.site.get('time_zone', 'Asia/Shanghai'));
    const month = today.slice(0, 7);
    await rt.db.insert(userSignIn).values([
      { userId: id, day: `${month}-01`, streak: 1, score: 10, createTime: 1 },
      { userId: id, day: today, streak: 1, score: 15, createTime: 2 },
    ]).onConflictDoNothing();
    const cal = await signInMonth(rt, id, people.asker!.row.joinTime, null);
    expect(cal.month).toBe(month);
    expect(cal.today).toBe(today);
    expect(cal.next).toBeNull();
    expect(cal.days.map((d) => [d.day, d.score])).toEqual(today.endsWith('-01') ? [[today, 10]] : [[`${month}-01`, 10], [today, 15]]);
    // A future month, a malformed one and one before the member joined all give the current month.
    for (const wanted of ['2999-01', '2026-13', 'x', '1999-01']) expect((await signInMonth(rt, id, people.asker!.row.joinTime, wanted)).month).toBe(month);

    const page = await raw(srv.url, '/user/account/signIn', { headers: { cookie: `${people.asker!.cookie}; ba-lang=en` } });
    expect(page.status).toBe(200);
    expect(page.text).toContain('Check-in calendar');
    // Each day is named by visually hidden text (an `aria-label` on a list item is not announced everywhere).
    expect(page.text).toContain(`<span class="visually-hidden">${today}: checked in, +${today.endsWith('-01') ? 10 : 15} points</span>`);
    expect(page.text).toContain('aria-current="date"');
  });
});
