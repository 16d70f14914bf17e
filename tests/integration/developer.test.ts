// Developer verification and market review through the HTTP API (in process, so the test reads the
// database the server writes), the member-center pages they drive, and the operator CLI.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../src/lib/server/env';
import type { Runtime } from '../../src/lib/server/runtime';
import { createRuntime } from '../../src/lib/server/boot/runtime';
import { createUser, type UserRow } from '../../src/lib/server/account/users';
import { ADMIN_GROUP } from '../../src/lib/server/site/seed';
import { developer, messages, module, moduleVersion } from '../../src/lib/server/db/schema';
import { applyDeveloper, developerCard, developerOf } from '../../src/lib/server/market/developers';
import { decideModule, decideVersion, pendingModules } from '../../src/lib/server/market/review';
import { DeveloperApplyInput } from '../../src/lib/shared/validation/developer';
import { startInProcess, type InProcessServer } from '../helpers/in-process';
import { loginAs } from '../helpers/members';
import { postJson, raw } from '../helpers/server';
import { ROOT, TEMPLATE_DIR, TMP } from '../helpers/paths';
import { scaled } from '../helpers/time-scale.mjs';
import { runCommand } from '../../src/server/cli';

type Fields = Record<string, string>;
type Env = { code: number; msg: string; data: (Record<string, unknown> & { fields?: Fields }) | null };

let srv: InProcessServer;
let rt: Runtime;
const people: Record<string, { row: UserRow; token: string; cookie: string }> = {};

/** An ID number with the check character the standard computes (GB 11643-1999). */
function idNumber(first17: string): string {
  const weights = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
  const sum = [...first17].reduce((acc, d, i) => acc + Number(d) * weights[i]!, 0);
  return first17 + '10X98765432'[sum % 11]!;
}

const VALID_ID = idNumber('11010819900307123');
const application = (over: Record<string, string> = {}): Record<string, string> => ({
  real_name: '李开发', id_number: VALID_ID, mobile: '13800138000', email: 'dev@example.com',
  province: '11', city: '1101', intro: '我开发 Atrium 的编辑器插件和主题，计划在市场发布两个模块。', ...over,
});

async function member(name: string, groupId = 1): Promise<void> {
  const row = await createUser(rt.db, { username: name, password: 'market123', groupId });
  const session = await loginAs(srv.url, rt, name, 'market123');
  people[name] = { row, token: session.token, cookie: session.cookie };
}

const headers = (name: string | null, lang: 'en' | 'zh-cn' = 'en'): Record<string, string> => ({
  'think-lang': lang, ...(name ? { 'ba-user-token': people[name]!.token } : {}),
});
const post = async (name: string | null, path: string, body: unknown, lang: 'en' | 'zh-cn' = 'en'): Promise<Env> =>
  (await postJson(srv.url, path, body, headers(name, lang))).json<Env>();
const get = async (name: string | null, path: string): Promise<Env> => (await raw(srv.url, path, { headers: headers(name) })).json<Env>();
const page = async (name: string, path: string): Promise<{ status: number; text: string }> =>
  raw(srv.url, path, { headers: { cookie: `${people[name]!.cookie}; ba-lang=en` } });
const userId = (name: string): number => people[name]!.row.id;

beforeAll(async () => {
  srv = await startInProcess();
  rt = srv.runtime;
  await member('applicant');
  await member('outsider');
  await member('hurried');
  await member('reviewer', ADMIN_GROUP);
}, scaled(120_000));

afterAll(async () => { await srv?.stop(); });

