// The rule tree edited (issue 28 items 2 and 4), against the built server: rules and menus of every
// type created, edited, reordered, disabled and deleted from the console's API and the CLI; system
// rules renamed, moved and disabled but never deleted (refused in both languages), and a reseed
// keeping what was changed; iframe menus only from allowed origins; the route rule lookup
// (GET /api/index/route) with its redirect; on PostgreSQL + Redis, a menu added on one instance shows
// on the other at once.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshPostgres, postJson, raw, startServer, type TestServer } from '../helpers/server';
import { PG_PREFIX, ROOT, TEMPLATE_DIR, TMP } from '../helpers/paths';
import { readConfig } from '../../src/lib/server/env';
import { createRuntime } from '../../src/lib/server/boot/runtime';
import { createUser } from '../../src/lib/server/account/users';
import { ADMIN_GROUP, MEMBER_GROUP, seedDefaults } from '../../src/lib/server/site/seed';
import { userGroup, userRule } from '../../src/lib/server/db/schema';
import { cliRunner } from '../helpers/cli';
import { scaled } from '../helpers/time-scale.mjs';

type Env<T = Record<string, unknown>> = { code: number; msg: string; data: T & { fields?: Record<string, string> } };
const PASSWORD = 'secret123';

interface Rule { id: number; pid: number; type: string; name: string; title: string; title_en: string; shown_title: string; weigh: number; status: number; system: number; menu_type: string; url: string; redirect: string }

async function prepare(env: { DATA_DIR: string; DATABASE_URL?: string }): Promise<void> {
  const rt = await createRuntime(readConfig({ ATRIUM_ROOT: ROOT, LOG_LEVEL: 'warn', ...env }));
  try {
    await rt.site.set('user_login_captcha', '0');
    await rt.site.set('user_iframe_allow', 'https://docs.example.com');
    for (const [username, groupId] of [['boss', ADMIN_GROUP], ['alice', MEMBER_GROUP]] as const) {
      await createUser(rt.db, { username, email: `${username}@example.com`, password: PASSWORD, groupId });
    }
  } finally {
    await rt.close();
  }
}

interface Who { token: string; cookie: string }

async function login(url: string, username: string): Promise<Who> {
  const res = await postJson(url, '/api/user/checkIn', { tab: 'login', username, password: PASSWORD, keep: true });
  const body = res.json<{ code: number; data: { userInfo: { token: string } } }>();
  expect(body.code, res.text).toBe(1);
  const cookie = ([] as string[]).concat(res.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]).join('; ');
  return { token: body.data.userInfo.token, cookie };
}

const api = (url: string) => ({
  get: async <T = Record<string, unknown>>(path: string, who: Who | null, lang = 'en'): Promise<Env<T>> =>
    (await raw(url, path, { headers: { ...(who ? { 'ba-user-token': who.token } : {}), 'think-lang': lang } })).json<Env<T>>(),
  post: async (path: string, body: unknown, who: Who, lang = 'en'): Promise<Env> => (await postJson(url, path, body, { 'ba-user-token': who.token, 'think-lang': lang })).json<Env>(),
  page: (path: string, who: Who, lang = 'en') => raw(url, path, { headers: { cookie: `${who.cookie}; ba-lang=${lang}` } }),
});

const MENU = { type: 'menu', icon: '', extend: 'none', redirect: '', remark: '', path: '' };

