// The webhook module (modules/webhook), the demo's paid module that runs: an administrator buys it,
// installs it, sets its address and secret through its own route, and every new post reaches the
// address as signed JSON, delivered once from the site's event outbox; a failing address is
// recorded in the module's deliveries and the event is kept for a retry.
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/lib/server/account/users';
import { askCategory, askPost, moduleEvent, user } from '../../src/lib/server/db/schema';
import { seedWebhook } from '../../src/lib/server/market/demo';
import { ADMIN_GROUP } from '../../src/lib/server/site/seed';
import type { Runtime } from '../../src/lib/server/runtime';
import { startInProcess, type InProcessServer } from '../helpers/in-process';
import { loginAs } from '../helpers/members';
import { installModule } from '../../src/lib/server/modules/installs';
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
  it('is bought, then installed; configured through its admin route; posts reach the address signed, once', async () => {
    expect(await post('boss', '/api/modules/install', { uid: 'webhook' })).toMatchObject({ code: 0, msg: 'Please buy this module first' });
    await rt.db.update(user).set({ score: 50 }).where(eq(user.username, 'boss'));
    const bought = await post('boss', '/api/modules/buy', { uid: 'webhook', pay_type: 'score', nonce: `webhook-${Date.now()}` });
    expect(bought.code, bought.msg).toBe(1);
    expect(await post('boss', '/api/modules/install', { uid: 'webhook' })).toMatchObject({ code: 1, data: { version: '1.0.0' } });
    await until(() => rt.modules.list().some((m) => m.uid === 'webhook'), 'the install');

    expect((await post('writer', '/api/m/webhook/config', { url: receiverUrl })).code).toBe(401);
    const bad = await post('boss', '/api/m/webhook/config', { url: 'ftp://example.com/' }, 'zh-cn');
    expect(bad).toMatchObject({ code: 0, msg: '模块 webhook 拒绝了此请求', data: { field: 'url' } });
    expect(await post('boss', '/api/m/webhook/config', { url: receiverUrl, secret: 's3cret' })).toMatchObject({ code: 1, data: { url: receiverUrl, hasSecret: true } });
    const config = (await raw(srv.url, '/api/m/webhook/config', { headers: { 'ba-user-token': tokens.boss! } })).json<Env>();
    expect(config.data).toEqual({ url: receiverUrl, hasSecret: true });

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
});