describe('applying to become a developer', () => {
  it('needs a login and has nothing to show before the first application', async () => {
    expect((await get(null, '/api/developer/verif')).code).toBe(303);
    expect((await post(null, '/api/developer/verif', application())).code).toBe(303);
    const none = await get('applicant', '/api/developer/verif');
    expect(none.code).toBe(1);
    expect(none.data).toBeNull();
  });

  it.each([
    ['a wrong check character', { id_number: `${VALID_ID.slice(0, 17)}${VALID_ID.endsWith('1') ? '2' : '1'}` }],
    ['an impossible birth date', { id_number: idNumber('11010819900230123') }],
    ['a birth date in the future', { id_number: idNumber('11010820990101123') }],
    ['an unknown region', { id_number: idNumber('99010819900307123') }],
  ])('refuses an ID number with %s, in English and Chinese, keeping nothing', async (_, over) => {
    const en = await post('applicant', '/api/developer/verif', application(over), 'en');
    expect(en.code).toBe(0);
    expect(en.data!.fields!.id_number).toBe('Please enter the correct ID number');
    const zh = await post('applicant', '/api/developer/verif', application(over), 'zh-cn');
    expect(zh.data!.fields!.id_number).toBe('请输入正确的身份证号码');
    expect(await developerOf(rt.db, userId('applicant'))).toBeNull();
  });

  it('refuses a mobile number that is not a mainland one with the validation message', async () => {
    for (const mobile of ['12800138000', '1380013800', 'abc']) {
      const en = await post('applicant', '/api/developer/verif', application({ mobile }), 'en');
      expect(en.data!.fields!.mobile).toBe('Please enter the correct mobile number');
      const zh = await post('applicant', '/api/developer/verif', application({ mobile }), 'zh-cn');
      expect(zh.data!.fields!.mobile).toBe('请输入正确的手机号');
    }
    expect(await developerOf(rt.db, userId('applicant'))).toBeNull();
  });

  // Another member: attempts that reach the division-data check count toward the hourly limit.
  it('refuses a city outside the province, a city the division data does not know, markup in the name and a short introduction', async () => {
    const outside = await post('outsider', '/api/developer/verif', application({ city: '3101' }));
    expect(outside.data!.fields!.city).toBe('Please choose a city');
    const unknown = await post('outsider', '/api/developer/verif', application({ city: '1199' }));
    expect(unknown.code).toBe(0);
    expect(unknown.data!.fields!.city).toBe('Please choose a city');
    const province = await post('outsider', '/api/developer/verif', application({ province: '99', city: '9901' }));
    expect(province.data!.fields!.province).toBe('Please choose a province');
    const name = await post('outsider', '/api/developer/verif', application({ real_name: '<script>' }));
    expect(name.data!.fields!.real_name).toMatch(/real name/);
    const intro = await post('outsider', '/api/developer/verif', application({ intro: 'short' }));
    expect(intro.data!.fields!.intro).toBe('The introduction must be 10 to 1000 characters');
    expect(await developerOf(rt.db, userId('outsider'))).toBeNull();
  });

  it('files a valid application as pending and shows it back masked', async () => {
    const lower = `${VALID_ID.slice(0, 17)}${VALID_ID.slice(17).toLowerCase()}`;
    const reply = await post('applicant', '/api/developer/verif', application({ id_number: lower }));
    expect(reply.code).toBe(1);
    expect(reply.msg).toBe('Application submitted; please wait for the review');
    expect(reply.data).toMatchObject({ status: 'pending', id_number: `1101**********${VALID_ID.slice(-4)}`, mobile: '138****8000', province_name: 'Beijing' });
    // The same application read in Chinese names the area in Chinese.
    expect((await raw(srv.url, '/api/developer/verif', { headers: headers('applicant', 'zh-cn') })).json<Env>().data).toMatchObject({ province_name: '北京市', city_name: '市辖区' });
    const row = await developerOf(rt.db, userId('applicant'));
    expect(row).toMatchObject({ status: 'pending', idNumber: VALID_ID, province: '11', city: '1101' });
    const shown = await get('applicant', '/api/developer/verif');
    expect(shown.data).toMatchObject({ status: 'pending', reason: '', id_number: `1101**********${VALID_ID.slice(-4)}` });
    expect(JSON.stringify(shown.data)).not.toContain(VALID_ID);
  });

  it('updates a pending application in place when the member applies again', async () => {
    const before = (await developerOf(rt.db, userId('applicant')))!;
    const reply = await post('applicant', '/api/developer/verif', application({ intro: '更新后的简介：编辑器插件、主题和一个支付模块。', city: '1101' }));
    expect(reply.code).toBe(1);
    const rows = await rt.db.select().from(developer).where(eq(developer.userId, userId('applicant')));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 'pending', intro: '更新后的简介：编辑器插件、主题和一个支付模块。', createTime: before.createTime });
  });

  it('shows the pending application on its page with the ID number masked', async () => {
    const html = (await page('applicant', '/user/developer/verif')).text;
    expect(html).toContain('Your application was submitted and is waiting for review');
    expect(html).toContain(`1101**********${VALID_ID.slice(-4)}`);
    expect(html).not.toContain(VALID_ID);
    expect(html).not.toContain('13800138000');
  });

  it('limits applications to five an hour per member', async () => {
    // Their own identity: an ID number already on another member's application is refused.
    const own = idNumber('11010819900307234');
    for (let i = 0; i < 5; i++) expect((await post('hurried', '/api/developer/verif', application({ id_number: own, intro: `第 ${i + 1} 次修改简介，仍在等待审核。` }))).code).toBe(1);
    const sixth = await postJson(srv.url, '/api/developer/verif', application({ id_number: own }), headers('hurried'));
    expect(sixth.status).toBe(429);
  });
});

