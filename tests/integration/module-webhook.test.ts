// The webhook module (modules/webhook), the demo's paid module that runs: an administrator buys it,
// installs it, sets its address and secret in its site settings (the console's form, from the
// manifest), and every new post reaches the address as signed JSON, delivered once from the site's
// event outbox; a failing address is recorded in the module's deliveries and the event is kept for
// a retry; a settings change reaches the module's next call; its hourly ping job runs and is shown.
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/lib/server/account/users';
import { adminLog, askCategory, askPost, moduleEvent, moduleJob, moduleSetting, user } from '../../src/lib/server/db/schema';
import { seedWebhook } from '../../src/lib/server/market/demo';
import { ADMIN_GROUP } from '../../src/lib/server/site/seed';
import type { Runtime } from '../../src/lib/server/runtime';
import { startInProcess, type InProcessServer } from '../helpers/in-process';
import { loginAs } from '../helpers/members';
import { installModule } from '../../src/lib/server/modules/installs';
import { runCommand } from '../../src/server/cli';
import { postJson, raw } from '../helpers/server';
import { scaled } from '../helpers/time-scale.mjs';
import { until } from '../helpers/until';

type Env<T = Record<string, unknown>> = { code: number; msg: string; data: T };

let srv: InProcessServer;
let rt: Runtime;
let receiver: Server;
let receiverUrl = '';
const received: { headers: Record<string, string | string[] | undefined>; body: string }[] = [];
let answer = 204;
const tokens: Record<string, string> = {};

const post = async <T = Record<string, unknown>>(who: string, path: string, body: unknown, lang = 'en'): Promise<Env<T>> =>
  (await postJson(srv.url, path, body, { 'think-lang': lang, 'ba-user-token': tokens[who]! })).json<Env<T>>();


beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => { body += c.toString(); });
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(answer).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  srv = await startInProcess();
  rt = srv.runtime;
  for (const [name, groupId] of [['boss', ADMIN_GROUP], ['writer', 1]] as const) {
    await createUser(rt.db, { username: name, password: 'webhook12', groupId });
    tokens[name] = (await loginAs(srv.url, rt, name, 'webhook12')).token;
  }
  await installModule(rt.db, 'editor');
  expect((await seedWebhook(rt)).join('\n')).toMatch(/^demo: paid module webhook 1\.0\.0 \(sha256 [0-9a-f]{64}\)$/);
}, scaled(120_000));

afterAll(async () => {
  await srv?.stop();
  receiver?.close();
});

