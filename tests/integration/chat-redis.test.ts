// Two instances on one PostgreSQL and Redis: a reply started on one is resumed and stopped from the
// other (only with its visitor's key), and questions sent to both at once share one quota.
// Needs TEST_DATABASE_URL and TEST_REDIS_URL; skipped without them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { startInProcess, type InProcessServer } from '../helpers/in-process';
import { startMockOpenAI, mockReplyWords, type MockOpenAI } from '../helpers/mock-openai';
import { freshPostgres } from '../helpers/server';
import { loginAs } from '../helpers/members';
import { saveModel } from '../../src/lib/server/chat/models';
import { createUser } from '../../src/lib/server/account/users';
import { adjustScore } from '../../src/lib/server/account/ledger';
import { chatReply, user } from '../../src/lib/server/db/schema';
import { scaled } from '../helpers/time-scale.mjs';

const DB = process.env.TEST_DATABASE_URL;
const REDIS = process.env.TEST_REDIS_URL;

describe.skipIf(!DB || !REDIS)('chat across two instances', () => {
  let a: InProcessServer;
  let b: InProcessServer;
  let mock: MockOpenAI;

  beforeAll(async () => {
    mock = await startMockOpenAI({ delayMs: 40, words: 20 });
    const env = { DATABASE_URL: await freshPostgres(), REDIS_URL: REDIS!, REDIS_PREFIX: `chat${Date.now().toString(36)}:` };
    a = await startInProcess(env);
    b = await startInProcess(env);
    await saveModel(a.runtime.db, { name: 'slow', modelId: 'mock', baseUrl: mock.url, audience: 'visitors' });
    // 20 words 150 ms apart: still writing when the other instance, loaded or not, is asked to resume it.
    await saveModel(a.runtime.db, { name: 'slower', modelId: 'mock@150', baseUrl: mock.url, audience: 'visitors' });
    await saveModel(a.runtime.db, { name: 'ten', modelId: 'mock@10', baseUrl: mock.url, audience: 'members', pricePerMessage: 10 });
    await saveModel(a.runtime.db, { name: 'threefree', modelId: 'mock@10', baseUrl: mock.url, audience: 'visitors', pricePerMessage: 10, freeDaily: 3 });
    for (const s of [a, b]) {
      await s.runtime.site.set('chat_rate_ip', '1000');
      await s.runtime.site.set('chat_rate_member', '1000');
    }
  }, scaled(60_000));

  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await mock?.close();
  });

  /** The visitor's browser key: their replies are stopped and resumed with it. */
  const KEY = { 'x-chat-key': 'chatRedisVisitorKey0123456789abcdef' };

  const send = (server: InProcessServer, chatId: string, text: string, signal?: AbortSignal, model = 'slow'): Promise<Response> => fetch(`${server.url}/api/chat/send`, {
    method: 'POST', signal, headers: { 'content-type': 'application/json', ...KEY },
    body: JSON.stringify({ id: chatId, model, messages: [{ id: `u${chatId}`, role: 'user', parts: [{ type: 'text', text }] }] }),
  });

  it('resumes on the second instance a reply the first is writing', async () => {
    const chatId = `r${Date.now().toString(36)}`;
    const abort = new AbortController();
    const res = await send(a, chatId, 'Resume me elsewhere', abort.signal, 'slower');
    await res.body!.getReader().read();
    abort.abort();
    const resumed = await fetch(`${b.url}/api/chat/stream?id=${chatId}`, { headers: KEY });
    expect(resumed.status).toBe(200);
    const text = (await resumed.text()).split('\n\n').map((e) => e.replace(/^data: /, '')).filter((d) => d.startsWith('{'))
      .map((d) => JSON.parse(d) as { type: string; delta?: string }).filter((c) => c.type === 'text-delta').map((c) => c.delta).join('');
    expect(text).toBe(mockReplyWords('Resume me elsewhere', 20).join(''));
  });

  it('a stop sent to the second instance aborts the first one’s upstream request', async () => {
    const chatId = `s${Date.now().toString(36)}`;
    const before = mock.requests.length;
    const res = await send(a, chatId, 'Stop me from elsewhere');
    const reader = res.body!.getReader();
    let seen = '';
    while (!seen.includes('text-delta')) seen += new TextDecoder().decode((await reader.read()).value);
    const stopAt = async (headers: Record<string, string>): Promise<boolean> => ((await (await fetch(`${b.url}/api/chat/stop`, {
      method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ id: chatId }),
    })).json()) as { data: { stopped: boolean } }).data.stopped;
    // Another visitor's browser (same address, another key) stops nothing.
    expect(await stopAt({ 'x-chat-key': 'anotherVisitorKey0123456789abcdefgh' })).toBe(false);
    expect((await fetch(`${b.url}/api/chat/stream?id=${chatId}`, { headers: { 'x-chat-key': 'anotherVisitorKey0123456789abcdefgh' } })).status).toBe(204);
    expect(await stopAt(KEY)).toBe(true);
    while (!(await reader.read()).done) { /* drain */ }
    expect(mock.requests[before]!.aborted).toBe(true);
    const [row] = await a.runtime.db.select().from(chatReply).where(eq(chatReply.chatId, chatId));
    expect(row!.status).toBe('stopped');
  });

  /** `n` questions at once, every other one to each instance; how many were answered, and the refusals' statuses. */
  async function burst(n: number, model: string, headers: Record<string, string>): Promise<{ answered: number; refused: number[] }> {
    const results = await Promise.all(Array.from({ length: n }, async (_, i) => {
      const chatId = `p${Date.now().toString(36)}${i}`;
      const res = await fetch(`${(i % 2 ? b : a).url}/api/chat/send`, {
        method: 'POST', headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ id: chatId, model, messages: [{ id: `u${chatId}`, role: 'user', parts: [{ type: 'text', text: `Parallel ${i}` }] }] }),
      });
      const text = await res.text();
      return res.status === 200 && text.includes('"text-delta"') ? 0 : res.status;
    }));
    return { answered: results.filter((s) => s === 0).length, refused: results.filter((s) => s !== 0) };
  }

  it('20 questions at once over both instances with 25 points at 10 a reply: 2 answered, 18 refused', async () => {
    const made = await createUser(a.runtime.db, { username: 'burstmember', password: 'secret123' });
    await adjustScore(a.runtime.db, made.id, 25, 'test top-up');
    const token = (await loginAs(a.url, a.runtime, 'burstmember', 'secret123')).token;
    const { answered, refused } = await burst(20, 'ten', { 'ba-user-token': token });
    expect(answered).toBe(2);
    expect(refused).toEqual(Array(18).fill(402));
    const [row] = await a.runtime.db.select({ score: user.score }).from(user).where(eq(user.id, made.id));
    expect(row!.score).toBe(5);
  });

  it('20 questions at once over both instances with 3 free replies a day: 3 for a member without points, 3 for a visitor address', async () => {
    await createUser(a.runtime.db, { username: 'burstfree', password: 'secret123' });
    const token = (await loginAs(a.url, a.runtime, 'burstfree', 'secret123')).token;
    const member = await burst(20, 'threefree', { 'ba-user-token': token });
    expect(member.answered).toBe(3);
    expect(member.refused).toEqual(Array(17).fill(402));
    const visitor = await burst(20, 'threefree', KEY);
    expect(visitor.answered).toBe(3);
    expect(visitor.refused).toEqual(Array(17).fill(402));
  });
});
