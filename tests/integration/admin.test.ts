// Operators (issue 18) against the built server on PGlite: the first-start link, the CLI while the
// site serves requests (through DATA_DIR/atrium.sock), the console's APIs refused per section to
// groups without the rule, every action in the audit log, backups while writes run.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, postJson, raw, type TestServer } from '../helpers/server';
import { ROOT, TEMPLATE_DIR, TMP } from '../helpers/paths';
import { memberRecords, PASSWORD, prepareAdminSite, setupPath, type AdminSite } from '../helpers/admin-site';
import { scaled } from '../helpers/time-scale.mjs';

type Env = { code: number; msg: string; data: Record<string, unknown> & { fields?: Record<string, string> } };

let srv: TestServer;
let site: AdminSite;
let dataDir: string;
let admin = '';
const cookies: Record<string, string> = {};

function cli(...args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const env: Record<string, string> = { ...(process.env as Record<string, string>), ATRIUM_ROOT: ROOT, DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  delete env.DATABASE_URL;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(ROOT, 'dist/cli.mjs'), ...args], { env, cwd: TMP });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

const headers = (cookie: string): Record<string, string> => ({ cookie, origin: srv.url, 'think-lang': 'en' });
const get = async (path: string, cookie = admin): Promise<Env> => (await raw(srv.url, path, { headers: headers(cookie) })).json<Env>();
const post = async (path: string, body: unknown, cookie = admin): Promise<Env> => (await postJson(srv.url, path, body, headers(cookie))).json<Env>();

async function login(username: string): Promise<string> {
  const res = await postJson(srv.url, '/api/user/checkIn', { tab: 'login', username, password: PASSWORD, keep: true });
  expect(res.json<Env>().code, res.text).toBe(1);
  return ([] as string[]).concat(res.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]).join('; ');
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(TMP, 'admin-'));
  cpSync(TEMPLATE_DIR, dataDir, { recursive: true });
  site = await prepareAdminSite({ DATA_DIR: dataDir });
  srv = await startServer({ dataDir });
}, scaled(120_000));

