// Two instances on one PostgreSQL and Redis: a reply started on one is resumed and stopped from the other.
// Needs TEST_DATABASE_URL and TEST_REDIS_URL; skipped without them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { startInProcess, type InProcessServer } from '../helpers/in-process';
import { startMockOpenAI, mockReplyWords, type MockOpenAI } from '../helpers/mock-openai';
import { freshPostgres } from '../helpers/server';
import { saveModel } from '../../src/lib/server/chat/models';
import { chatReply } from '../../src/lib/server/db/schema';

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
  }, 60_000);

  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await mock?.close();
  });

  const send = (server: InProcessServer, chatId: string, text: string, signal?: AbortSignal): Promise<Response> => fetch(`${server.url}/api/chat/send`, {
    method: 'POST', signal, headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ id: chatId, model: 'slow', messages: [{ id: `u${chatId}`, role: 'user', parts: [{ type: 'text', text }] }] }),
  });

  it('resumes on the second instance a reply the first is writing', async () => {
    const chatId = `r${Date.now().toString(36)}`;
    const abort = new AbortController();
    const res = await send(a, chatId, 'Resume me elsewhere', abort.signal);
    await res.body!.getReader().read();
    abort.abort();
    const resumed = await fetch(`${b.url}/api/chat/stream?id=${chatId}`);
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
    const stop = await (await fetch(`${b.url}/api/chat/stop`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: chatId }) })).json() as { data: { stopped: boolean } };
    expect(stop.data.stopped).toBe(true);
    while (!(await reader.read()).done) { /* drain */ }
    expect(mock.requests[before]!.aborted).toBe(true);
    const [row] = await a.runtime.db.select().from(chatReply).where(eq(chatReply.chatId, chatId));
    expect(row!.status).toBe('stopped');
  });
});