describe('reviewing applications', () => {
  it('is refused to a member without the market/approve rule', async () => {
    expect((await get('outsider', '/api/market/review')).code).toBe(401);
    const refused = await post('outsider', '/api/market/review', { type: 'developer', id: userId('applicant'), approve: true });
    expect(refused.code).toBe(401);
    expect((await developerOf(rt.db, userId('applicant')))!.status).toBe('pending');
    const html = (await page('outsider', '/admin/market')).text;
    expect(html).not.toContain(VALID_ID);
    expect(html).toContain('You do not have permission to use the admin console');
  });

  it('lists pending applications in full for a reviewer, with area names', async () => {
    const reply = await get('reviewer', '/api/market/review');
    expect(reply.code).toBe(1);
    const list = (reply.data!.developers as { list: Record<string, unknown>[] }).list;
    expect(list.find((d) => d.userId === userId('applicant'))).toMatchObject({ idNumber: VALID_ID, mobile: '13800138000', provinceName: 'Beijing', cityName: 'City districts', username: 'applicant' });
    const html = (await page('reviewer', '/admin/market')).text;
    expect(html).toContain(VALID_ID);
    expect(html).toContain('data-review-type="developer"');
  });

  it('needs a reason to reject, then tells the applicant why', async () => {
    const bare = await post('reviewer', '/api/market/review', { type: 'developer', id: userId('applicant'), approve: false, reason: ' ' });
    expect(bare.code).toBe(0);
    expect(bare.data!.fields!.reason).toBe('Please give a reason for the rejection');
    const reply = await post('reviewer', '/api/market/review', { type: 'developer', id: userId('applicant'), approve: false, reason: '姓名与证件不一致' });
    expect(reply).toMatchObject({ code: 1, msg: 'Rejected' });
    expect((await get('applicant', '/api/developer/verif')).data).toMatchObject({ status: 'rejected', reason: '姓名与证件不一致' });
    const notes = await rt.db.select().from(messages).where(and(eq(messages.recipientId, userId('applicant')), eq(messages.type, 'market_developer')));
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({ senderId: userId('reviewer'), title: 'developer.notice.rejected', summary: '姓名与证件不一致', link: '/user/developer/verif' });
    const html = (await page('applicant', '/user/developer/verif')).text;
    expect(html).toContain('Your application was not approved');
    expect(html).toContain('姓名与证件不一致');
    expect(html).toContain('Apply again');
  });

  it('takes a new application after a rejection, then approval opens the developer pages', async () => {
    const again = await post('applicant', '/api/developer/verif', application({ real_name: '李开发' }));
    expect(again.data).toMatchObject({ status: 'pending', reason: '' });
    for (const path of ['/user/developer/modules', '/user/developer/orders', '/user/developer/earnings']) {
      const html = (await page('applicant', path)).text;
      expect(html, path).toContain('Only approved developers can use this page');
      expect(html, path).toContain('href="/user/developer/verif"');
    }
    const reply = await post('reviewer', '/api/market/review', { type: 'developer', id: userId('applicant'), approve: true });
    expect(reply).toMatchObject({ code: 1, msg: 'Approved' });
    expect((await developerOf(rt.db, userId('applicant')))).toMatchObject({ status: 'approved', reviewerId: userId('reviewer'), reason: '' });
    const notes = await rt.db.select().from(messages).where(and(eq(messages.recipientId, userId('applicant')), eq(messages.title, 'developer.notice.approved')));
    expect(notes).toHaveLength(1);
    for (const path of ['/user/developer/modules', '/user/developer/orders', '/user/developer/earnings']) {
      const res = await page('applicant', path);
      expect(res.status, path).toBe(200);
      expect(res.text, path).not.toContain('Only approved developers can use this page');
    }
    const html = (await page('applicant', '/user/developer/verif')).text;
    expect(html).toContain('You are a verified developer');
    expect(html).toContain('href="/user/developer/modules"');
  });

  it('does not let an approved developer apply again, nor decide twice', async () => {
    const reply = await post('applicant', '/api/developer/verif', application());
    expect(reply.code).toBe(0);
    expect(reply.msg).toBe('You are already a verified developer and cannot apply again');
    const zh = await post('applicant', '/api/developer/verif', application(), 'zh-cn');
    expect(zh.msg).toBe('你已是认证开发者，无需再次申请');
    const twice = await post('reviewer', '/api/market/review', { type: 'developer', id: userId('applicant'), approve: false, reason: 'late' });
    expect(twice.code).toBe(0);
    expect((await developerOf(rt.db, userId('applicant')))!.status).toBe('approved');
  });

  it('keeps the refusal for members who never applied', async () => {
    const html = (await page('outsider', '/user/developer/earnings')).text;
    expect(html).toContain('Only approved developers can use this page');
    expect(html).toContain('href="/user/developer/verif"');
  });
});