describe('the webhook module', () => {
  it('is bought, then installed; configured in its site settings (checked, audited, secret kept back); posts reach the address signed, once', async () => {
    expect(await post('boss', '/api/modules/install', { uid: 'webhook' })).toMatchObject({ code: 0, msg: 'Please buy this module first' });
    await rt.db.update(user).set({ score: 50 }).where(eq(user.username, 'boss'));
    const bought = await post('boss', '/api/modules/buy', { uid: 'webhook', pay_type: 'score', nonce: `webhook-${Date.now()}` });
    expect(bought.code, bought.msg).toBe(1);
    expect(await post('boss', '/api/modules/install', { uid: 'webhook' })).toMatchObject({ code: 1, data: { version: '1.0.0' } });
    await until(() => rt.modules.list().some((m) => m.uid === 'webhook'), 'the install');

    // Its settings form, in the reader's language, from the manifest (labels by key from its strings).
    const form = (await raw(srv.url, '/api/modules/settings?uid=webhook', { headers: { 'ba-user-token': tokens.boss!, 'think-lang': 'zh-cn' } })).json<Env<{ fields: { key: string; type: string; label: string; value: unknown; isSet: boolean; options: { label: string }[] }[] }>>();
    expect(form.data.fields.map((f) => [f.key, f.type, f.label])).toEqual([
      ['url', 'url', '投递地址'], ['secret', 'secret', '签名密钥'], ['send', 'select', '发送内容'], ['ping', 'boolean', '每小时发送一次心跳（event: ping）'],
    ]);
    expect(form.data.fields[2]!.options.map((o) => o.label)).toEqual(['新帖和新回复', '只发新帖']);
    // Only administrators; every problem beside its field, in the reader's language.
    expect((await post('writer', '/api/modules/settings', { uid: 'webhook', values: { url: receiverUrl } })).code).toBe(401);
    const bad = await post<{ fields: Record<string, string> }>('boss', '/api/modules/settings', { uid: 'webhook', values: { url: 'ftp://example.com/', send: 'everything', ping: 'maybe', colour: 'red' } }, 'zh-cn');
    expect(bad.code).toBe(0);
    expect(bad.data.fields).toEqual({
      'values.url': '请输入以 http:// 或 https:// 开头、不含用户名和密码的地址，或留空',
      'values.send': '请从列出的选项中选择',
      'values.ping': '请选择开或关',
      'values.colour': '模块没有名为“colour”的设置项',
    });
    const badEn = await post<{ fields: Record<string, string> }>('boss', '/api/modules/settings', { uid: 'webhook', values: { url: 'https://user:pw@example.com/' } });
    expect(badEn.data.fields).toEqual({ 'values.url': 'Enter an http:// or https:// address without a user name or password, or leave it empty' });
    const saved = await post('boss', '/api/modules/settings', { uid: 'webhook', values: { url: receiverUrl, secret: 's3cret', send: 'all', ping: '0' } });
    expect(saved).toMatchObject({ code: 1, msg: 'Settings saved; the module uses them from its next call on every instance', data: { changed: ['url', 'secret'] } });
    // Stored in the database; the secret never comes back to the browser, only whether it is set.
    const [stored] = await rt.db.select().from(moduleSetting).where(eq(moduleSetting.moduleUid, 'webhook'));
    expect(stored!.values).toMatchObject({ url: receiverUrl, secret: 's3cret' });
    const again = (await raw(srv.url, '/api/modules/settings?uid=webhook', { headers: { 'ba-user-token': tokens.boss! } }));
    expect(again.text).not.toContain('s3cret');
    expect(again.json<Env<{ fields: { key: string; value: unknown; isSet: boolean }[] }>>().data.fields.find((f) => f.key === 'secret')).toMatchObject({ value: null, isSet: true });
    // The console's form, from the manifest, in the reader's language; the secret only says it is set.
    const panel = (await raw(srv.url, '/admin/modules', { headers: { cookie: `ba-user-token=${tokens.boss!}; ba-lang=zh-cn` } })).text;
    const card = panel.slice(panel.indexOf('data-module="webhook"'));
    expect(card).toContain('data-api="/api/modules/settings"');
    expect(card).toMatch(/<label[^>]*>投递地址<\/label>\s*<input[^>]*type="url"[^>]*name="values\.url"[^>]*value="http:\/\/127\.0\.0\.1/);
    expect(card).toContain('已设置。输入新值即可替换。');
    expect(card).toContain('<option value="posts">只发新帖</option>');
    expect(panel).not.toContain('s3cret');
    // A secret sent empty keeps the one set; the audit log has the change with the secret masked.
    expect(await post('boss', '/api/modules/settings', { uid: 'webhook', values: { url: receiverUrl, secret: '' } })).toMatchObject({ code: 1, data: { changed: [] } });
    const audit = await rt.db.select().from(adminLog).where(eq(adminLog.action, 'module:settings'));
    expect(audit).toHaveLength(1);
    expect(audit[0]!.after).toContain('(set)');
    expect(audit[0]!.after).not.toContain('s3cret');

    const [discussion] = await rt.db.select({ id: askCategory.id }).from(askCategory).where(eq(askCategory.slug, 'discussion'));
    const made = await post<{ id: number }>('writer', '/api/ask/post', { title: 'Tell the chat room', content: 'Hello', category_id: discussion!.id, nonce: 'webhook-post-1' });
    expect(made.code, made.msg).toBe(1);
    await until(() => received.length === 1, 'the delivery');
    const [hit] = received;
    expect(JSON.parse(hit!.body)).toMatchObject({ event: 'post.created', payload: { id: made.data.id, title: 'Tell the chat room', url: `/ask/info/${made.data.id}` } });
    expect(hit!.headers['x-atrium-signature']).toBe(`sha256=${createHmac('sha256', 's3cret').update(hit!.body).digest('hex')}`);
    await until(async () => (await rt.db.select().from(moduleEvent)).length === 0, 'the outbox to empty');
    // A retry of the same request (same nonce) is the same post: nothing more is sent.
    expect((await post('writer', '/api/ask/post', { title: 'Tell the chat room', content: 'Hello', category_id: discussion!.id, nonce: 'webhook-post-1' })).code).toBe(1);
    await new Promise((r) => setTimeout(r, 1200));
    expect(received).toHaveLength(1);
  }, scaled(60_000));

  it('records a failing address in its deliveries, and the event waits for a retry', async () => {
    answer = 500;
    const [first] = await rt.db.select({ id: askPost.id }).from(askPost).limit(1);
    const made = await post<{ id: number }>('boss', '/api/ask/reply', { post_id: first!.id, content: 'A reply', nonce: 'webhook-reply-1' });
    expect(made.code, made.msg).toBe(1);
    await until(async () => (await rt.db.select().from(moduleEvent)).some((e) => e.attempts === 1), 'the retry');
    const deliveries = (await raw(srv.url, '/api/m/webhook/deliveries', { headers: { 'ba-user-token': tokens.boss! } })).json<Env<{ event: string; status: number | null; error: string | null }[]>>();
    expect(deliveries.data[0]).toMatchObject({ event: 'reply.created', status: 500, error: 'the address answered 500' });
    expect(deliveries.data[1]).toMatchObject({ event: 'post.created', status: 204, error: null });
  }, scaled(60_000));

  it('uses a settings change from its next call; runs its ping job, once per tick, and records a failing run', async () => {
    answer = 204;
    const before = received.length;
    expect(await post('boss', '/api/modules/settings', { uid: 'webhook', values: { send: 'posts', ping: '1' } })).toMatchObject({ code: 1, data: { changed: ['send', 'ping'] } });
    // The change reaches every instance through the bus (here, one): a reply made after that is handled but not sent.
    await rt.modules.reconcile();
    await rt.db.delete(moduleEvent);
    const [first] = await rt.db.select({ id: askPost.id }).from(askPost).limit(1);
    const made = await post<{ id: number }>('writer', '/api/ask/reply', { post_id: first!.id, content: 'Not sent', nonce: 'webhook-reply-2' });
    expect(made.code, made.msg).toBe(1);
    await until(async () => (await rt.db.select().from(moduleEvent)).length === 0, 'the outbox to empty');
    expect(received.slice(before).filter((r) => JSON.parse(r.body).event === 'reply.created')).toHaveLength(0);

    // The job's row exists from the install; made due, it runs once (polled every 5 s), in the site's language.
    const [job] = await rt.db.select().from(moduleJob).where(eq(moduleJob.moduleUid, 'webhook'));
    expect(job).toMatchObject({ name: 'ping', runs: 0 });
    expect(job!.nextTime).toBeGreaterThan(Date.now() / 1000 + 50 * 60);
    await rt.db.update(moduleJob).set({ nextTime: 0 }).where(eq(moduleJob.moduleUid, 'webhook'));
    await until(async () => (await rt.db.select().from(moduleJob))[0]!.runs === 1, 'the ping', scaled(15_000));
    const pings = received.slice(before).filter((r) => JSON.parse(r.body).event === 'ping');
    expect(pings.map((p) => JSON.parse(p.body).payload)).toEqual([{ text: 'Atrium 的 webhook 模块运行正常', locale: 'zh-cn' }]);
    const [ran] = await rt.db.select().from(moduleJob);
    expect(ran).toMatchObject({ lastOk: 1, lastError: '', failures: 0 });
    expect(ran!.nextTime).toBeGreaterThan(Date.now() / 1000 + 50 * 60);

    answer = 500;
    await rt.db.update(moduleJob).set({ nextTime: 0 }).where(eq(moduleJob.moduleUid, 'webhook'));
    await until(async () => (await rt.db.select().from(moduleJob))[0]!.runs === 2, 'the failing ping', scaled(15_000));
    expect((await rt.db.select().from(moduleJob))[0]).toMatchObject({ lastOk: 0, lastError: 'the address answered 500', failures: 1 });
    const out: string[] = [];
    expect(await runCommand(['module:list'], rt, { out: (t: string) => out.push(t), err: () => undefined, cwd: process.cwd() })).toBe(0);
    expect(out.join('')).toMatch(/\n {2}job ping\tlast run \d{4}-\d\d-\d\d \d\d:\d\d UTC failed: the address answered 500\tnext \d{4}-.* UTC\truns 2, failed 1\n/);
    const page = (await raw(srv.url, '/admin/modules', { headers: { cookie: `ba-user-token=${tokens.boss!}; ba-lang=en` } })).text;
    expect(page).toContain('the address answered 500');
  }, scaled(90_000));
});
