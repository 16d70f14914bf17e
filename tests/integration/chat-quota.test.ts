// Chat quotas under parallel questions: a reply reserves its free slot or holds its points before
// the provider is called, settles to what it used, and releases the hold when it stops or fails.
// And a visitor's reply is stopped and resumed only with the key of the browser that asked.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { startInProcess, type InProcessServer } from '../helpers/in-process';
import { startMockOpenAI, type MockOpenAI } from '../helpers/mock-openai';
import { loginAs } from '../helpers/members';
import { createUser } from '../../src/lib/server/account/users';
import { adjustScore } from '../../src/lib/server/account/ledger';
import { chatReply, user, userScoreLog } from '../../src/lib/server/db/schema';
import { saveModel } from '../../src/lib/server/chat/models';
import { CHAT_KEY } from '../../src/lib/shared/chat';
import { scaled } from '../helpers/time-scale.mjs';

let server: InProcessServer;
let mock: MockOpenAI;

interface Chunk { type: string; [key: string]: unknown }
const chunksOf = (text: string): Chunk[] =>
  text.split('\n\n').map((e) => e.replace(/^data: /, '').trim()).filter((d) => d && d !== '[DONE]').map((d) => JSON.parse(d) as Chunk);

let counter = 0;
const question = (text: string, model: string) => ({ id: `q${Date.now().toString(36)}${counter++}`, model, messages: [{ id: `m${counter++}`, role: 'user', parts: [{ type: 'text', text }] }] });

function send(body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal): Promise<Response> {
  return fetch(`${server.url}/api/chat/send`, { method: 'POST', signal, headers: { 'content-type': 'application/json', 'think-lang': 'en', ...headers }, body: JSON.stringify(body) });
}

const stop = async (id: string, headers: Record<string, string> = {}): Promise<boolean> =>
  ((await (await fetch(`${server.url}/api/chat/stop`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ id }) })).json()) as { data: { stopped: boolean } }).data.stopped;

/** Sends `n` questions at once; the answered ones are read to their end. */
async function burst(n: number, model: string, headers: Record<string, string> = {}): Promise<{ answered: number; refused: { status: number; msg: string }[] }> {
  const results = await Promise.all(Array.from({ length: n }, async (_, i) => {
    const res = await send(question(`Parallel question ${i} about backups`, model), headers);
    if (res.headers.get('content-type')?.includes('text/event-stream')) {
      const chunks = chunksOf(await res.text());
      return { answered: chunks.some((c) => c.type === 'text-delta') && !chunks.some((c) => c.type === 'error') };
    }
    const body = await res.json() as { msg: string };
    return { answered: false, status: res.status, msg: body.msg };
  }));
  return { answered: results.filter((r) => r.answered).length, refused: results.filter((r) => !r.answered).map((r) => ({ status: r.status ?? 200, msg: r.msg ?? '' })) };
}