afterAll(async () => {
  await srv?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('first start', () => {
  it('prints a setup link once; /install needs its token and only works while there is no administrator', async () => {
    const path = setupPath(srv.logs());
    expect(path).not.toBeNull();
    expect(srv.logs().match(/\/install\?token=/g)).toHaveLength(1);
    expect((await raw(srv.url, '/install')).status).toBe(404);
    expect((await raw(srv.url, '/install?token=wrong')).status).toBe(404);
    const page = await raw(srv.url, path!);
    expect(page.status).toBe(200);
    expect(page.text).toContain('name="site_name"');
    expect(page.text).toContain('data-action="set-language" data-locale="en"');
    const token = new URL(path!, srv.url).searchParams.get('token')!;
    // Bad input: field errors in the caller's language, nothing spent.
    const bad = await post('/api/install/create', { token, username: '1x', email: 'nope', password: '123', site_name: '' }, '');
    expect(bad.code).toBe(0);
    expect(Object.keys(bad.data.fields ?? {}).sort()).toEqual(['email', 'password', 'site_name', 'username']);
    expect((await post('/api/install/create', { token: 'wrong', username: 'boss', email: 'boss@example.com', password: PASSWORD, site_name: 'Operators Inc' }, '')).code).toBe(0);
    const res = await postJson(srv.url, '/api/install/create', { token, username: 'boss', email: 'boss@example.com', password: PASSWORD, site_name: 'Operators Inc' }, { origin: srv.url });
    expect(res.json<Env>().code, res.text).toBe(1);
    admin = ([] as string[]).concat(res.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]).join('; ');
    expect(admin).toContain('ba-user-token=');
    expect((await raw(srv.url, path!)).status).toBe(404);
    expect((await post('/api/install/create', { token, username: 'boss2', email: 'boss2@example.com', password: PASSWORD, site_name: 'Again' }, '')).code).toBe(0);
    const index = await get('/api/index/index?requiredLogin=0');
    expect((index.data.site as { siteName: string }).siteName).toBe('Operators Inc');
  });
});

describe('the CLI against the running site', () => {
  it('runs commands inside the server through an owner-only socket while it serves requests', async () => {
    expect(statSync(join(dataDir, 'atrium.sock')).mode & 0o777).toBe(0o600);
    let served = 0;
    let failed = 0;
    let stop = false;
    const load = (async () => {
      while (!stop) {
        const r = await raw(srv.url, '/ask');
        if (r.status === 200) served++; else failed++;
      }
    })();
    const created = await cli('user:create', 'carol', 'carol@example.com', PASSWORD, '--group', '默认分组');
    const moved = await cli('user:group', 'carol', '2');
    const list = await cli('user:list');
    const link = await cli('user:reset-password', 'carol');
    stop = true;
    await load;
    expect(created.stderr).toBe('');
    expect(created.stdout).toMatch(/^Member carol \(id \d+\) created in group 默认分组\.\n$/);
    expect(created.status).toBe(0);
    expect(moved.stdout).toBe('carol is now in group 管理员.\n');
    expect(list.stdout).toMatch(/\tcarol\tcarol\tcarol@example.com\t-\tgroup 2\tenable/);
    expect(link.stdout).toMatch(/\/reset-password\?token=[\w-]+\n$/);
    expect(served).toBeGreaterThan(0);
    expect(failed).toBe(0);
    // Loopback may read the metrics: the load above is counted by route.
    const metrics = await raw(srv.url, '/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.text).toMatch(/atrium_http_requests_total\{route="ask",method="GET",status="200"\} \d+/);
    expect(metrics.text).toMatch(/atrium_db_query_duration_seconds_count \d+/);
    expect((await raw(srv.url, '/ask')).headers['x-request-id']).toMatch(/\S+/);
    // The server ran them: its log says so, and the database lock never changed hands.
    expect(srv.logs()).toContain('cli: user:create');
    // The reset link works once.
    const resetPath = /\/reset-password\?token=[\w-]+/.exec(link.stdout)![0];
    expect((await raw(srv.url, resetPath)).text).toContain('carol');
    const token = new URL(resetPath, srv.url).searchParams.get('token');
    expect((await post('/api/user/resetPassword', { token, password: 'newpass99' }, '')).code).toBe(1);
    expect((await post('/api/user/resetPassword', { token, password: 'newpass99' }, '')).code).toBe(0);
    const relog = await postJson(srv.url, '/api/user/checkIn', { tab: 'login', username: 'carol', password: 'newpass99' });
    expect(relog.json<Env>().code).toBe(1);
    // Errors keep their exit codes.
    const missing = await cli('user:group', 'nobody_here', '1');
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain('No member "nobody_here"');
  }, scaled(60_000));
});

const SECTION_APIS: [string, string, string, unknown][] = [
  ['dashboard', 'GET', '/api/admin/dashboard', null],
  ['members', 'GET', '/api/admin/members', null],
  ['members', 'GET', '/api/admin/member?id=1', null],
  ['groups', 'GET', '/api/admin/groups', null],
  ['settings', 'GET', '/api/admin/settings', null],
  ['notices', 'GET', '/api/admin/notices', null],
  ['reports', 'GET', '/api/admin/reports', null],
  ['books', 'GET', '/api/admin/books', null],
  ['finance', 'GET', '/api/admin/withdrawals', null],
  ['modules', 'GET', '/api/admin/modules', null],
  ['audit', 'GET', '/api/admin/audit', null],
  ['members', 'POST', '/api/admin/memberAdjust', { id: 1, kind: 'score', amount: '5', memo: 'x' }],
  ['settings', 'POST', '/api/admin/settings', { values: { site_name: 'Hacked' } }],
  ['notices', 'POST', '/api/admin/notices', { title: 'x', content: 'y' }],
  ['finance', 'POST', '/api/admin/withdrawals', { id: 1, decision: 'approve' }],
  ['dashboard', 'POST', '/api/admin/backup', {}],
];

describe('console permissions', () => {
  it('refuses every section to visitors (login) and members (401)', async () => {
    cookies.alice = await login('alice');
    for (const [, method, path, body] of SECTION_APIS) {
      const visitor = method === 'GET' ? await get(path, '') : await post(path, body, '');
      expect(visitor.code, path).toBe(303);
      const member = method === 'GET' ? await get(path, cookies.alice) : await post(path, body, cookies.alice);
      expect(member.code, path).toBe(401);
    }
    expect((await raw(srv.url, '/admin/dashboard', { headers: { cookie: cookies.alice } })).status).toBe(403);
    expect((await raw(srv.url, '/admin/dashboard')).status).toBe(302);
  });

  it('a group holding only the reports rule gets reports and nothing else', async () => {
    const groups = (await get('/api/admin/groups')).data.list as { id: number; name: string; tree: { id: number; name: string; children?: unknown[] }[] }[];
    const flat = (nodes: { id: number; name: string; children?: unknown[] }[]): { id: number; name: string }[] =>
      nodes.flatMap((n) => [n, ...flat((n.children ?? []) as typeof nodes)]);
    const admins = groups.find((g) => g.id === 2)!;
    const reportsRule = flat(admins.tree).find((n) => n.name === 'admin/reports')!;
    // A moderators group made through the groups API: only the reports rule. (Not the member
    // group: since member-center APIs enforce their rules, its members would lose their own records.)
    const editGroup = await post('/api/admin/groupCreate', { name: 'Reports only', name_en: '', rules: String(reportsRule.id) });
    expect(editGroup.code).toBe(1);
    const created = await cli('user:create', 'mod', 'mod@example.com', PASSWORD, '--group', 'Reports only');
    expect(created.status).toBe(0);
    const modCookie = await login('mod');
    for (const [section, method, path, body] of SECTION_APIS) {
      const reply = method === 'GET' ? await get(path, modCookie) : await post(path, body, modCookie);
      if (section === 'reports') expect(reply.code, path).toBe(1);
      else expect(reply.code, path).toBe(401);
    }
    const page = await raw(srv.url, '/admin', { headers: { cookie: modCookie } });
    expect(page.status).toBe(302);
    expect(page.headers.location).toBe('/admin/reports');
    // Administrators' group cannot be narrowed.
    expect((await post('/api/admin/groups', { id: 2, rules: '1' })).code).toBe(0);
  });
});

describe('console actions and the audit log', () => {
  it('settings are checked, applied and logged; members adjusted; notices; reports; withdrawals', async () => {
    const bad = await post('/api/admin/settings', { values: { sign_in_score: 'ten', head_nav: '[', version: 'v9', nope: 'x' } });
    expect(bad.code).toBe(0);
    expect(bad.data.fields).toMatchObject({ 'values.sign_in_score': 'Enter a number', 'values.head_nav': 'Not valid JSON', 'values.version': 'Unknown setting', 'values.nope': 'Unknown setting' });
    expect((await post('/api/admin/settings', { values: { site_name: 'Renamed Site', sign_in_score: '12' } })).code).toBe(1);
    expect(((await get('/api/index/index?requiredLogin=0', '')).data.site as { siteName: string }).siteName).toBe('Renamed Site');
    const settings = await get('/api/admin/settings');
    const fields = settings.data.fields as unknown as { name: string; defaultValue: string | null; group: string }[];
    expect(fields.find((f) => f.name === 'sign_in_score')?.defaultValue).toBe('10');
    expect(fields.some((f) => f.name === 'token_secret')).toBe(false);
    expect(settings.data.groups).toEqual(expect.arrayContaining(['basics', 'user', 'upload', 'mail', 'market', 'backup']));

    const adj = await post('/api/admin/memberAdjust', { id: site.aliceId, kind: 'money', amount: '12.50', memo: 'refund' });
    expect(adj.code).toBe(1);
    expect(adj.data).toEqual({ before: '0.00', after: '12.50' });
    expect((await post('/api/admin/memberAdjust', { id: site.aliceId, kind: 'money', amount: '-100', memo: 'too much' })).data.fields).toEqual({ amount: 'The result would be negative; nothing was changed' });
    expect((await post('/api/admin/memberAdjust', { id: site.aliceId, kind: 'score', amount: '1.5', memo: 'x' })).data.fields).toEqual({ amount: 'Points must be a whole number' });

    const notice = await post('/api/admin/notices', { id: 0, title: 'Maintenance', content: 'Tonight at 23:00.' });
    expect(notice.code).toBe(1);
    expect((await post('/api/admin/noticeStatus', { id: notice.data.id, status: 0 })).code).toBe(1);

    expect((await post('/api/admin/reports', { id: site.reportId, action: 'dismiss' })).code).toBe(1);
    expect((await post('/api/admin/reports', { id: site.reportId, action: 'dismiss' })).code).toBe(0);
    const noReason = await post('/api/admin/withdrawals', { id: site.withdrawalId, decision: 'reject' });
    expect(noReason.data?.fields, JSON.stringify(noReason)).toEqual({ remark: 'Give a reason when rejecting' });
    expect((await post('/api/admin/withdrawals', { id: site.withdrawalId, decision: 'approve', remark: 'bank ref 42' })).code).toBe(1);
    expect((await post('/api/admin/withdrawals', { id: site.withdrawalId, decision: 'approve' })).code).toBe(0);

    const disable = await post('/api/admin/memberStatus', { id: site.aliceId, status: 'disable' });
    expect(disable.code).toBe(1);
    expect((await get('/api/account/overview', cookies.alice)).code).not.toBe(1);

    const audit = await get('/api/admin/audit?page=1');
    const actions = (audit.data.list as { action: string; username: string; target: string; before: string; after: string; ip: string }[]);
    const names = actions.map((a) => a.action);
    for (const a of ['install', 'config:set', 'member:money', 'notice:add', 'notice:status', 'report:dismiss', 'withdraw:pay', 'member:status', 'group:create', 'user:create', 'user:group', 'user:reset-password']) expect(names, a).toContain(a);
    const rename = actions.find((a) => a.action === 'config:set' && a.target === 'site_name')!;
    expect(rename).toMatchObject({ username: 'boss', before: 'Operators Inc', after: 'Renamed Site', ip: '127.0.0.1' });
    expect(actions.find((a) => a.action === 'user:create')).toMatchObject({ username: 'cli' });
    expect(actions.find((a) => a.action === 'user:create')!.after).toContain('********');
    const filtered = await get('/api/admin/audit?action=withdraw:pay');
    expect((filtered.data.list as unknown[]).length).toBe(1);
  });

  it('renders every section for the administrator in both languages', async () => {
    for (const section of ['dashboard', 'members', `members/${site.aliceId}`, 'groups', 'settings', 'settings/mail', 'notices', 'reports', 'books', 'market', 'finance', 'modules', 'audit']) {
      for (const lang of ['zh-cn', 'en']) {
        const page = await raw(srv.url, `/admin/${section}`, { headers: { cookie: `${admin}; ba-lang=${lang}` } });
        expect(page.status, section).toBe(200);
        expect(page.text).toContain(lang === 'en' ? 'Admin console' : '管理后台');
        // The console has the language switch, offering the other language.
        expect(page.text).toContain(`data-action="set-language" data-locale="${lang === 'en' ? 'zh-cn' : 'en'}"`);
      }
    }
    expect((await raw(srv.url, '/admin/nosuch', { headers: { cookie: admin } })).status).toBe(404);
    expect((await raw(srv.url, '/user/market/review', { headers: { cookie: admin } })).headers.location).toBe('/admin/market');
  });
});

describe('backups', () => {
  it('backs up through the socket while writes run; restores into an empty directory and serves the same posts, books, orders and files', async () => {
    let writes = 0;
    let stop = false;
    const writer = (async () => {
      while (!stop) {
        const r = await post('/api/admin/notices', { id: 0, title: `Load ${writes}`, content: 'written during the backup' });
        if (r.code === 1) writes++;
      }
    })();
    const file = join(TMP, `admin-backup-${Date.now()}.backup.gz`);
    const done = await cli('backup', file);
    stop = true;
    await writer;
    expect(done.stderr).toBe('');
    // Two files: the member's upload and the editor's package every site keeps (DATA_DIR/packages/first-party).
    expect(done.stdout).toMatch(/^Backup written: .*\(\d+(\.\d)? KB; \d+ rows in \d+ tables, 2 files\)\.\n$/);
    expect(writes).toBeGreaterThan(0);
    const dash = await get('/api/admin/dashboard');
    expect(((dash.data.system as { lastBackup: { target: string } }).lastBackup).target).toBe(file);

    // Restoring onto the running site is refused; into an empty directory it works.
    expect((await cli('restore', file)).status).toBe(1);
    const empty = mkdtempSync(join(TMP, 'restored-'));
    const env: Record<string, string> = { ...(process.env as Record<string, string>), ATRIUM_ROOT: ROOT, DATA_DIR: empty, LOG_LEVEL: 'warn' };
    delete env.DATABASE_URL;
    const restored = spawnSync(process.execPath, [join(ROOT, 'dist/cli.mjs'), 'restore', file], { env, encoding: 'utf8' });
    expect(restored.stderr).toBe('');
    expect(restored.stdout).toMatch(/^Restored \d+ rows and 2 files from a pglite backup/); // the upload and the editor package
    const copy = await startServer({ dataDir: empty });
    try {
      for (const path of [`/ask/info/${site.postId}`, '/md/handbook', site.file]) {
        const [a, b] = await Promise.all([raw(srv.url, path), raw(copy.url, path)]);
        expect(b.status, path).toBe(200);
        if (path === site.file) expect(b.text).toBe(readFileSync(join(dataDir, 'storage/test/hello.txt'), 'utf8'));
        else expect(b.text.match(/<h1[^>]*>[^<]*/)?.[0], path).toBe(a.text.match(/<h1[^>]*>[^<]*/)?.[0]);
      }
      // The same orders and balance log (module market and ledger) for the member who bought.
      const [before, after] = await Promise.all([memberRecords(srv.url, site.buyer), memberRecords(copy.url, site.buyer)]);
      expect(before.orders.map((o) => o.order_no)).toEqual([site.orderNo]);
      expect(before.balance.length).toBe(2);
      expect(after).toEqual(before);
      expect(setupPath(copy.logs())).toBeNull();
      const names = (await raw(copy.url, '/api/index/index?requiredLogin=0')).json<Env>().data.site as { siteName: string };
      expect(names.siteName).toBe('Renamed Site');
    } finally {
      await copy.stop();
      rmSync(empty, { recursive: true, force: true });
    }
  }, scaled(120_000));
});
