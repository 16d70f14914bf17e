// The XSS corpus (tests/helpers/xss.ts, issue 17) through every place that renders member input:
// each payload is stored through the API (profile, forum post and reply, report, private message,
// chat title, module page, review and reply, invoice, withdrawal, developer application, docs page,
// notice), then every page that shows it is fetched as the visitor, the member and the
// administrator who would see it, and no payload may come out as live markup, handler or script URL.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, raw, startServer, type TestServer } from '../helpers/server';
import { TEMPLATE_DIR, TMP } from '../helpers/paths';
import { PASSWORD, prepareAuthzSite, type AuthzSite } from '../helpers/authz-site';
import { idNumber } from '../helpers/route-samples';
import { ALL_PAYLOADS, MARK, PAGE_PAYLOADS, liveInjections } from '../helpers/xss';
import { scaled } from '../helpers/time-scale.mjs';

type Env = { code: number; msg: string; data: Record<string, unknown> };
interface Session { token: string; cookie: string }

let server: TestServer;
let fx: AuthzSite;
let dataDir: string;
const people: Record<string, Session> = {};

async function login(username: string): Promise<Session> {
  const res = await postJson(server.url, '/api/user/checkIn', { tab: 'login', username, password: PASSWORD, keep: false });
  const body = res.json<{ code: number; data: { userInfo: { token: string } } }>();
  if (body.code !== 1) throw new Error(`login ${username}: ${res.text}`);
  return { token: body.data.userInfo.token, cookie: ([] as string[]).concat(res.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]).join('; ') };
}

const call = async (who: string, path: string, body: unknown): Promise<Env> =>
  (await postJson(server.url, path, body, { 'ba-user-token': people[who]!.token, 'think-lang': 'en' })).json<Env>();

beforeAll(async () => {
  dataDir = mkdtempSync(join(TMP, 'xss-'));
  cpSync(TEMPLATE_DIR, dataDir, { recursive: true });
  fx = await prepareAuthzSite({ DATA_DIR: dataDir });
  server = await startServer({ dataDir, env: { API_RATE_LIMIT: '100000' } });
  for (const name of ['alice', 'bob', 'devone', 'boss']) people[name] = await login(name);
}, scaled(120_000));

