// The console's "send a test" buttons (issue 18, settings → mail and SMS): the test text message
// reaches the SMS provider (a fake one here, at SMS_HTTP_URL) or says clearly why not; a bad number
// is refused beside its field; only groups holding the settings rule may send; every try is audited
// and rate limited. The test e-mail lands in the outbox when no SMTP is set.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { and, desc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInProcess, type InProcessServer } from '../helpers/in-process';
import { postJson, raw } from '../helpers/server';
import { createUser } from '../../src/lib/server/account/users';
import { adminLog, user, userGroup, userRule } from '../../src/lib/server/db/schema';
import { scaled } from '../helpers/time-scale.mjs';

type Env = { code: number; msg: string; data: (Record<string, unknown> & { fields?: Record<string, string> }) | null };

const PASSWORD = 'secret123';
let srv: InProcessServer;
let provider: Server;
/** What the fake provider received, and the status it answers with next. */
const received: { auth: string; body: { mobile: string; template: string; text: string } }[] = [];
let answer = 200;
const cookies: Record<string, string> = {};

async function login(username: string): Promise<string> {
  const res = await postJson(srv.url, '/api/user/checkIn', { tab: 'login', username, password: PASSWORD });
  expect(res.json<Env>().code, res.text).toBe(1);
  return ([] as string[]).concat(res.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]).join('; ');
}
const post = async (path: string, body: unknown, cookie: string, lang = 'en'): Promise<{ status: number; body: Env }> => {
  const res = await postJson(srv.url, path, body, { cookie, origin: srv.url, 'think-lang': lang });
  return { status: res.status, body: res.json<Env>() };
};

