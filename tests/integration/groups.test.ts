// Groups and the rules they hold (issue 28 items 1 and 3), against the built server: groups created,
// renamed, copied and deleted from the console's API and the CLI; every member-center page and
// member API route refusing a group without its declared rule (401 and the permission page, the
// menu link gone); no escalation by an administrator whose group lacks `*`; on PostgreSQL + Redis,
// a change made on one instance (console or CLI) holds on the other at once.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshPostgres, postJson, raw, startServer, type TestServer } from '../helpers/server';
import { PG_PREFIX, ROOT, TEMPLATE_DIR, TMP } from '../helpers/paths';
import { readConfig } from '../../src/lib/server/env';
import { createRuntime } from '../../src/lib/server/boot/runtime';
import { createUser } from '../../src/lib/server/account/users';
import { ADMIN_GROUP, MEMBER_GROUP } from '../../src/lib/server/site/seed';
import { createGroup, ruleIdsOf } from '../../src/lib/server/admin/groups';
import { cliRunner } from '../helpers/cli';
import { scaled } from '../helpers/time-scale.mjs';

type Env = { code: number; msg: string; data: Record<string, unknown> & { fields?: Record<string, string> } };
const PASSWORD = 'secret123';

/** boss (administrators), alice and mia (members), dep (a deputy: only members and groups of the console, and the overview). */
async function prepare(env: { DATA_DIR: string; DATABASE_URL?: string }): Promise<{ deputies: number }> {
  const rt = await createRuntime(readConfig({ ATRIUM_ROOT: ROOT, LOG_LEVEL: 'warn', ...env }));
  try {
    await rt.site.set('user_login_captcha', '0');
    const deputies = await createGroup(rt, 'cli', { name: '副管理员', nameEn: 'Deputies', rules: await ruleIdsOf(rt.db, ['admin/groups', 'admin/members', 'account/overview', 'ask/reports']) });
    for (const [username, groupId] of [['boss', ADMIN_GROUP], ['alice', MEMBER_GROUP], ['mia', MEMBER_GROUP], ['dep', deputies.id]] as const) {
      await createUser(rt.db, { username, email: `${username}@example.com`, password: PASSWORD, groupId });
    }
    return { deputies: deputies.id };
  } finally {
    await rt.close();
  }
}

interface Who { token: string; cookie: string; id: number }

async function login(url: string, username: string): Promise<Who> {
  const res = await postJson(url, '/api/user/checkIn', { tab: 'login', username, password: PASSWORD, keep: true });
  const body = res.json<{ code: number; data: { userInfo: { token: string; id: number } } }>();
  expect(body.code, res.text).toBe(1);
  const cookie = ([] as string[]).concat(res.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]).join('; ');
  return { token: body.data.userInfo.token, cookie, id: body.data.userInfo.id };
}

const api = (url: string) => ({
  get: async (path: string, who: Who): Promise<Env> => (await raw(url, path, { headers: { 'ba-user-token': who.token, 'think-lang': 'en' } })).json<Env>(),
  post: async (path: string, body: unknown, who: Who): Promise<Env> => (await postJson(url, path, body, { 'ba-user-token': who.token, 'think-lang': 'en' })).json<Env>(),
  page: (path: string, who: Who, lang = 'en') => raw(url, path, { headers: { cookie: `${who.cookie}; ba-lang=${lang}` } }),
});

interface GroupView { id: number; name: string; nameEn: string; title: string; rules: string; members: number }
interface RuleRow { id: number; name: string; children?: RuleRow[] }

/** Rule ids by name from the console's group list (the administrators' tree holds every rule). */
async function ruleIds(get: (path: string, who: Who) => Promise<Env>, admin: Who): Promise<Map<string, number[]>> {
  const list = (await get('/api/admin/groups', admin)).data.list as (GroupView & { tree: RuleRow[] })[];
  const out = new Map<string, number[]>();
  const walk = (nodes: RuleRow[]): void => { for (const n of nodes) { out.set(n.name, [...(out.get(n.name) ?? []), n.id]); walk(n.children ?? []); } };
  walk(list.find((g) => g.id === ADMIN_GROUP)!.tree);
  return out;
}