describe('deciding modules and versions', () => {
  const t = Math.floor(Date.now() / 1000);
  async function addModule(uid: string, status: 'draft' | 'review' | 'published', versions: { version: string; status?: 'review' | 'published' }[]): Promise<number> {
    const [row] = await rt.db.insert(module).values({
      uid, developerId: userId('applicant'), name: `Module ${uid}`, summary: `Summary of ${uid}`, category: 'tools', status, price: 990,
      latestVersion: versions.find((v) => v.status === 'published')?.version ?? '', publishTime: status === 'published' ? t - 100 : 0, createTime: t, updateTime: t,
    }).returning({ id: module.id });
    for (const v of versions) {
      await rt.db.insert(moduleVersion).values({ moduleId: row!.id, version: v.version, changelog: `Changes in ${v.version}`, status: v.status ?? 'review', createTime: t });
    }
    return row!.id;
  }
  const moduleRow = async (id: number) => (await rt.db.select().from(module).where(eq(module.id, id)))[0]!;
  const versionsOf = async (id: number) => rt.db.select().from(moduleVersion).where(eq(moduleVersion.moduleId, id));

  it('lists submitted modules with their versions, and new versions of published modules', async () => {
    const submitted = await addModule('review-me', 'review', [{ version: '1.2.0-beta.1' }, { version: '1.10.0' }, { version: '1.9.0' }]);
    const live = await addModule('live-one', 'published', [{ version: '1.0.0', status: 'published' }, { version: '1.1.0' }]);
    await addModule('still-draft', 'draft', [{ version: '0.1.0' }]);
    const pending = await pendingModules(rt.db);
    const mine = pending.modules.find((m) => m.id === submitted)!;
    expect(mine.versions.map((v) => v.version)).toEqual(['1.10.0', '1.9.0', '1.2.0-beta.1']);
    expect(pending.modules.some((m) => m.uid === 'still-draft')).toBe(false);
    expect(pending.versions.map((v) => `${v.uid} ${v.version}`)).toContain('live-one 1.1.0');
    expect(pending.versions.some((v) => v.uid === 'review-me' || v.uid === 'still-draft')).toBe(false);
    const api = await get('reviewer', '/api/market/review');
    expect((api.data!.modules as { uid: string }[]).map((m) => m.uid)).toContain('review-me');
    expect((api.data!.versions as { moduleId: number }[]).some((v) => v.moduleId === live)).toBe(true);
    const html = (await page('reviewer', '/admin/market')).text;
    expect(html).toContain('Module review-me');
    expect(html).toContain('href="/modules/live-one"');
  });

  it('publishes an approved module with all its submitted versions, the highest as latest', async () => {
    const id = (await rt.db.select({ id: module.id }).from(module).where(eq(module.uid, 'review-me')))[0]!.id;
    const reply = await post('reviewer', '/api/market/review', { type: 'module', id, approve: true });
    expect(reply).toMatchObject({ code: 1, msg: 'Approved' });
    const row = await moduleRow(id);
    expect(row).toMatchObject({ status: 'published', latestVersion: '1.10.0', reviewReason: '' });
    expect(row.publishTime).toBeGreaterThan(0);
    expect((await versionsOf(id)).every((v) => v.status === 'published' && v.publishTime > 0)).toBe(true);
    const note = await rt.db.select().from(messages).where(and(eq(messages.recipientId, userId('applicant')), eq(messages.type, 'market_module')));
    expect(note.at(-1)).toMatchObject({ title: 'developer.notice.moduleApproved', link: '/user/developer/modules' });
  });

  it('sends a rejected module back to draft with the reason, and refuses to publish a module without versions', async () => {
    const id = await addModule('needs-work', 'review', [{ version: '0.1.0' }]);
    expect((await post('reviewer', '/api/market/review', { type: 'module', id, approve: false })).data!.fields!.reason).toBe('Please give a reason for the rejection');
    await decideModule(rt.db, { moduleId: id, approve: false, reason: 'The package has no README', reviewerId: userId('reviewer') });
    expect(await moduleRow(id)).toMatchObject({ status: 'draft', reviewReason: 'The package has no README', publishTime: 0 });
    await expect(decideModule(rt.db, { moduleId: id, approve: true, reviewerId: 0 })).rejects.toMatchObject({ key: 'developer.review.notPending' });
    const empty = await addModule('empty-one', 'review', []);
    await expect(decideModule(rt.db, { moduleId: empty, approve: true, reviewerId: 0 })).rejects.toMatchObject({ key: 'developer.review.noVersion' });
    expect((await moduleRow(empty)).status).toBe('review');
  });

  it('publishes a new version and moves latest only upwards; rejects another with its reason', async () => {
    const id = await addModule('versioned', 'published', [{ version: '1.0.0', status: 'published' }, { version: '2.0.0' }, { version: '1.5.0' }, { version: '3.0.0' }]);
    const rows = await versionsOf(id);
    const idOf = (n: string): number => rows.find((v) => v.version === n)!.id;
    const reply = await post('reviewer', '/api/market/review', { type: 'version', id: idOf('2.0.0'), approve: true });
    expect(reply.code).toBe(1);
    expect((await moduleRow(id)).latestVersion).toBe('2.0.0');
    await decideVersion(rt.db, { versionId: idOf('1.5.0'), approve: true, reviewerId: userId('reviewer') });
    expect((await moduleRow(id)).latestVersion).toBe('2.0.0');
    await decideVersion(rt.db, { versionId: idOf('3.0.0'), approve: false, reason: 'Crashes on start', reviewerId: userId('reviewer') });
    const v3row = (await versionsOf(id)).find((v) => v.version === '3.0.0')!;
    expect(v3row).toMatchObject({ status: 'rejected', reviewReason: 'Crashes on start', publishTime: 0 });
    expect((await moduleRow(id)).latestVersion).toBe('2.0.0');
    const notes = await rt.db.select().from(messages).where(and(eq(messages.recipientId, userId('applicant')), eq(messages.title, 'developer.notice.versionRejected')));
    expect(notes.at(-1)!.summary).toBe('Module versioned 3.0.0: Crashes on start');
  });

  it('decides a version submitted with its module only with the module', async () => {
    const id = await addModule('together', 'review', [{ version: '1.0.0' }]);
    const [v] = await versionsOf(id);
    await expect(decideVersion(rt.db, { versionId: v!.id, approve: true, reviewerId: 0 })).rejects.toMatchObject({ key: 'developer.review.moduleFirst' });
    const reply = await post('reviewer', '/api/market/review', { type: 'version', id: v!.id, approve: true });
    expect(reply.msg).toBe('This version is decided with its module: review the module');
  });
});