beforeAll(async () => {
  provider = createServer((req, res) => {
    let data = '';
    req.on('data', (c: Buffer) => { data += c.toString(); });
    req.on('end', () => {
      received.push({ auth: req.headers.authorization ?? '', body: JSON.parse(data) as (typeof received)[number]['body'] });
      res.writeHead(answer, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
  const { port } = provider.address() as AddressInfo;
  srv = await startInProcess({ SMS_HTTP_URL: `http://127.0.0.1:${port}/send`, SMS_HTTP_TOKEN: 'sms-secret' });
  const rt = srv.runtime;
  await rt.site.set('user_login_captcha', '0');
  await rt.site.set('site_name', 'Test Site');
  await createUser(rt.db, { username: 'boss', email: 'boss@example.com', mobile: '13800138000', password: PASSWORD, groupId: 2 });
  await createUser(rt.db, { username: 'alice', email: 'alice@example.com', password: PASSWORD });
  const mod = await createUser(rt.db, { username: 'mod', email: 'mod@example.com', password: PASSWORD });
  const [reports] = await rt.db.select({ id: userRule.id }).from(userRule).where(eq(userRule.name, 'admin/reports'));
  const [group] = await rt.db.insert(userGroup).values({ name: 'Moderators', rules: String(reports!.id) }).returning({ id: userGroup.id });
  await rt.db.update(user).set({ groupId: group!.id }).where(eq(user.id, mod.id));
  for (const name of ['boss', 'alice', 'mod']) cookies[name] = await login(name);
}, scaled(120_000));

afterAll(async () => {
  await srv?.stop();
  await new Promise((resolve) => provider?.close(resolve));
});

describe('send a test text message', () => {
  it('is refused to visitors, members and a group without the settings rule, before anything is sent', async () => {
    expect((await post('/api/admin/testSms', { to: '13800138000' }, '')).body.code).toBe(303);
    expect((await post('/api/admin/testSms', { to: '13800138000' }, cookies.alice!)).body.code).toBe(401);
    expect((await post('/api/admin/testSms', { to: '13800138000' }, cookies.mod!)).body.code).toBe(401);
    expect(received).toHaveLength(0);
  });

  it('refuses a bad number beside its field, in the caller’s language', async () => {
    const en = await post('/api/admin/testSms', { to: '12345' }, cookies.boss!);
    expect(en.body.code).toBe(0);
    expect(en.body.data?.fields).toEqual({ to: 'Please enter the correct mobile number' });
    const zh = await post('/api/admin/testSms', { to: '+1 555 0100' }, cookies.boss!, 'zh-cn');
    expect(zh.body.data?.fields).toEqual({ to: '请输入正确的手机号' });
    expect(received).toHaveLength(0);
  });

  it('reaches the provider with the site name, and says when the provider refuses', async () => {
    const sent = await post('/api/admin/testSms', { to: '13900139000' }, cookies.boss!);
    expect(sent.body).toMatchObject({ code: 1, msg: 'Test text message sent: the provider accepted it' });
    expect(received).toHaveLength(1);
    expect(received[0]).toEqual({ auth: 'Bearer sms-secret', body: { mobile: '13900139000', template: 'admin_test', text: '【Test Site】If you read this, sending text messages works.' } });

    answer = 500;
    const refused = await post('/api/admin/testSms', { to: '13900139000' }, cookies.boss!, 'zh-cn');
    expect(refused.body).toMatchObject({ code: 0, msg: '短信服务拒绝了测试短信：SMS provider answered HTTP 500' });
    expect(received).toHaveLength(2);
    expect(received[1]!.body.text).toBe('【Test Site】如果你收到这条短信，说明短信发送正常。');
    answer = 200;

    const audit = await srv.runtime.db.select().from(adminLog).where(eq(adminLog.action, 'sms:test')).orderBy(desc(adminLog.id));
    expect(audit).toHaveLength(2);
    expect(audit[0]).toMatchObject({ username: 'boss', target: '13900139000', after: JSON.stringify({ error: 'SMS provider answered HTTP 500' }) });
    expect(audit[1]).toMatchObject({ username: 'boss', target: '13900139000', after: '' });
  });

  it('is rate limited per operator', async () => {
    // Four tries so far (two bad numbers, one sent, one refused): the fifth passes, the sixth waits.
    expect((await post('/api/admin/testSms', { to: '13900139000' }, cookies.boss!)).body.code).toBe(1);
    const sixth = await post('/api/admin/testSms', { to: '13900139000' }, cookies.boss!);
    expect(sixth.status).toBe(429);
    expect(sixth.body.code).toBe(0);
    expect(received).toHaveLength(3);
  });

  it('the mail settings page offers both tests, in both languages', async () => {
    for (const [lang, words] of [['en', ['Send a test e-mail', 'Send a test text message', 'sent through the SMS provider (SMS_HTTP_URL)']], ['zh-cn', ['发送测试短信', '通过短信服务发送（SMS_HTTP_URL）']]] as const) {
      const page = await raw(srv.url, '/admin/settings/mail', { headers: { cookie: `${cookies.boss}; ba-lang=${lang}` } });
      expect(page.status).toBe(200);
      for (const w of words) expect(page.text, w).toContain(w);
      expect(page.text).toContain('data-api="/api/admin/testSms"');
      expect(page.text).toContain('value="13800138000"');
    }
  });
});

describe('send a test e-mail', () => {
  it('writes to the outbox without SMTP and says so; audited', async () => {
    const sent = await post('/api/admin/testMail', { to: 'ops@example.com' }, cookies.boss!);
    expect(sent.body).toMatchObject({ code: 1, msg: 'No SMTP configured: the test e-mail was written to the outbox folder' });
    const dir = srv.runtime.mailer.outboxDir;
    const file = readdirSync(dir).find((n) => n.includes('-mail-ops@example.com'));
    expect(readFileSync(join(dir, file!), 'utf8')).toContain('If you read this, sending e-mail works.');
    expect((await post('/api/admin/testMail', { to: 'not-an-address' }, cookies.boss!)).body.data?.fields).toEqual({ to: 'Please enter a correct e-mail address' });
    const [row] = await srv.runtime.db.select().from(adminLog).where(and(eq(adminLog.action, 'mail:test'), eq(adminLog.target, 'ops@example.com')));
    expect(row).toBeDefined();
  });
});