afterAll(async () => {
  await server?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('the page check', () => {
  it('finds live markup and passes escaped text', () => {
    expect(liveInjections('<p>&lt;img src=x onerror=alert(X7S)&gt;</p><a title="&quot;&gt;&lt;svg onload=alert(X7S)&gt;">t</a>')).toEqual([]);
    expect(liveInjections('<script type="application/ld+json">{"name":"<\\/script>X7S"}</script>')).toEqual([]);
    expect(liveInjections('<p><img src=x onerror=alert(X7S)></p>')).toHaveLength(1);
    expect(liveInjections('<a href="javascript&colon;alert(X7S)">x</a>')).toHaveLength(1);
    expect(liveInjections('<div onclick="go(\'X7S\')">x</div>')).toHaveLength(1);
    expect(liveInjections('<script>var t = "X7S";</script>')).toHaveLength(1);
    expect(liveInjections('<script type="application/ld+json">{"name":"</script><script>alert(X7S)</script>')).toHaveLength(1);
    expect(liveInjections('<astro-island props="{&quot;t&quot;:&quot;<script>alert(X7S)</script>&quot;}"></astro-island><title><img src=x onerror=alert(X7S)></title>')).toEqual([]);
  });
});

describe('member input on every page that renders it', () => {
  it('stores each payload through the API and renders it inert on every page, for every reader', async () => {
    const stored = new Set<string>();
    const refused = new Set<string>();
    const note = (what: string, r: Env): void => { (r.code === 1 ? stored : refused).add(r.code === 1 ? what : `${what}: ${r.msg}`); };
    // Long fields once, every payload in one text.
    note('reply', await call('bob', '/api/ask/reply', { post_id: fx.postId, content: ALL_PAYLOADS }));
    note('comment', await call('devone', '/api/ask/reply', { post_id: fx.postId, parent_id: fx.replyId, content: ALL_PAYLOADS.slice(0, 1000) }));
    note('report', await call('bob', '/api/ask/report', { type: 'post', id: fx.postId, reason: ALL_PAYLOADS.slice(0, 500) }));
    note('message', await call('bob', '/api/interaction/sendMessage', { user_id: fx.ids.member, content: ALL_PAYLOADS.slice(0, 2000) }));
    note('review', await call('alice', '/api/modules/review', { uid: fx.devModuleUid, rating: 5, content: ALL_PAYLOADS.slice(0, 2000) }));
    note('review reply', await call('alice', '/api/modules/reviewReply', { review_id: fx.reviewId, content: ALL_PAYLOADS.slice(0, 1000) }));
    note('withdrawal', await call('alice', '/api/developer/withdraw', { amount: '100', account: PAGE_PAYLOADS[1] }));
    note('developer application', await call('bob', '/api/developer/verif', {
      real_name: '王五', id_number: idNumber(201), mobile: '13800138000', email: 'bob@example.com', province: '11', city: '1101', intro: ALL_PAYLOADS.slice(0, 1000),
    }));
    let revision = fx.indexRevision;

    const visitorPages = [
      '/', '/ask', `/ask/info/${fx.postId}`, `/user/card/${fx.ids.member}`, `/ask/lists/user/${fx.ids.member}`, `/ask/search/${MARK}`,
      '/modules', `/modules/${fx.moduleUid}`, `/modules/${fx.devModuleUid}`, `/md/${fx.book}/index`, `/md/search?q=${MARK}`, '/md',
    ];
    const alicePages = [
      '/user/account/overview', '/user/account/profile', '/user/account/invoice', '/user/account/notice', '/user/messageCenter', '/chat',
      '/user/developer/modules', '/user/developer/earnings', `/md/edit/${fx.book}/index`, `/ask/post?id=${fx.postId}`, `/ask/info/${fx.postId}`,
      `/modules/${fx.moduleUid}`, '/user/ask/post',
    ];
    const adminPages = ['/admin/dashboard', '/admin/members', `/admin/members/${fx.ids.member}`, '/admin/reports', '/admin/finance', '/admin/market', '/admin/notices', '/admin/audit', '/admin/books'];
    const readers: [string, string[]][] = [['', visitorPages], ['alice', alicePages], ['bob', ['/user/messageCenter']], ['boss', adminPages]];

    const failures: string[] = [];
    const shown = new Set<string>();
    for (const [i, p] of PAGE_PAYLOADS.entries()) {
      // Short fields: one payload at a time.
      // A nickname with markup characters may be refused (a name rule); the motto then carries the payload.
      const named = await call('alice', '/api/account/profile', { nickname: p.slice(0, 50), gender: 0, motto: p.slice(0, 100) });
      if (named.code === 1) stored.add('nickname');
      else note('motto', await call('alice', '/api/account/profile', { nickname: `alice${i}`, gender: 0, motto: p.slice(0, 100) }));
      note('post', await call('alice', '/api/ask/post', { id: fx.postId, title: `Q${i} ${p}`.slice(0, 150), category_id: fx.categoryId, content: `${p}\n\n${ALL_PAYLOADS}`, tags: [] }));
      note('chat title', await call('alice', '/api/chat/rename', { id: fx.chatId, title: p.slice(0, 100) }));
      note('invoice', await call('alice', '/api/account/invoice', { amount: '0.01', title: p.slice(0, 120), email: 'alice@example.com' }));
      note('module', await call('alice', '/api/developer/save', {
        id: fx.moduleId, uid: fx.moduleUid, name: `M ${p}`.slice(0, 60), summary: p.slice(0, 150), description: `${p}\n\n${ALL_PAYLOADS}`, category: 'tools',
      }));
      const saved = await call('alice', '/api/md/save', { book: fx.book, name: 'index', title: p.slice(0, 150), content: `${p}\n\n${ALL_PAYLOADS}`, base_revision: revision });
      note('docs page', saved);
      if (saved.code === 1) revision = saved.data.revision_id as number;
      note('notice', await call('boss', '/api/admin/notices', { title: p.slice(0, 100), content: p }));

      for (const [who, pages] of readers) {
        for (const path of pages) {
          const res = await raw(server.url, path, { headers: who ? { cookie: `${people[who]!.cookie}; ba-lang=en` } : { cookie: 'ba-lang=en' } });
          if (res.status !== 200) { failures.push(`${path} as ${who || 'visitor'}: HTTP ${res.status}`); continue; }
          if (res.text.includes(MARK)) shown.add(`${who || 'visitor'} ${path}`);
          for (const f of liveInjections(res.text)) failures.push(`payload ${i} on ${path} as ${who || 'visitor'}: ${f}`);
        }
      }
    }
    expect(failures).toEqual([]);
    // The payloads were really stored and shown (as text), or the check above proved nothing.
    expect([...refused]).toEqual([]);
    for (const page of [`visitor /ask/info/${fx.postId}`, `visitor /user/card/${fx.ids.member}`, `visitor /modules/${fx.moduleUid}`, `visitor /md/${fx.book}/index`, 'boss /admin/finance', 'boss /admin/members', 'boss /admin/reports', 'alice /user/account/invoice']) {
      expect(shown, page).toContain(page);
    }
    expect(server.logs()).not.toMatch(/unhandled error/);
  }, scaled(240_000));
});
