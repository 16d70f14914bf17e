// Login history (issue 18): every login attempt on a member's account is recorded with the time, the
// address as TRUST_PROXY resolves it, the browser and the outcome; members see their own on the
// security page, operators holding the members rule see anyone's in the console; rows stay bounded.
import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInProcess, type InProcessServer } from '../helpers/in-process';
import { postJson, raw } from '../helpers/server';
import { createUser } from '../../src/lib/server/account/users';
import { LOGIN_HISTORY_KEEP, recordLogin } from '../../src/lib/server/account/login-history';
import { user, userGroup, userLoginLog, userRule } from '../../src/lib/server/db/schema';
import type { Runtime } from '../../src/lib/server/runtime';
import { scaled } from '../helpers/time-scale.mjs';

type Env = { code: number; msg: string; data: Record<string, unknown> };
type Login = { method: string; result: string; ip: string; userAgent: string; createTime: number };

const PASSWORD = 'secret123';
const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';

let srv: InProcessServer;
let rt: Runtime;
const ids: Record<string, number> = {};
const cookies: Record<string, string> = {};

async function attempt(username: string, password: string, headers: Record<string, string> = {}): Promise<{ body: Env; cookie: string }> {
  const res = await postJson(srv.url, '/api/user/checkIn', { tab: 'login', username, password, keep: false }, { 'think-lang': 'en', ...headers });
  const cookie = ([] as string[]).concat(res.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]).join('; ');
  return { body: res.json<Env>(), cookie };
}

const get = async (path: string, cookie: string): Promise<Env> => (await raw(srv.url, path, { headers: { cookie, 'think-lang': 'en' } })).json<Env>();
const logins = async (id: number, page = 1): Promise<{ list: Login[]; total: number; pages: number }> => {
  const reply = await get(`/api/admin/member?id=${id}&login_page=${page}`, cookies.boss!);
  expect(reply.code, reply.msg).toBe(1);
  return reply.data.logins as { list: Login[]; total: number; pages: number };
};

beforeAll(async () => {
  // One trusted proxy in front: the client's address is the last X-Forwarded-For entry.
  srv = await startInProcess({ TRUST_PROXY: '1' });
  rt = srv.runtime;
  await rt.site.set('user_login_captcha', '0');
  for (const [name, groupId] of [['boss', 2], ['alice', 1], ['mod', 1]] as const) {
    ids[name] = (await createUser(rt.db, { username: name, email: `${name}@example.com`, password: PASSWORD, groupId })).id;
  }
  // A moderators group: the console's reports section and nothing else.
  const [reports] = await rt.db.select({ id: userRule.id }).from(userRule).where(eq(userRule.name, 'admin/reports'));
  const [mods] = await rt.db.insert(userGroup).values({ name: 'Moderators', rules: String(reports!.id) }).returning({ id: userGroup.id });
  await rt.db.update(user).set({ groupId: mods!.id }).where(eq(user.id, ids.mod!));
  for (const name of ['boss', 'mod']) {
    const { body, cookie } = await attempt(name, PASSWORD);
    expect(body.code, body.msg).toBe(1);
    cookies[name] = cookie;
  }
}, scaled(120_000));

afterAll(async () => { await srv?.stop(); });