describe('the developer card', () => {
  it('counts published modules and their downloads only', async () => {
    await rt.db.update(module).set({ downloads: 40 }).where(eq(module.uid, 'live-one'));
    await rt.db.update(module).set({ downloads: 2 }).where(eq(module.uid, 'versioned'));
    await rt.db.update(module).set({ downloads: 1000 }).where(eq(module.uid, 'still-draft'));
    const card = await developerCard(rt.db, userId('applicant'));
    expect(card).toMatchObject({ userId: userId('applicant'), name: 'applicant', modules: 3, downloads: 42 });
    expect(card!.joinTime).toBeGreaterThan(0);
    expect(await developerCard(rt.db, 999_999)).toBeNull();
  });
});

describe('the operator CLI', () => {
  it('lists applications and decides developers, modules and versions', async () => {
    const dataDir = mkdtempSync(join(TMP, 'cli-dev-'));
    cpSync(TEMPLATE_DIR, dataDir, { recursive: true });
    const config = readConfig({ ATRIUM_ROOT: ROOT, DATA_DIR: dataDir, LOG_LEVEL: 'warn', DEPLOY_POLL_SECONDS: '0' });
    const env: Record<string, string> = { ...(process.env as Record<string, string>), ATRIUM_ROOT: ROOT, DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
    delete env.DATABASE_URL;
    // The commands run in process on the test's runtime, through the CLI's own runner (parsing, exit
    // codes, audit rows): ten CLI processes each opening the database took minutes on a busy machine.
    // The built binary is started once below.
    const cli = await createRuntime(config);
    const atrium = async (...args: string[]): Promise<{ status: number; stdout: string; stderr: string }> => {
      let stdout = '';
      let stderr = '';
      const status = await runCommand(args, cli, { out: (t) => { stdout += t; }, err: (t) => { stderr += t; }, cwd: process.cwd() });
      return { status, stdout, stderr };
    };
    try {
      const dev = await createUser(cli.db, { username: 'clidev', password: 'market123' });
      await applyDeveloper(cli.db, dev.id, DeveloperApplyInput.parse(application({ id_number: idNumber('44030419850101002'), province: '44', city: '4403' })));
      const t = Math.floor(Date.now() / 1000);
      const [m] = await cli.db.insert(module).values({ uid: 'cli-module', developerId: dev.id, name: 'CLI module', category: 'tools', status: 'review', createTime: t, updateTime: t }).returning();
      await cli.db.insert(moduleVersion).values([{ moduleId: m!.id, version: '1.0.0', createTime: t }]);

      const list = await atrium('developer:list');
      expect(list.status, list.stderr).toBe(0);
      expect(list.stdout).toContain('clidev');
      expect(list.stdout).toContain(idNumber('44030419850101002'));
      expect(list.stdout).toContain('广东省 深圳市');
      expect((await atrium('developer:list', 'nonsense')).status).toBe(2);
      const noReason = await atrium('developer:review', 'clidev', 'reject');
      expect(noReason.status).toBe(2);
      expect(noReason.stderr).toMatch(/reason/);
      expect((await atrium('developer:review', 'nobody', 'approve')).status).toBe(1);
      const approved = await atrium('developer:review', 'clidev', 'approve');
      expect(approved.status, approved.stderr).toBe(0);
      expect(approved.stdout).toContain('clidev: developer application approved.');
      const again = await atrium('developer:review', 'clidev', 'approve');
      expect(again.status).toBe(1);
      expect(again.stderr).toContain('Nothing here is waiting for a decision');
      const mod = await atrium('module:review', 'cli-module', 'approve');
      expect(mod.status, mod.stderr).toBe(0);

      await cli.db.insert(moduleVersion).values([{ moduleId: m!.id, version: '1.1.0', createTime: t }]);
      const ver = await atrium('version:review', 'cli-module', '1.1.0', 'reject', 'Missing', 'changelog');
      expect(ver.status, ver.stderr).toBe(0);
      expect((await atrium('version:review', 'cli-module', '9.9.9', 'approve')).status).toBe(1);
      // The built CLI answers its help without opening the database.
      expect(spawnSync(process.execPath, [join(ROOT, 'dist/cli.mjs'), 'help'], { env, encoding: 'utf8' }).stdout).toContain('developer:review <account> approve|reject [reason]');

      expect(await developerOf(cli.db, dev.id)).toMatchObject({ status: 'approved', reviewerId: 0 });
      expect((await cli.db.select().from(messages).where(eq(messages.recipientId, dev.id))).map((n) => n.title))
        .toEqual(expect.arrayContaining(['developer.notice.approved', 'developer.notice.moduleApproved', 'developer.notice.versionRejected']));
      expect((await cli.db.select().from(module).where(eq(module.id, m!.id)))[0]).toMatchObject({ status: 'published', latestVersion: '1.0.0' });
      expect((await cli.db.select().from(moduleVersion).where(eq(moduleVersion.version, '1.1.0')))[0]).toMatchObject({ status: 'rejected', reviewReason: 'Missing changelog' });
    } finally {
      await cli.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, scaled(90_000));
});