async function waitFor<T>(fn: () => Promise<T | undefined | null | false>, ms = 8000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Reads a reply's stream until its first text arrives. */
async function firstText(res: Response): Promise<ReadableStreamDefaultReader<Uint8Array>> {
  const reader = res.body!.getReader();
  let seen = '';
  while (!seen.includes('text-delta')) seen += new TextDecoder().decode((await reader.read()).value);
  return reader;
}

const replyOf = async (chatId: string) => (await server.runtime.db.select().from(chatReply).where(eq(chatReply.chatId, chatId)))[0];
const scoreOf = async (id: number): Promise<number> => (await server.runtime.db.select({ score: user.score }).from(user).where(eq(user.id, id)))[0]!.score;

/** A member with `points`, logged in: their id and the header that carries their token. */
async function member(name: string, points: number): Promise<{ id: number; auth: Record<string, string> }> {
  const made = await createUser(server.runtime.db, { username: name, password: 'secret123' });
  if (points) await adjustScore(server.runtime.db, made.id, points, 'test top-up');
  return { id: made.id, auth: { 'ba-user-token': (await loginAs(server.url, server.runtime, name, 'secret123')).token } };
}

beforeAll(async () => {
  mock = await startMockOpenAI({ delayMs: 2 });
  server = await startInProcess({ CHAT_TIMEOUT_SECONDS: '5' });
  await server.runtime.site.set('chat_rate_ip', '1000');
  await server.runtime.site.set('chat_rate_member', '1000');
  const models: [string, string, Partial<Parameters<typeof saveModel>[1]>][] = [
    ['ten', 'mock@20', { pricePerMessage: 10 }],
    ['threefree', 'mock@20', { pricePerMessage: 10, freeDaily: 3 }],
    ['visitorthree', 'mock@20', { audience: 'visitors', pricePerMessage: 5, freeDaily: 3 }],
    ['perk', 'mock@60', { pricePer1k: 1000 }],
    ['ten500', 'mock-500', { pricePerMessage: 10 }],
    ['vslow', 'mock@60', { audience: 'visitors' }],
  ];
  for (const [name, modelId, extra] of models) await saveModel(server.runtime.db, { name, modelId, baseUrl: mock.url, apiKey: 'sk-test', audience: 'members', ...extra });
}, scaled(60_000));

afterAll(async () => {
  await server?.stop();
  await mock?.close();
});

describe('parallel questions against a quota', () => {
  it('20 at once with 25 points at 10 a reply: 2 answered, 18 refused before the provider', async () => {
    const m = await member('quotaburst', 25);
    const before = mock.requests.length;
    const { answered, refused } = await burst(20, 'ten', m.auth);
    expect(answered).toBe(2);
    expect(refused).toHaveLength(18);
    for (const r of refused) {
      expect(r.status).toBe(402);
      expect(r.msg).toMatch(/^This reply needs about 10 points and you have 5\. Your free allowance resets at/);
    }
    expect(mock.requests.length - before).toBe(2);
    expect(await scoreOf(m.id)).toBe(5);
  });

  it('20 at once with 3 free replies a day and no points: exactly 3 answered, free', async () => {
    const m = await member('quotafree', 0);
    const { answered, refused } = await burst(20, 'threefree', m.auth);
    expect(answered).toBe(3);
    expect(refused.map((r) => r.status)).toEqual(Array(17).fill(402));
    expect(await scoreOf(m.id)).toBe(0);
    const rows = await server.runtime.db.select().from(chatReply).where(eq(chatReply.userId, m.id));
    expect(rows.map((r) => [r.status, r.free, r.points])).toEqual(Array(3).fill(['done', 1, 0]));
  });

  it('a visitor address with 3 free replies a day gets 3 of 20 asked at once', async () => {
    const { answered, refused } = await burst(20, 'visitorthree');
    expect(answered).toBe(3);
    expect(refused).toHaveLength(17);
    for (const r of refused) {
      expect(r.status).toBe(402);
      expect(r.msg).toMatch(/^Today's free replies of this model are used up/);
    }
  });
});

describe('holds', () => {
  it('a price per 1,000 tokens holds what the longest reply costs, then charges exactly what was used, also after a disconnect', async () => {
    const m = await member('quotaperk', 100_000);
    const body = question('What does a token cost?', 'perk');
    const before = mock.requests.length;
    const abort = new AbortController();
    const reader = await firstText(await send(body, m.auth, abort.signal));
    // While it streams: the row holds the prompt and 2,048 reply tokens at 1 point each.
    const held = (await replyOf(body.id))!;
    expect(held.status).toBe('streaming');
    expect(held.completionTokens).toBe(2048);
    expect(held.points).toBe(held.promptTokens + 2048);
    expect(mock.requests[before]!.maxTokens).toBe(2048);
    expect(await scoreOf(m.id)).toBe(100_000);
    await reader.cancel();
    abort.abort();
    const done = await waitFor(async () => { const r = await replyOf(body.id); return r?.status === 'done' ? r : null; });
    expect(done.completionTokens).toBeGreaterThan(0);
    expect(done.points).toBe(done.promptTokens + done.completionTokens);
    expect(done.points).toBeLessThan(held.points);
    expect(await scoreOf(m.id)).toBe(100_000 - done.points);
    const log = await server.runtime.db.select().from(userScoreLog).where(and(eq(userScoreLog.userId, m.id), eq(userScoreLog.score, -done.points)));
    expect(log).toHaveLength(1);
  });

  it('a stop releases the hold: what the reply used is charged, and the next question may hold again', async () => {
    const m = await member('quotastop', 100_000);
    const first = question('Stop this costly answer', 'perk');
    const reader = await firstText(await send(first, m.auth));
    const hold = (await replyOf(first.id))!.points;
    // Enough for the running reply's hold and not for a second one.
    await adjustScore(server.runtime.db, m.id, 2 * hold - 1 - 100_000, 'test');
    const second = await send(question('Stop this costly answer', 'perk'), m.auth);
    expect(second.status).toBe(402);
    expect(((await second.json()) as { msg: string }).msg).toContain(`needs about ${hold} points and you have ${hold - 1}.`);
    expect(await stop(first.id, m.auth)).toBe(true);
    while (!(await reader.read()).done) { /* drain */ }
    const stopped = await waitFor(async () => { const r = await replyOf(first.id); return r?.status === 'stopped' ? r : null; });
    expect(stopped.points).toBe(stopped.promptTokens + stopped.completionTokens);
    expect(stopped.points).toBeLessThan(hold);
    expect(await scoreOf(m.id)).toBe(2 * hold - 1 - stopped.points);
    const third = question('Stop this costly answer', 'perk');
    const res = await send(third, m.auth);
    expect(res.status).toBe(200);
    await res.text();
    const charged = (await waitFor(async () => { const r = await replyOf(third.id); return r?.status === 'done' ? r : null; })).points;
    expect(await scoreOf(m.id)).toBe(2 * hold - 1 - stopped.points - charged);
  });

  it('a failure before any output charges nothing and releases the hold', async () => {
    const m = await member('quotafail', 10);
    for (let i = 0; i < 2; i++) {
      const body = question('Will this fail?', 'ten500');
      const chunks = chunksOf(await (await send(body, m.auth)).text());
      expect(chunks.find((c) => c.type === 'error')?.errorText).toContain('The AI provider had an error');
      const row = await waitFor(async () => { const r = await replyOf(body.id); return r?.status === 'failed' ? r : null; });
      expect(row.points).toBe(0);
    }
    expect(await scoreOf(m.id)).toBe(10);
    const res = await send(question('Now a working one', 'ten'), m.auth);
    expect(res.status).toBe(200);
    await res.text();
    expect(await scoreOf(m.id)).toBe(0);
  });

  it('a reply left streaming by a crashed instance holds its points only as long as a reply can run', async () => {
    const m = await member('quotacrash', 10);
    const now = Math.floor(Date.now() / 1000);
    const row = { chatId: 'crashed', userId: m.id, ip: '127.0.0.1', model: 'ten', status: 'streaming', free: 0, promptTokens: 10, completionTokens: 2048 };
    await server.runtime.db.insert(chatReply).values({ ...row, id: `old${now}`, points: 1000, createTime: now - 20 * 60 });
    const res = await send(question('Past a crash', 'ten'), m.auth);
    expect(res.status).toBe(200);
    await res.text();
    await adjustScore(server.runtime.db, m.id, 10, 'test');
    // A running reply's hold counts.
    await server.runtime.db.insert(chatReply).values({ ...row, id: `new${now}`, points: 5, createTime: now });
    expect((await send(question('Beside a running reply', 'ten'), m.auth)).status).toBe(402);
  });
});

describe("a visitor's reply is theirs by their browser's key", () => {
  const keyA = { 'x-chat-key': 'visitorAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' };
  const keyB = { 'x-chat-key': 'visitorBBBBBBBBBBBBBBBBBBBBBBBBBBBBB' };
  const resume = (id: string, headers: Record<string, string> = {}, after = '') =>
    fetch(`${server.url}/api/chat/stream?id=${id}${after ? `&after=${after}` : ''}`, { headers });

  it('another visitor on the same address can neither stop nor resume it; its own browser can', async () => {
    const body = question('Whose reply is this?', 'vslow');
    const reader = await firstText(await send(body, keyA));
    expect(await stop(body.id, keyB)).toBe(false);
    expect(await stop(body.id)).toBe(false);
    expect((await resume(body.id, keyB)).status).toBe(204);
    expect((await resume(body.id)).status).toBe(204);
    const mine = await resume(body.id, keyA);
    expect(mine.status).toBe(200);
    await mine.body!.cancel();
    expect((await replyOf(body.id))!.status).toBe('streaming');
    expect(await stop(body.id, keyA)).toBe(true);
    while (!(await reader.read()).done) { /* drain */ }
    await waitFor(async () => (await replyOf(body.id))?.status === 'stopped');
    // The finished reply comes back only to its own browser too.
    const after = body.messages[0]!.id;
    expect((await resume(body.id, keyB, after)).status).toBe(204);
    expect((await resume(body.id, keyA, after)).status).toBe(200);
  });

  it('a send without a key gets one in the reply headers, and that key stops it', async () => {
    const body = question('Keyless question', 'vslow');
    const res = await send(body);
    const key = res.headers.get('x-chat-key');
    expect(key).toMatch(CHAT_KEY);
    const reader = await firstText(res);
    expect(await stop(body.id, keyA)).toBe(false);
    expect(await stop(body.id, { 'x-chat-key': key! })).toBe(true);
    while (!(await reader.read()).done) { /* drain */ }
  });
});