describe('login history', () => {
  it('records a failed and a successful login with the address through the proxy and the browser', async () => {
    const failed = await attempt('alice', 'wrong-password', { 'x-forwarded-for': '203.0.113.7', 'user-agent': IPHONE });
    expect(failed.body.code).toBe(0);
    // The member's e-mail logs in too: the same account's history.
    const ok = await attempt('alice@example.com', PASSWORD, { 'x-forwarded-for': '198.51.100.1, 198.51.100.23', 'user-agent': CHROME });
    expect(ok.body.code, ok.body.msg).toBe(1);
    cookies.alice = ok.cookie;
    // Unknown names record nothing (there is no member to show it to).
    expect((await attempt('nobody_here', PASSWORD)).body.code).toBe(0);

    const history = await logins(ids.alice!);
    expect(history.total).toBe(2);
    expect(history.list[0]).toMatchObject({ method: 'password', result: 'ok', ip: '198.51.100.23', userAgent: CHROME });
    expect(history.list[1]).toMatchObject({ method: 'password', result: 'wrong_password', ip: '203.0.113.7', userAgent: IPHONE });
    expect(history.list[0]!.createTime).toBeGreaterThanOrEqual(history.list[1]!.createTime);
    expect(Math.abs(history.list[0]!.createTime - Date.now() / 1000)).toBeLessThan(60);
  });

  it('records refusals of a disabled account, and shows them in the console and to the member', async () => {
    expect((await postJson(srv.url, '/api/admin/memberStatus', { id: ids.alice, status: 'disable' }, { cookie: cookies.boss!, origin: srv.url })).json<Env>().code).toBe(1);
    const refused = await attempt('alice', PASSWORD, { 'user-agent': 'curl/8.5.0' });
    expect(refused.body.msg).toBe('Account disabled');
    expect((await logins(ids.alice!)).list[0]).toMatchObject({ result: 'disabled', userAgent: 'curl/8.5.0' });
    expect((await postJson(srv.url, '/api/admin/memberStatus', { id: ids.alice, status: 'enable' }, { cookie: cookies.boss!, origin: srv.url })).json<Env>().code).toBe(1);
    const again = await attempt('alice', PASSWORD, { 'user-agent': CHROME });
    expect(again.body.code).toBe(1);
    cookies.alice = again.cookie;

    for (const [lang, words] of [['en', ['Recent logins', 'Wrong password', 'Refused: account disabled', 'Chrome 131 · Windows', 'Safari 17 · iOS']], ['zh-cn', ['最近登录', '密码错误', '被拒绝：账号已禁用']]] as const) {
      const page = await raw(srv.url, `/admin/members/${ids.alice}`, { headers: { cookie: `${cookies.boss}; ba-lang=${lang}` } });
      expect(page.status).toBe(200);
      for (const w of words) expect(page.text, w).toContain(w);
      expect(page.text).toContain('203.0.113.7');
      // The member sees their own attempts on the security (change password) page.
      const own = await raw(srv.url, '/user/account/changePassword', { headers: { cookie: `${cookies.alice}; ba-lang=${lang}` } });
      expect(own.status).toBe(200);
      for (const w of words) expect(own.text, w).toContain(w);
    }
    // … and only their own: the administrator's logins are not on alice's page.
    const own = await raw(srv.url, '/user/account/changePassword', { headers: { cookie: cookies.alice! } });
    expect((own.text.match(/data-login="/g) ?? []).length).toBe((await logins(ids.alice!)).total);
  });

  it('is refused to visitors, members and groups without the members rule', async () => {
    const path = `/api/admin/member?id=${ids.alice}`;
    expect((await get(path, '')).code).toBe(303);
    expect((await get(path, cookies.alice!)).code).toBe(401);
    const mod = await get(path, cookies.mod!);
    expect(mod.code).toBe(401);
    expect(mod.data).toBeNull();
    // The moderators group does reach its own section.
    expect((await get('/api/admin/reports', cookies.mod!)).code).toBe(1);
    expect((await raw(srv.url, `/admin/members/${ids.alice}`, { headers: { cookie: cookies.mod! } })).status).toBe(404);
  });

  it('stays bounded: the last 100 attempts per member, none older than 90 days, pruned by the insert', async () => {
    const t = Math.floor(Date.now() / 1000);
    // An attempt from 100 days ago, then 120 more: the old one and the earliest extras go.
    await rt.db.insert(userLoginLog).values({ userId: ids.mod!, method: 'password', result: 'ok', ip: '192.0.2.1', createTime: t - 100 * 86_400 });
    await recordLogin(rt.db, { userId: ids.mod!, method: 'password', result: 'wrong_password', ip: '192.0.2.2', userAgent: 'x' });
    const rows = await rt.db.select().from(userLoginLog).where(eq(userLoginLog.userId, ids.mod!));
    expect(rows.map((r) => r.ip)).not.toContain('192.0.2.1');
    for (let i = 0; i < 120; i++) await recordLogin(rt.db, { userId: ids.mod!, method: 'password', result: 'wrong_password', ip: `192.0.2.${i + 10}`, userAgent: 'x' });
    const [n] = await rt.db.select({ n: count() }).from(userLoginLog).where(eq(userLoginLog.userId, ids.mod!));
    expect(n!.n).toBe(LOGIN_HISTORY_KEEP);
    const history = await logins(ids.mod!);
    expect(history.list[0]!.ip).toBe('192.0.2.129');
    expect(history.pages).toBe(5);
    expect((await logins(ids.mod!, 5)).list.at(-1)!.ip).toBe('192.0.2.30');
    // The console pages through it too: the last page, with a link back to the one before.
    const last = await raw(srv.url, `/admin/members/${ids.mod}?login_page=5`, { headers: { cookie: `${cookies.boss}; ba-lang=en` } });
    expect(last.text).toContain('192.0.2.30');
    expect(last.text).not.toContain('192.0.2.129');
    expect(last.text).toContain('href="?login_page=4#logins"');
    expect(last.text).toContain('Page 5 of 5');
    // Other members' rows are untouched by this member's pruning.
    expect((await logins(ids.alice!)).total).toBeGreaterThanOrEqual(4);
  });
});
