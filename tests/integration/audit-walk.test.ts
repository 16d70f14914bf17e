// The audit log is complete (issue 28, item 8): every console API route that changes something and
// every CLI command that changes something writes an audit row. The lists are derived, not typed:
// the routes from the route files (src/pages/api/admin/, plus any route or raw route only
// administrators may write to, such as the market review), the commands from the CLI's registry
// minus its read-only ones. A new route or command without a call here, or without an audit row,
// fails.
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { desc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../src/lib/server/env';
import { createRuntime } from '../../src/lib/server/boot/runtime';
import type { Runtime } from '../../src/lib/server/runtime';
import { adminLog, developer, developerWithdrawal, module, moduleVersion, user } from '../../src/lib/server/db/schema';
import { requestInvoice } from '../../src/lib/server/account/invoices';
import { runCommand } from '../../src/server/cli';
import { listCommands } from '../../src/lib/server/commands';
import type { AccessMethod, MethodAccess } from '../../src/lib/shared/access';
import { methodsOf, send, type ApiRoute } from '../helpers/api-routes';
import { prepareAuthzSite, startAuthzServer, type AuthzServer, type AuthzSite } from '../helpers/authz-site';
import { SAMPLES, idNumber, type Sample } from '../helpers/route-samples';
import { ROOT, TEMPLATE_DIR, TMP } from '../helpers/paths';
import { raw } from '../helpers/server';
import { scaled } from '../helpers/time-scale.mjs';

type Env<T = unknown> = { code: number; msg: string; data: T };

/** A write only administrators may make: their cell passes the check, every other actor's does not. */
function adminOnly(decl: MethodAccess): boolean {
  return (['member', 'other', 'developer', 'moderator'] as const).every((a) => decl[a] === 'denied') && decl.admin !== 'denied' && decl.admin !== 'login';
}

/** The console's write calls: every non-GET method under /api/admin/, and admin-only writes elsewhere. */
function consoleWrites(routes: ApiRoute[]): { r: ApiRoute; method: AccessMethod }[] {
  return routes.flatMap((r) => methodsOf(r.access ?? {})
    .filter(([method, decl]) => method !== 'GET' && (r.key.startsWith('/api/admin/') || adminOnly(decl)))
    .map(([method]) => ({ r, method })));
}

/**
 * Calls whose matrix sample is refused for an administrator on purpose (it tests the check, not the
 * action): here they get one that goes through, and what it needs first.
 */
const SUCCEEDING: Record<string, { before?: (site: AuthzServer) => Promise<void>; sample: (fx: AuthzSite) => Sample }> = {
  // bob applies to become a developer; the administrator turns him down.
  '/api/market/review': {
    before: async ({ server, fx, tokens }) => {
      const applied = await send(server.url, '/api/developer/verif', 'POST', SAMPLES['/api/developer/verif']!.POST!(fx, 'other'), tokens.other);
      expect(applied.json<Env>().code, applied.text).toBe(1);
    },
    sample: (fx) => ({ body: { type: 'developer', id: fx.ids.other, approve: false, reason: 'The ID photo is missing' } }),
  },
  // The matrix sample sets the name the site already has: nothing changes, so nothing to record.
  '/api/admin/settings': { sample: () => ({ body: { values: { site_name: 'Audited site' } } }) },
  // Installed by /api/modules/install just before (routes run in order of their paths).
  '/api/modules/lifecycle': { sample: () => ({ body: { uid: 'editor', action: 'disable' } }) },
  '/api/modules/uninstall': { sample: () => ({ body: { uid: 'editor' } }) },
  // Deleting a book needs its name typed again; a book of its own, so the calls after it keep theirs.
  '/api/admin/bookDelete': {
    before: async ({ server, tokens }) => {
      const made = await send(server.url, '/api/admin/bookCreate', 'POST', { body: { name: 'doomed-console', title: 'Doomed console book' } }, tokens.admin);
      expect(made.json<Env>().code, made.text).toBe(1);
    },
    sample: () => ({ body: { name: 'doomed-console', confirm: 'doomed-console' } }),
  },
  '/api/md/bookDelete': {
    before: async ({ server, tokens }) => {
      const made = await send(server.url, '/api/md/bookCreate', 'POST', { body: { name: 'doomed-reader', title: 'Doomed reader book' } }, tokens.admin);
      expect(made.json<Env>().code, made.text).toBe(1);
    },
    sample: () => ({ body: { name: 'doomed-reader', confirm: 'doomed-reader' } }),
  },
};

/**
 * Console writes whose call cannot go through on the walk's one site, and whose audit rows are
 * asserted where it can: connecting to and installing from another market needs a second site
 * (module-remote-console.test.ts checks the connect, install and disconnect rows, without the token),
 * and a module's settings need a module with settings installed (module-webhook.test.ts checks the
 * `module:settings` row, secrets masked).
 */
const AUDITED_ELSEWHERE: Record<string, string> = {
  '/api/admin/remoteMarkets': 'tests/integration/module-remote-console.test.ts',
  '/api/admin/remoteModules': 'tests/integration/module-remote-console.test.ts',
  '/api/modules/settings': 'tests/integration/module-webhook.test.ts',
};

describe('the audit log of the console', () => {
  let site: AuthzServer | undefined;
  beforeAll(async () => {
    site = await startAuthzServer('audit-', { API_RATE_LIMIT: '100000' });
  }, scaled(120_000));
  afterAll(async () => {
    await site?.close();
  });

  it('has a row, by the administrator, for every console API call that changes something', async () => {
    const { server, fx, routes, tokens } = site!;
    const audit = async (): Promise<{ total: number; list: { action: string; username: string; target: string }[] }> =>
      (await raw(server.url, '/api/admin/audit?page=1', { headers: { 'ba-user-token': tokens.admin!, 'think-lang': 'en' } })).json<Env<{ total: number; list: { action: string; username: string; target: string }[] }>>().data;
    const writes = consoleWrites(routes).sort((a, b) => a.r.key.localeCompare(b.r.key));
    // The walk covers the console and the market decisions at least.
    expect(writes.map((w) => w.r.key)).toEqual(expect.arrayContaining(['/api/admin/memberGroup', '/api/admin/reports', '/api/admin/settings', '/api/market/review', '/api/modules/install']));
    const missing: string[] = [];
    for (const { r, method } of writes) {
      if (AUDITED_ELSEWHERE[r.key]) continue;
      const special = SUCCEEDING[r.key];
      await special?.before?.(site!);
      const sample = special ? special.sample(fx) : SAMPLES[r.key]?.[method]?.(fx, 'admin');
      if (!sample) { missing.push(`${method} ${r.key}: no sample`); continue; }
      const before = await audit();
      const res = await send(server.url, r.url, method, sample, tokens.admin);
      const reply = res.json<Env>();
      if (reply.code !== 1) { missing.push(`${method} ${r.key}: the call did not go through (${reply.msg})`); continue; }
      const after = await audit();
      if (after.total <= before.total) missing.push(`${method} ${r.key}: no audit row`);
      else if (after.list[0]!.username !== 'boss') missing.push(`${method} ${r.key}: the row names ${after.list[0]!.username}, not the administrator`);
    }
    expect(missing).toEqual([]);
    const actions = new Set((await audit()).list.map((row) => row.action));
    expect([...actions]).toEqual(expect.arrayContaining(['market:developer:reject', 'module:install', 'module:uninstall', 'report:dismiss']));
  }, scaled(180_000));
});

/** The registered commands that change something (the help is generated from the same registry). */
function writeCommands(): string[] {
  return listCommands().filter((c) => !c.readOnly).map((c) => c.name).sort();
}

describe('the audit log of the CLI', () => {
  let dir = '';
  let rt: Runtime;
  let fx: AuthzSite;
  let invoiceB = 0;
  const withdrawals: number[] = [];
  beforeAll(async () => {
    dir = mkdtempSync(join(TMP, 'audit-cli-'));
    cpSync(TEMPLATE_DIR, dir, { recursive: true });
    fx = await prepareAuthzSite({ DATA_DIR: dir });
    rt = await createRuntime(readConfig({ ATRIUM_ROOT: ROOT, DATA_DIR: dir, LOG_LEVEL: 'warn' }));
    const t = Math.floor(Date.now() / 1000);
    // A second invoice and withdrawal (one to accept, one to refuse), a developer application, a
    // module and a version waiting for review.
    invoiceB = await requestInvoice(rt.db, fx.ids.member, { amount: '0.50', title: 'Second Ltd', email: 'alice@example.com' } as never);
    for (const amount of [10_000, 11_000]) {
      const [w] = await rt.db.insert(developerWithdrawal).values({ developerId: fx.ids.member, amount, account: 'ICBC 6222 0000 1111', status: 'pending', createTime: t, updateTime: t }).returning({ id: developerWithdrawal.id });
      withdrawals.push(w!.id);
    }
    await rt.db.insert(developer).values({ userId: fx.ids.carol, realName: '王五', idNumber: idNumber(201), mobile: '13800138001', email: 'carol@example.com', province: '11', status: 'pending', createTime: t, updateTime: t });
    await rt.db.update(module).set({ status: 'review' }).where(eq(module.id, fx.draftId));
    await rt.db.insert(moduleVersion).values({ moduleId: fx.moduleId, version: '1.1.0', changelog: 'Second', packagePath: 'test/x.zip', packageName: 'x.zip', packageSize: 1, status: 'review', createTime: t });
    mkdirSync(join(dir, 'import'), { recursive: true });
    writeFileSync(join(dir, 'import', 'intro.md'), '---\ntitle: Intro\n---\n# Intro\n');
  }, scaled(120_000));
  afterAll(async () => {
    await rt?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('has a row, by "cli", for every command that changes something', async () => {
    const invoiceA = fx.invoiceId;
    const [withdrawalA, withdrawalB] = withdrawals;
    /** One invocation per write command, in order (install before uninstall, add before remove). */
    const CALLS: Record<string, string[]> = {
      'config:set': ['config:set', 'site_name', 'Audited'],
      'user:create-admin': ['user:create-admin', 'root2', 'root2@example.com', 'a-long-pass1'],
      'user:create': ['user:create', 'dave', 'dave@example.com', 'a-long-pass1'],
      'user:group': ['user:group', 'dave', '2'],
      'user:reset-password': ['user:reset-password', 'dave'],
      'user:disable': ['user:disable', 'dave'],
      'user:enable': ['user:enable', 'dave'],
      'user:money': ['user:money', 'dave', '12.50', 'refund'],
      'user:score': ['user:score', 'dave', '5', 'thanks'],
      'notice:add': ['notice:add', 'Maintenance', 'Tonight at ten'],
      'invoice:issue': ['invoice:issue', String(invoiceA)],
      'invoice:reject': ['invoice:reject', String(invoiceB), 'Wrong', 'title'],
      'withdraw:pay': ['withdraw:pay', String(withdrawalA)],
      'withdraw:reject': ['withdraw:reject', String(withdrawalB), 'Wrong', 'account'],
      'group:create': ['group:create', 'Auditors', '--title-en', 'Auditors', '--rules', 'forum'],
      'group:rename': ['group:rename', 'Auditors', 'Checkers', '--title-en', 'Checkers'],
      'group:rules': ['group:rules', 'Checkers', '--add', 'docs'],
      'group:delete': ['group:delete', 'Checkers', '--move-to', '1'],
      'rule:add': ['rule:add', 'menu', 'audited-link', 'Audited', 'link', '--parent', 'account', '--menu-type', 'link', '--url', 'https://example.com/'],
      'rule:remove': ['rule:remove', 'audited-link'],
      'md:book': ['md:book', 'audited', '--title', 'Audited book'],
      'md:editor': ['md:editor', 'audited', 'dave'],
      'md:import': ['md:import', join(dir, 'import'), '--book', 'imported'],
      'module:install': ['module:install', 'editor'],
      'module:disable': ['module:disable', 'editor'],
      'module:enable': ['module:enable', 'editor'],
      'module:uninstall': ['module:uninstall', 'editor'],
      'developer:review': ['developer:review', 'carol', 'reject', 'The', 'ID', 'photo', 'is', 'missing'],
      'module:review': ['module:review', 'alice-draft', 'reject', 'Not', 'ready'],
      'version:review': ['version:review', fx.moduleUid, '1.1.0', 'reject', 'Broken'],
      'chat:add': ['chat:add', 'audited', '--base-url', 'https://llm.example.com/v1', '--model', 'm1', '--key', 'sk-secret-value'],
      'chat:price': ['chat:price', 'audited', '--price-1k', '3'],
      'chat:remove': ['chat:remove', 'audited'],
      backup: ['backup', join(dir, 'audit.backup.gz')],
    };
    // Restoring runs on a stopped site, before any runtime (src/server/cli-entry.ts writes its row).
    // Upgrading and rolling back need a module with two reviewed packages (module-lifecycle.test.ts
    // checks their audit rows), installing from a remote market a second site (module-remote.test.ts).
    const ELSEWHERE = new Set(['restore', 'module:upgrade', 'module:rollback', 'module:remote:connect', 'module:remote:install', 'module:remote:disconnect']);
    const writes = writeCommands().filter((c) => !ELSEWHERE.has(c));
    expect(writes.length).toBeGreaterThan(20);
    expect(writes.filter((c) => !CALLS[c]).map((c) => `${c}: no call in this test`)).toEqual([]);
    expect(Object.keys(CALLS).filter((c) => !writes.includes(c)).map((c) => `${c}: not a registered write command`)).toEqual([]);
    const problems: string[] = [];
    for (const command of Object.keys(CALLS)) {
      let output = '';
      const io = { out: (s: string) => { output += s; }, err: (s: string) => { output += s; }, cwd: dir };
      const [{ id: lastId } = { id: 0 }] = await rt.db.select({ id: adminLog.id }).from(adminLog).orderBy(desc(adminLog.id)).limit(1);
      const code = await runCommand(CALLS[command]!, rt, io);
      if (code !== 0) { problems.push(`${command}: exit ${code}: ${output.trim()}`); continue; }
      const [row] = await rt.db.select().from(adminLog).orderBy(desc(adminLog.id)).limit(1);
      if (!row || row.id <= lastId) problems.push(`${command}: no audit row`);
      else if (row.action !== command || row.username !== 'cli') problems.push(`${command}: the row says ${row.username} ${row.action}`);
    }
    expect(problems).toEqual([]);
    // Secrets typed on the command line stay out of the log.
    const rows = await rt.db.select().from(adminLog);
    expect(JSON.stringify(rows)).not.toMatch(/sk-secret-value|a-long-pass1/);
    // Read-only commands leave no row.
    const [{ id: lastId } = { id: 0 }] = await rt.db.select({ id: adminLog.id }).from(adminLog).orderBy(desc(adminLog.id)).limit(1);
    let listed = '';
    for (const args of [['user:list'], ['chat:list'], ['chat:usage'], ['developer:list']]) await runCommand(args, rt, { out: (s) => { if (args[0] === 'user:list') listed += s; }, err: () => {}, cwd: dir });
    const [{ id: stillLast } = { id: 0 }] = await rt.db.select({ id: adminLog.id }).from(adminLog).orderBy(desc(adminLog.id)).limit(1);
    expect(stillLast).toBe(lastId);
    // user:list starts with a header row naming its tab-separated columns.
    const lines = listed.trimEnd().split('\n');
    expect(lines[0]).toBe('id\tusername\tnickname\temail\tmobile\tgroup\tstatus\tbalance\tpoints');
    expect(lines.slice(1).every((l) => l.split('\t').length === 9)).toBe(true);
    expect((await rt.db.select({ id: user.id }).from(user).where(eq(user.username, 'dave'))).length).toBe(1);
  }, scaled(180_000));
});