describe('groups and enforced rules (PGlite)', () => {
  let srv: TestServer;
  let dataDir: string;
  let fx: { deputies: number };
  let boss: Who;
  let alice: Who;
  let mia: Who;
  let dep: Who;
  let rules: Map<string, number[]>;
  let call: ReturnType<typeof api>;
  let cli: ReturnType<typeof cliRunner>;
  const ids = (...names: string[]): string => names.flatMap((n) => rules.get(n) ?? []).join(',');

  beforeAll(async () => {
    dataDir = mkdtempSync(join(TMP, 'groups-'));
    cpSync(TEMPLATE_DIR, dataDir, { recursive: true });
    fx = await prepare({ DATA_DIR: dataDir });
    srv = await startServer({ dataDir });
    call = api(srv.url);
    cli = cliRunner({ DATA_DIR: dataDir });
    [boss, alice, mia, dep] = await Promise.all([login(srv.url, 'boss'), login(srv.url, 'alice'), login(srv.url, 'mia'), login(srv.url, 'dep')]);
    rules = await ruleIds(call.get, boss);
  }, scaled(120_000));

  afterAll(async () => {
    await srv?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('the rule tree offers the admin, member-center, forum, docs, market and chat rules, titled in each language; default groups are named in English', async () => {
    for (const name of ['admin/groups', 'account/balance', 'forum/post', 'docs/edit', 'market/review', 'chat/history']) expect(rules.has(name), name).toBe(true);
    const en = await call.page('/admin/groups', boss, 'en');
    expect(en.status).toBe(200);
    for (const text of ['Groups and rules', 'Post and reply', 'Edit docs', 'Saved conversations', 'Market review', 'Balance', '>Members <', '>Administrators <']) expect(en.text, text).toContain(text);
    const zh = await call.page('/admin/groups', boss, 'zh-cn');
    for (const text of ['发帖与回复', '编辑文档', '保存的对话', '余额记录', '>默认分组 <']) expect(zh.text, text).toContain(text);
  });

  it('a Moderators group holding only the reports rules: its member handles reports and gets 401 and the permission page on everything else', async () => {
    const created = await call.post('/api/admin/groupCreate', { name: '版主', name_en: 'Moderators', rules: ids('admin/reports', 'ask/reports', 'ask/moderate') }, boss);
    expect(created.code, created.msg).toBe(1);
    const groupId = created.data.id as number;
    // Parents come along, so the reports page shows under its menu directory.
    const group = ((await call.get('/api/admin/groups', boss)).data.list as GroupView[]).find((g) => g.id === groupId)!;
    expect(group.title).toBe('Moderators');
    expect(group.rules.split(',').map(Number).sort((a, b) => a - b)).toEqual([...ids('admin', 'admin/reports', 'ask', 'ask/reports', 'ask/moderate').split(',').map(Number)].sort((a, b) => a - b));
    expect((await call.post('/api/admin/memberGroup', { id: mia.id, group_id: groupId }, boss)).code).toBe(1);

    expect((await call.get('/api/admin/reports', mia)).code).toBe(1);
    expect((await call.get('/api/ask/reports', mia)).code).toBe(1);
    for (const path of ['/api/admin/members', '/api/admin/groups', '/api/admin/settings', '/api/account/balance', '/api/account/profile', '/api/account/overview', '/api/interaction/messageList?tab=all', '/api/chat/list', '/api/ask/my?kind=post', '/api/developer/modules']) {
      const res = await call.get(path, mia);
      expect(res.code, path).toBe(401);
    }
    for (const [path, body] of [['/api/ask/reply', { post_id: 1, content: 'hello there' }], ['/api/ask/vote', { target: 'post', id: 1, value: 1 }], ['/api/md/save', { book: 'x', name: 'y', title: 't', content: 'c', base: 1 }], ['/api/account/signIn', {}]] as const) {
      expect((await call.post(path, body, mia)).code, path).toBe(401);
    }
    const reports = await call.page('/user/ask/reports', mia);
    expect(reports.status).toBe(200);
    expect(reports.text).toContain('href="/user/ask/reports"');
    expect(reports.text).not.toContain('href="/user/account/balance"');
    const balance = await call.page('/user/account/balance', mia);
    expect(balance.status).toBe(401);
    expect(balance.text).toContain('You do not have permission to see this page');
    expect((await call.page('/admin/reports', mia)).status).toBe(200);
    // Written to the audit log as the console's other actions are.
    const audit = (await call.get('/api/admin/audit?action=group:create', boss)).data.list as { target: string; after: string; username: string }[];
    expect(audit[0]).toMatchObject({ target: '版主', username: 'boss' });
    expect(audit[0]!.after).toContain('admin/reports');
  });

  it('account/balance taken from the member group: the page shows the permission page, the API answers 401, the link is gone', async () => {
    expect((await call.get('/api/account/balance', alice)).code).toBe(1);
    const before = await call.page('/user/account/balance', alice);
    expect(before.status).toBe(200);
    expect(before.text).toContain('href="/user/account/balance"');
    const members = ((await call.get('/api/admin/groups', boss)).data.list as GroupView[]).find((g) => g.id === MEMBER_GROUP)!;
    const drop = new Set([...rules.get('account/balance')!, ...rules.get('account/balance/export')!]);
    const kept = members.rules.split(',').filter((id) => !drop.has(Number(id))).join(',');
    expect((await call.post('/api/admin/groups', { id: MEMBER_GROUP, rules: kept }, boss)).code).toBe(1);

    const api401 = await call.get('/api/account/balance', alice);
    expect(api401.code).toBe(401);
    expect(JSON.stringify(api401.data ?? null)).not.toContain('top-up');
    expect((await raw(srv.url, '/api/account/balanceExport', { headers: { 'ba-user-token': alice.token } })).json<Env>().code).toBe(401);
    const page = await call.page('/user/account/balance', alice);
    expect(page.status).toBe(401);
    expect(page.text).toContain('You do not have permission to see this page');
    const zh = await call.page('/user/account/balance', alice, 'zh-cn');
    expect(zh.text).toContain('你没有权限查看这个页面');
    const overview = await call.page('/user/account/overview', alice);
    expect(overview.status).toBe(200);
    expect(overview.text).not.toContain('href="/user/account/balance"');
    expect((await call.get('/api/account/integral', alice)).code).toBe(1);
    const audit = (await call.get('/api/admin/audit?action=group:rules', boss)).data.list as { before: string; after: string }[];
    expect(audit[0]!.before).toContain('account/balance');
    expect(audit[0]!.after).not.toContain('account/balance');
    // Given back, both answer again.
    expect((await call.post('/api/admin/groups', { id: MEMBER_GROUP, rules: members.rules }, boss)).code).toBe(1);
    expect((await call.get('/api/account/balance', alice)).code).toBe(1);
    expect((await call.page('/user/account/balance', alice)).status).toBe(200);
  });

  it('renames, copies and deletes groups, members moving to the group chosen', async () => {
    const copy = await call.post('/api/admin/groupCopy', { id: MEMBER_GROUP, name: '会员副本', name_en: 'Members copy' }, boss);
    expect(copy.code, copy.msg).toBe(1);
    const id = copy.data.id as number;
    expect((await call.post('/api/admin/groupCopy', { id: MEMBER_GROUP, name: '会员副本', name_en: '' }, boss)).code).toBe(0);
    const renamed = await call.post('/api/admin/groupRename', { id, name: '老会员', name_en: 'Old members' }, boss);
    expect(renamed.code, renamed.msg).toBe(1);
    expect((await call.post('/api/admin/memberGroup', { id: alice.id, group_id: id }, boss)).code).toBe(1);
    expect((await call.get('/api/account/balance', alice)).code).toBe(1);
    const list = (await call.get('/api/admin/groups', boss)).data.list as GroupView[];
    const made = list.find((g) => g.id === id)!;
    expect(made).toMatchObject({ name: '老会员', nameEn: 'Old members', members: 1, rules: list.find((g) => g.id === MEMBER_GROUP)!.rules });
    expect((await call.post('/api/admin/groupDelete', { id, move_to: id }, boss)).code).toBe(0);
    expect((await call.post('/api/admin/groupDelete', { id: MEMBER_GROUP, move_to: ADMIN_GROUP }, boss)).code).toBe(0);
    const deleted = await call.post('/api/admin/groupDelete', { id, move_to: MEMBER_GROUP }, boss);
    expect(deleted.code, deleted.msg).toBe(1);
    expect(deleted.msg).toBe('Group deleted; 1 member moved');
    expect(((await call.get('/api/admin/groups', boss)).data.list as GroupView[]).some((g) => g.id === id)).toBe(false);
    const member = (await call.get(`/api/admin/member?id=${alice.id}`, boss)).data as { member: { groupId: number } };
    expect(member.member.groupId).toBe(MEMBER_GROUP);
    expect((await call.get('/api/account/balance', alice)).code).toBe(1);
    const actions = ((await call.get('/api/admin/audit', boss)).data.list as { action: string }[]).map((r) => r.action);
    for (const a of ['group:copy', 'group:rename', 'group:delete']) expect(actions, a).toContain(a);
  });

  it('no escalation: an administrator whose group lacks * grants only rules they hold and never edits their own group', async () => {
    expect((await call.get('/api/admin/groups', dep)).code).toBe(1);
    expect((await call.get('/api/admin/settings', dep)).code).toBe(401);
    const beyond = await call.post('/api/admin/groupCreate', { name: '越权', name_en: '', rules: ids('admin/settings') }, dep);
    expect(beyond.code).toBe(401);
    expect(beyond.msg).toBe('You cannot grant rules your own group does not hold');
    const within = await call.post('/api/admin/groupCreate', { name: '助理', name_en: 'Assistants', rules: ids('account/overview') }, dep);
    expect(within.code, within.msg).toBe(1);
    const assistants = within.data.id as number;
    // Their own group: neither its rules nor its name.
    expect((await call.post('/api/admin/groups', { id: fx.deputies, rules: ids('admin/groups', 'admin/members', 'admin/settings') }, dep)).msg).toBe('You cannot change your own group');
    expect((await call.post('/api/admin/groupRename', { id: fx.deputies, name: '超级', name_en: '' }, dep)).code).toBe(401);
    // A group holding more than they do: not theirs to change, copy or fill.
    expect((await call.post('/api/admin/groups', { id: MEMBER_GROUP, rules: ids('account/overview') }, dep)).code).toBe(401);
    expect((await call.post('/api/admin/groupCopy', { id: ADMIN_GROUP, name: '复制管理员', name_en: '' }, dep)).code).toBe(401);
    expect((await call.post('/api/admin/groups', { id: assistants, rules: ids('account/overview', 'admin/settings') }, dep)).code).toBe(401);
    expect((await call.post('/api/admin/groups', { id: assistants, rules: ids('account/overview', 'ask/reports') }, dep)).code).toBe(1);
    expect((await call.post('/api/admin/memberGroup', { id: alice.id, group_id: ADMIN_GROUP }, dep)).code).toBe(401);
    expect((await call.post('/api/admin/memberGroup', { id: boss.id, group_id: assistants }, dep)).code).toBe(401);
    expect((await call.post('/api/admin/memberGroup', { id: dep.id, group_id: assistants }, dep)).code).toBe(401);
    expect((await call.post('/api/admin/groupDelete', { id: assistants, move_to: ADMIN_GROUP }, dep)).code).toBe(401);
    // Nothing of it happened.
    const list = (await call.get('/api/admin/groups', boss)).data.list as GroupView[];
    expect(list.some((g) => g.name === '越权' || g.name === '复制管理员')).toBe(false);
    expect(list.find((g) => g.id === fx.deputies)!.name).toBe('副管理员');
    expect((await call.get(`/api/admin/member?id=${alice.id}`, boss)).data).toMatchObject({ member: { groupId: MEMBER_GROUP } });
    expect((await call.get('/api/admin/settings', dep)).code).toBe(401);
  });

  it('manages groups and rules from the CLI while the site runs; each change holds at once and is audited', async () => {
    // Read-only commands at once: each CLI call starts a process, slow on a loaded machine.
    const [header, ruleList, help] = await Promise.all([cli('group:list'), cli('rule:list'), cli('help')]);
    expect(header.status).toBe(0);
    expect(header.stdout.split('\n')[0]).toBe('id\tname\tname_en\tmembers\trules');
    expect(header.stdout).toMatch(/\n1\t默认分组\tMembers\t\d+\t[a-zA-Z/,]*account\/balance/);
    expect(header.stdout).toMatch(/\n2\t管理员\tAdministrators\t1\t\*\n/);
    expect(ruleList.stdout.split('\n')[0]).toBe('id\tname\ttype\ttitle');
    expect(ruleList.stdout).toMatch(/\t {2}account\/balance\tmenu\t余额记录\n/);
    expect(ruleList.stdout).toMatch(/\tforum\troute\t/);

    const made = await cli('group:create', '审核员', '--title-en', 'Reviewers', '--rules', 'ask/reports,admin/reports');
    expect(made.stderr).toBe('');
    expect(made.stdout).toMatch(/^Group 审核员 \(id \d+\) created with rules: ask,ask\/reports,admin,admin\/reports\.\n$/);
    expect((await cli('user:group', 'alice', 'Reviewers')).status).toBe(0);
    expect((await call.get('/api/account/overview', alice)).code).toBe(401);
    expect((await call.get('/api/admin/reports', alice)).code).toBe(1);

    const changed = await cli('group:rules', 'Reviewers', '--add', 'account/overview,account/balance', '--remove', 'admin');
    expect(changed.stdout).toBe('审核员: account,account/overview,account/balance,ask,ask/reports\n');
    expect((await call.get('/api/account/overview', alice)).code).toBe(1);
    expect((await call.get('/api/admin/reports', alice)).code).toBe(401);

    const unknown = await cli('group:rules', 'Reviewers', '--add', 'no/such/rule');
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toBe('Unknown rules: no/such/rule\n');
    expect((await cli('group:delete', '默认分组', '--move-to', 'Reviewers')).stderr).toContain('cannot be deleted');

    const gone = await cli('group:delete', 'Reviewers', '--move-to', 'Members');
    expect(gone.stdout).toBe('Group 审核员 deleted; 1 member moved to 默认分组.\n');
    expect((await call.get('/api/account/overview', alice)).code).toBe(1);
    expect((await call.get('/api/admin/reports', alice)).code).toBe(401);

    const audit = (await call.get('/api/admin/audit?actor=cli', boss)).data.list as { action: string; target: string }[];
    for (const a of ['group:create', 'group:rules', 'group:delete']) expect(audit.some((r) => r.action === a && r.target === (a === 'group:create' ? '审核员' : 'Reviewers')), a).toBe(true);
    expect(audit.some((r) => r.action === 'group:list' || r.action === 'rule:list')).toBe(false);
    for (const c of ['group:list', 'group:create <name> [--title-en <name>] [--rules a,b]', 'group:rules <group> [--add a,b] [--remove a,b]', 'group:delete <group> --move-to <group>', 'rule:list']) expect(help.stdout, c).toContain(c);
  }, scaled(300_000));
});

const pgEnabled = Boolean(process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL);

describe.skipIf(!pgEnabled)('groups on two instances (PostgreSQL + Redis)', () => {
  let a: TestServer;
  let b: TestServer;
  let dataDir: string;
  let databaseUrl: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    databaseUrl = await freshPostgres();
    dataDir = mkdtempSync(join(TMP, 'groups-pg-'));
    await prepare({ DATA_DIR: dataDir, DATABASE_URL: databaseUrl });
    env = { DATABASE_URL: databaseUrl, REDIS_URL: process.env.TEST_REDIS_URL!, REDIS_PREFIX: `${PG_PREFIX}-groups-${Date.now()}:` };
    a = await startServer({ dataDir, env });
    b = await startServer({ dataDir, env });
  }, scaled(120_000));

  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Polls `check` on an instance for up to 2 s (the bus delivers in milliseconds). */
  async function eventually(check: () => Promise<boolean>): Promise<boolean> {
    for (let i = 0; i < 40; i++) {
      if (await check()) return true;
      await new Promise((r) => setTimeout(r, 50));
    }
    return false;
  }

  it('a rule taken on one instance (console, then CLI) is refused on the other at once', async () => {
    const onA = api(a.url);
    const onB = api(b.url);
    const boss = await login(a.url, 'boss');
    const alice = await login(b.url, 'alice');
    // B has the member group's tree cached.
    expect((await onB.get('/api/account/balance', alice)).code).toBe(1);
    expect((await onB.page('/user/account/balance', alice)).status).toBe(200);
    const rules = await ruleIds(onA.get, boss);
    const members = ((await onA.get('/api/admin/groups', boss)).data.list as GroupView[]).find((g) => g.id === MEMBER_GROUP)!;
    const drop = new Set([...rules.get('account/balance')!, ...rules.get('account/balance/export')!]);
    const saved = await onA.post('/api/admin/groups', { id: MEMBER_GROUP, rules: members.rules.split(',').filter((id) => !drop.has(Number(id))).join(',') }, boss);
    expect(saved.code).toBe(1);
    expect(await eventually(async () => (await onB.get('/api/account/balance', alice)).code === 401)).toBe(true);
    expect((await onB.page('/user/account/balance', alice)).status).toBe(401);

    // The CLI in its own process (PostgreSQL + Redis) gives it back: B sees that too.
    const cli = cliRunner({ DATA_DIR: dataDir, ...env });
    const back = await cli('group:rules', 'Members', '--add', 'account/balance');
    expect(back.stderr).toBe('');
    expect(back.stdout).toContain('account/balance');
    expect(await eventually(async () => (await onB.get('/api/account/balance', alice)).code === 1)).toBe(true);
    expect((await onB.page('/user/account/balance', alice)).status).toBe(200);
  }, scaled(120_000));
});