describe('rules and menus edited (PGlite)', () => {
  let srv: TestServer;
  let dataDir: string;
  let boss: Who;
  let alice: Who;
  let call: ReturnType<typeof api>;
  const rules = async (): Promise<Rule[]> => (await call.get<{ list: Rule[] }>('/api/admin/rules', boss)).data.list;
  const byName = async (name: string, type?: string): Promise<Rule> => (await rules()).find((r) => r.name === name && (!type || r.type === type))!;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(TMP, 'rules-'));
    cpSync(TEMPLATE_DIR, dataDir, { recursive: true });
    await prepare({ DATA_DIR: dataDir });
    srv = await startServer({ dataDir });
    call = api(srv.url);
    [boss, alice] = await Promise.all([login(srv.url, 'boss'), login(srv.url, 'alice')]);
  }, scaled(120_000));

  afterAll(async () => {
    await srv?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('creates a link menu and an iframe menu under a directory the member group holds: members see both at once', async () => {
    const account = await byName('account', 'menu_dir');
    const link = await call.post('/api/admin/ruleCreate', { ...MENU, pid: account.id, name: 'account/handbook', title: '手册', title_en: 'Handbook', menu_type: 'link', url: 'https://handbook.example.org/' }, boss);
    expect(link.code, link.msg).toBe(1);
    const frame = await call.post('/api/admin/ruleCreate', { ...MENU, pid: account.id, name: 'account/docs', title: '内嵌文档', title_en: 'Embedded docs', menu_type: 'iframe', url: 'https://docs.example.com/start' }, boss);
    expect(frame.code, frame.msg).toBe(1);
    // The member group held the directory, so it holds the new menus (BuildAdmin's rule).
    const index = await call.get<{ menus: { name: string; children: { name: string; title: string; menu_type: string; url: string }[] }[] }>('/api/index/index?requiredLogin=1', alice);
    expect(index.code, JSON.stringify(index)).toBe(1);
    const entries = index.data.menus.find((m) => m.name === 'account')!.children;
    expect(entries.find((c) => c.name === 'account/handbook')).toMatchObject({ title: 'Handbook', menu_type: 'link', url: 'https://handbook.example.org/' });
    expect(entries.find((c) => c.name === 'account/docs')).toMatchObject({ title: 'Embedded docs', menu_type: 'iframe' });
    const page = await call.page('/user/account/overview', alice, 'zh-cn');
    expect(page.text).toContain('href="https://handbook.example.org/"');
    expect(page.text).toContain('手册');
    expect(page.text).toContain(`href="/user/iframe/${encodeURIComponent('https://docs.example.com/start')}"`);
    const framed = await call.page(`/user/iframe/${encodeURIComponent('https://docs.example.com/start')}`, alice);
    expect(framed.status).toBe(200);
    expect(framed.text).toMatch(/<iframe[^>]*sandbox="/);
  });

  it('leaves an iframe menu out of the menus once its origin is taken from user_iframe_allow (its page answers 404), and back in when allowed again', async () => {
    const target = `/user/iframe/${encodeURIComponent('https://docs.example.com/start')}`;
    const allow = async (value: string): Promise<void> => {
      const saved = await call.post('/api/admin/settings', { values: { user_iframe_allow: value } }, boss);
      expect(saved.code, saved.msg).toBe(1);
    };
    const entries = async (): Promise<string[]> => {
      const index = await call.get<{ menus: { children: { name: string }[] }[] }>('/api/index/index?requiredLogin=1', alice);
      expect(index.code, index.msg).toBe(1);
      return index.data.menus.flatMap((m) => m.children.map((c) => c.name));
    };
    expect(await entries()).toContain('account/docs');
    await allow('https://elsewhere.example.com');
    try {
      // Neither the index call nor the member center's menu offers a page that would answer 404.
      const names = await entries();
      expect(names).not.toContain('account/docs');
      expect(names).toContain('account/handbook');
      const page = await call.page('/user/account/overview', alice, 'en');
      expect(page.status).toBe(200);
      expect(page.text).not.toContain(`href="${target}"`);
      expect(page.text).toContain('href="https://handbook.example.org/"');
      expect((await call.page(target, alice)).status).toBe(404);
    } finally {
      await allow('https://docs.example.com');
    }
    expect(await entries()).toContain('account/docs');
    expect((await call.page('/user/account/overview', alice, 'en')).text).toContain(`href="${target}"`);
  });

  it('refuses an iframe menu from an origin nobody allowed, in both languages', async () => {
    const account = await byName('account', 'menu_dir');
    const body = { ...MENU, pid: account.id, name: 'account/evil', title: '外站', menu_type: 'iframe', url: 'https://evil.example.net/' };
    const en = await call.post('/api/admin/ruleCreate', body, boss, 'en');
    expect(en.code).toBe(0);
    expect(en.data.fields?.url).toContain('https://evil.example.net is not an origin iframe menus may embed');
    const zh = await call.post('/api/admin/ruleCreate', body, boss, 'zh-cn');
    expect(zh.data.fields?.url).toContain('不在 iframe 菜单允许内嵌的来源中');
    expect(await byName('account/evil')).toBeUndefined();
  });

  it('creates every rule type, with add_rules_only never shown as a menu; an empty directory is dropped from menus', async () => {
    const made: Record<string, number> = {};
    for (const [type, name, extra] of [
      ['menu_dir', 'extras', {}],
      ['route', 'extras/route', { path: '/extras', extend: 'add_rules_only' }],
      ['nav', 'extras/nav', { path: '/ask' }],
      ['nav_user_menu', 'extras/usermenu', { path: '/user/account/overview' }],
      ['button', 'extras/button', {}],
    ] as const) {
      const reply = await call.post('/api/admin/ruleCreate', { ...MENU, type, name, title: name, ...extra, pid: 0 }, boss);
      expect(reply.code, `${type}: ${reply.msg}`).toBe(1);
      made[type] = reply.data.id as number;
    }
    // The empty directory (given to the members) shows no menu; with a child menu it does.
    const members = (await call.get<{ list: { id: number; rules: string }[] }>('/api/admin/groups', boss)).data.list.find((g) => g.id === MEMBER_GROUP)!;
    expect((await call.post('/api/admin/groups', { id: MEMBER_GROUP, rules: `${members.rules},${made.menu_dir}` }, boss)).code).toBe(1);
    const menusOf = async () => (await call.get<{ menus: { name: string }[] }>('/api/index/index?requiredLogin=1', alice)).data.menus.map((m) => m.name);
    expect(await menusOf()).not.toContain('extras');
    const child = await call.post('/api/admin/ruleCreate', { ...MENU, pid: made.menu_dir, name: 'extras/page', title: 'Extra', menu_type: 'link', url: 'https://example.com/' }, boss);
    expect(child.code, child.msg).toBe(1);
    expect(await menusOf()).toContain('extras');
    // add_rules_only under a directory: a rule the group holds, never a menu entry.
    const hidden = await call.post('/api/admin/ruleCreate', { ...MENU, pid: made.menu_dir, name: 'extras/hidden', title: 'Hidden', extend: 'add_rules_only', path: 'extras/hidden' }, boss);
    expect(hidden.code, hidden.msg).toBe(1);
    const tree = (await call.get<{ menus: { name: string; children: { name: string }[] }[] }>('/api/index/index?requiredLogin=1', alice)).data.menus;
    expect(tree.find((m) => m.name === 'extras')!.children.map((c) => c.name)).toEqual(['extras/page']);
  });

  it('reorders siblings, edits, disables and deletes a rule, each audited', async () => {
    const account = await byName('account', 'menu_dir');
    const siblings = (await rules()).filter((r) => r.pid === account.id).map((r) => r.id);
    const reversed = [...siblings].reverse();
    const sorted = await call.post('/api/admin/ruleSort', { pid: account.id, ids: reversed.join(',') }, boss);
    expect(sorted.code, sorted.msg).toBe(1);
    expect((await rules()).filter((r) => r.pid === account.id).map((r) => r.id)).toEqual(reversed);
    const index = await call.get<{ menus: { name: string; children: { id: number }[] }[] }>('/api/index/index?requiredLogin=1', alice);
    expect(index.data.menus.find((m) => m.name === 'account')!.children.map((c) => c.id)).toEqual(reversed.filter((id) => index.data.menus.find((m) => m.name === 'account')!.children.some((c) => c.id === id)));
    // A rule not among the siblings is refused.
    expect((await call.post('/api/admin/ruleSort', { pid: account.id, ids: String((await byName('ask', 'menu_dir')).id) }, boss)).code).toBe(0);

    const link = await byName('account/handbook');
    const edited = await call.post('/api/admin/ruleEdit', { ...MENU, id: link.id, pid: link.pid, name: 'account/handbook', title: '手册', title_en: 'Guide', menu_type: 'link', url: 'https://guide.example.org/' }, boss);
    expect(edited.code, edited.msg).toBe(1);
    expect(await byName('account/handbook')).toMatchObject({ title_en: 'Guide', url: 'https://guide.example.org/' });
    expect((await call.post('/api/admin/ruleStatus', { id: link.id, status: 0 }, boss)).code).toBe(1);
    expect((await call.page('/user/account/overview', alice)).text).not.toContain('guide.example.org');
    expect((await call.post('/api/admin/ruleStatus', { id: link.id, status: 1 }, boss)).code).toBe(1);
    expect((await call.page('/user/account/overview', alice)).text).toContain('guide.example.org');
    const deleted = await call.post('/api/admin/ruleDelete', { id: link.id }, boss);
    expect(deleted.code, deleted.msg).toBe(1);
    expect(await byName('account/handbook')).toBeUndefined();
    const groups = (await call.get<{ list: { id: number; rules: string }[] }>('/api/admin/groups', boss)).data.list;
    expect(groups.find((g) => g.id === MEMBER_GROUP)!.rules.split(',')).not.toContain(String(link.id));
    const audit = (await call.get<{ list: { action: string; target: string }[] }>('/api/admin/audit?page=1', boss)).data.list.map((r) => `${r.action} ${r.target}`);
    expect(audit).toEqual(expect.arrayContaining(['rule:delete account/handbook', 'rule:enable account/handbook', 'rule:disable account/handbook', 'rule:edit account/handbook', `rule:sort ${account.id}`, 'rule:create account/docs']));
  });

  it('a system rule may be renamed, moved and disabled, not deleted (refused in both languages); its name and type stay', async () => {
    const balance = await byName('account/balance', 'menu');
    expect(balance.system).toBe(1);
    const en = await call.post('/api/admin/ruleDelete', { id: balance.id }, boss, 'en');
    expect(en.code).toBe(0);
    expect(en.msg).toBe('This is a system rule, made by Atrium or a module: it cannot be deleted. Disable it instead, or take it from groups.');
    const zh = await call.post('/api/admin/ruleDelete', { id: balance.id }, boss, 'zh-cn');
    expect(zh.msg).toBe('这是系统规则（由 Atrium 或模块创建），不能删除。可以停用它，或将它从分组中移除。');
    const renamedName = await call.post('/api/admin/ruleEdit', { ...MENU, id: balance.id, pid: balance.pid, name: 'account/money', title: '钱包', menu_type: 'tab', path: 'account/balance' }, boss);
    expect(renamedName.code).toBe(0);
    const ask = await byName('ask', 'menu_dir');
    const moved = await call.post('/api/admin/ruleEdit', { ...MENU, id: balance.id, pid: ask.id, name: 'account/balance', title: '我的钱包', title_en: 'Wallet', menu_type: 'tab', path: 'account/balance', icon: 'wallet' }, boss);
    expect(moved.code, moved.msg).toBe(1);
    const index = async (lang: string) => (await call.get<{ menus: { name: string; children: { name: string; title: string }[] }[] }>('/api/index/index?requiredLogin=1', alice, lang)).data.menus;
    expect((await index('en')).find((m) => m.name === 'ask')!.children.find((c) => c.name === 'account/balance')!.title).toBe('Wallet');
    expect((await index('zh-cn')).find((m) => m.name === 'ask')!.children.find((c) => c.name === 'account/balance')!.title).toBe('我的钱包');
    expect((await call.post('/api/admin/ruleStatus', { id: balance.id, status: 0 }, boss)).code).toBe(1);

    // A reseed (what an upgrade runs, on a stopped site) keeps the administrator's changes and adds nothing twice.
    await srv.stop();
    const rt = await createRuntime(readConfig({ ATRIUM_ROOT: ROOT, LOG_LEVEL: 'warn', DATA_DIR: dataDir }));
    try {
      await seedDefaults(rt.db);
      const [row] = await rt.db.select().from(userRule).where(eq(userRule.id, balance.id));
      expect(row).toMatchObject({ pid: ask.id, title: '我的钱包', titleEn: 'Wallet', status: 0, system: 1 });
      expect((await rt.db.select().from(userRule).where(eq(userRule.name, 'account/balance'))).length).toBe(1);
      const [members] = await rt.db.select().from(userGroup).where(eq(userGroup.id, MEMBER_GROUP));
      expect(members!.rules.split(',')).toContain(String(balance.id));
    } finally {
      await rt.close();
      srv = await startServer({ dataDir });
      call = api(srv.url);
    }
    expect((await index('en')).find((m) => m.name === 'ask')!.children.find((c) => c.name === 'account/balance')).toBeUndefined();
  }, scaled(90_000));

  it('the route rule lookup answers the redirect of a rule of the caller\'s tree, and Page not found otherwise', async () => {
    for (const [name, redirect] of [['old-forum', '/ask'], ['old-site', 'https://www.example.com/']] as const) {
      const made = await call.post('/api/admin/ruleCreate', { ...MENU, type: 'route', name, title: name, path: `/${name}`, redirect, no_login_valid: 1 }, boss);
      expect(made.code, made.msg).toBe(1);
    }
    expect((await call.get<{ redirect: string }>('/api/index/route?path=/old-forum', null)).data.redirect).toBe('/ask');
    expect((await call.get<{ redirect: string }>('/api/index/route?path=/old-site', alice)).data.redirect).toBe('https://www.example.com/');
    // A member-center rule's relative path is matched under /user; no redirect there.
    expect((await call.get<{ name: string; redirect: string }>('/api/index/route?path=/user/account/overview', alice)).data).toMatchObject({ name: 'account/overview', redirect: '' });
    const none = await raw(srv.url, '/api/index/route?path=/nowhere', { headers: { 'think-lang': 'en' } });
    expect(none.status).toBe(404);
    expect(none.json<Env>().msg).toBe('Page not found');
    // A redirect that is neither an app path nor an http(s) URL is refused.
    const bad = await call.post('/api/admin/ruleCreate', { ...MENU, type: 'route', name: 'bad', title: 'bad', path: '/bad', redirect: 'javascript:alert(1)' }, boss);
    expect(bad.code).toBe(0);
    expect(bad.data.fields?.redirect).toBeTruthy();
  });

  it('select search: list endpoints answer {list, total} of {id, label}, paged, for pickers; members and visitors are refused', async () => {
    type Page = { list: { id: number | string; label: string }[]; total: number };
    const members = await call.get<Page>('/api/admin/members?select=true&quickSearch=ali', boss);
    expect(members.code, members.msg).toBe(1);
    expect(members.data).toEqual({ list: [{ id: expect.any(Number), label: 'alice' }], total: 1 });
    const all = await call.get<Page>('/api/admin/members?select=true&quickSearch=&limit=1&page=2', boss);
    expect(all.data.total).toBe(2);
    expect(all.data.list).toEqual([{ id: expect.any(Number), label: 'boss' }]);
    // Wildcards typed are taken literally.
    expect((await call.get<Page>('/api/admin/members?select=true&quickSearch=%25', boss)).data.total).toBe(0);
    const groups = await call.get<Page>('/api/admin/groups?select=true&quickSearch=admin', boss, 'en');
    expect(groups.data).toEqual({ list: [{ id: ADMIN_GROUP, label: 'Administrators' }], total: 1 });
    const zhGroups = await call.get<Page>('/api/admin/groups?select=true&quickSearch=admin', boss, 'zh-cn');
    expect(zhGroups.data.list).toEqual([{ id: ADMIN_GROUP, label: '管理员' }]);
    const modules = await call.get<Page>('/api/admin/modules?select=true&quickSearch=edit', boss);
    expect(modules.data.list.map((m) => m.id)).toEqual(['editor']);
    const books = await call.get<Page>('/api/admin/books?select=true', boss);
    expect(books.code).toBe(1);
    expect(books.data.total).toBe(books.data.list.length);
    const rules = await call.get<Page>('/api/admin/rules?select=true&quickSearch=account/balance', boss, 'en');
    expect(rules.data.list.map((r) => r.label)).toEqual(expect.arrayContaining(['Wallet (account/balance)']));
    // The forum's categories, for anyone (they are public), titled in the reply's language.
    const categories = await call.get<Page>('/api/ask/index?select=true&quickSearch=问答', null, 'zh-cn');
    expect(categories.code, categories.msg).toBe(1);
    expect(categories.data.list.map((c) => c.label)).toEqual(['问答']);
    const enCategories = await call.get<Page>('/api/ask/index?select=true&limit=1', null, 'en');
    expect(enCategories.data.list).toHaveLength(1);
    expect(enCategories.data.total).toBeGreaterThan(1);
    // Without select the list keeps its own shape.
    expect(((await call.get<{ list: { username: string }[] }>('/api/admin/members?q=alice', boss)).data.list[0]!).username).toBe('alice');
    expect((await call.get('/api/admin/members?select=true&quickSearch=a', alice)).code).toBe(401);
  });

  it('adds and removes rules from the CLI; a system rule is refused', async () => {
    const cli = cliRunner({ DATA_DIR: dataDir });
    const added = await cli('rule:add', 'menu', 'account/cli-link', 'CLI', 'link', '--parent', 'account', '--menu-type', 'link', '--url', 'https://cli.example.org/', '--title-en', 'From the CLI');
    expect(added.stderr).toBe('');
    expect(added.status).toBe(0);
    expect((await call.page('/user/account/overview', alice)).text).toContain('https://cli.example.org/');
    const listed = await cli('rule:list');
    expect(listed.stdout).toContain('account/cli-link');
    const removed = await cli('rule:remove', 'account/cli-link');
    expect(removed.status).toBe(0);
    expect((await call.page('/user/account/overview', alice)).text).not.toContain('https://cli.example.org/');
    const system = await cli('rule:remove', 'account/overview');
    expect(system.status).toBe(1);
    expect(system.stderr).toContain('system rule');
  }, scaled(60_000));
});

const pgEnabled = Boolean(process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL);

describe.skipIf(!pgEnabled)('rules on two instances (PostgreSQL + Redis)', () => {
  let a: TestServer;
  let b: TestServer;
  let dataDir: string;

  beforeAll(async () => {
    const databaseUrl = await freshPostgres();
    dataDir = mkdtempSync(join(TMP, 'rules-pg-'));
    await prepare({ DATA_DIR: dataDir, DATABASE_URL: databaseUrl });
    const env = { DATABASE_URL: databaseUrl, REDIS_URL: process.env.TEST_REDIS_URL!, REDIS_PREFIX: `${PG_PREFIX}-rules-${Date.now()}:` };
    a = await startServer({ dataDir, env });
    b = await startServer({ dataDir, env });
  }, scaled(120_000));

  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('a link menu added on one instance shows in the member center of the other at once', async () => {
    const onA = api(a.url);
    const onB = api(b.url);
    const boss = await login(a.url, 'boss');
    const alice = await login(b.url, 'alice');
    expect((await onB.page('/user/account/overview', alice)).text).not.toContain('two.example.org');
    const account = (await onA.get<{ list: Rule[] }>('/api/admin/rules', boss)).data.list.find((r) => r.name === 'account' && r.type === 'menu_dir')!;
    const made = await onA.post('/api/admin/ruleCreate', { ...MENU, pid: account.id, name: 'account/two', title: 'Two', menu_type: 'link', url: 'https://two.example.org/' }, boss);
    expect(made.code, made.msg).toBe(1);
    let seen = false;
    for (let i = 0; i < 40 && !seen; i++) {
      seen = (await onB.page('/user/account/overview', alice)).text.includes('two.example.org');
      if (!seen) await new Promise((r) => setTimeout(r, 50));
    }
    expect(seen).toBe(true);
  }, scaled(60_000));
});
