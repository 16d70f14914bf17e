// The AI chat API: the UI message stream protocol, stop, resume, quotas and points, provider
// failures, grounding that respects who may read what, and conversations kept for their owner.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { startInProcess, type InProcessServer } from '../helpers/in-process';
import { startMockOpenAI, type MockOpenAI } from '../helpers/mock-openai';
import { loginAs } from '../helpers/members';
import { createUser } from '../../src/lib/server/account/users';
import { adjustScore } from '../../src/lib/server/account/ledger';
import { askCategory, chatReply, user, userScoreLog } from '../../src/lib/server/db/schema';
import { createPost } from '../../src/lib/server/ask/posts';
import { saveModel } from '../../src/lib/server/chat/models';
import { importBook } from '../../src/lib/server/md/transfer';
import { upsertBook } from '../../src/lib/server/md/books';
import { expandFraming, type Translate } from '../../src/lib/shared/chat-frame';
import { translator } from '../../src/lib/i18n';
import { scaled } from '../helpers/time-scale.mjs';

let server: InProcessServer;
let mock: MockOpenAI;
let alice: { token: string; id: number };
let bob: { token: string; id: number };

interface Chunk { type: string; [key: string]: unknown }

/** Reads an SSE body into its JSON chunks. */
function chunksOf(text: string): Chunk[] {
  return text.split('\n\n').map((e) => e.replace(/^data: /, '').trim()).filter((d) => d && d !== '[DONE]').map((d) => JSON.parse(d) as Chunk);
}
const textOf = (chunks: Chunk[]): string => chunks.filter((c) => c.type === 'text-delta').map((c) => c.delta as string).join('');

let counter = 0;
function question(text: string, chatId = `c${Date.now().toString(36)}${counter++}`, model?: string) {
  return { id: chatId, model, messages: [{ id: `m${counter++}`, role: 'user', parts: [{ type: 'text', text }] }] };
}

/** The key a visitor's browser sends with its questions, stops and resumes (members' is ignored). */
const VISITOR_KEY = { 'x-chat-key': 'chatTestVisitorKey0123456789abcdef' };

function send(body: unknown, token?: string, lang = 'en', signal?: AbortSignal): Promise<Response> {
  return fetch(`${server.url}/api/chat/send`, {
    method: 'POST', signal,
    headers: { 'content-type': 'application/json', 'think-lang': lang, ...VISITOR_KEY, ...(token ? { 'ba-user-token': token } : {}) },
    body: JSON.stringify(body),
  });
}

async function waitFor<T>(fn: () => Promise<T | undefined | null | false>, ms = 5000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

const replyOf = async (chatId: string) => (await server.runtime.db.select().from(chatReply).where(eq(chatReply.chatId, chatId)))[0];

beforeAll(async () => {
  mock = await startMockOpenAI({ delayMs: 2 });
  // Long enough for the first reply to start the chat worker thread on a loaded machine; the hanging model still times out.
  server = await startInProcess({ CHAT_TIMEOUT_SECONDS: '3' });
  const db = server.runtime.db;
  // Every test asks from 127.0.0.1; one test checks the limit itself.
  await server.runtime.site.set('chat_rate_ip', '1000');
  const models: [string, string, Partial<Parameters<typeof saveModel>[1]>][] = [
    ['mock', 'mock', { audience: 'visitors' }],
    ['slow', 'mock@60', { audience: 'visitors' }],
    ['paid', 'mock', { audience: 'members', pricePerMessage: 3 }],
    ['paidslow', 'mock@60', { audience: 'members', pricePerMessage: 3 }],
    ['f401', 'mock-401', { audience: 'visitors' }],
    ['f429', 'mock-429', { audience: 'visitors' }],
    ['f500', 'mock-500', { audience: 'visitors' }],
    ['fctx', 'mock-400-context', { audience: 'visitors' }],
    ['fcut', 'mock-cut@5', { audience: 'visitors' }],
    ['fhang', 'mock-hang', { audience: 'visitors' }],
  ];
  for (const [name, modelId, extra] of models) await saveModel(db, { name, modelId, baseUrl: mock.url, apiKey: 'sk-test', ...extra });
  await saveModel(db, { name: 'down', modelId: 'x', baseUrl: 'http://127.0.0.1:9/v1', audience: 'visitors' });
  const a = await createUser(db, { username: 'chatalice', password: 'secret123' });
  const b = await createUser(db, { username: 'chatbob', password: 'secret123' });
  alice = { id: a.id, token: (await loginAs(server.url, server.runtime, 'chatalice', 'secret123')).token };
  bob = { id: b.id, token: (await loginAs(server.url, server.runtime, 'chatbob', 'secret123')).token };
  // A members-only book with a word no public page has.
  await upsertBook(db, 'insiders', { title: 'Insiders', visibility: 'members' });
  await importBook(db, 'insiders', { pages: [{ name: 'vault', title: 'Vault', order: 1, parent: null, content: '# Vault\n\n## Zanzibarite keys\n\nThe zanzibarite rotation runs every night.\n' }] });
}, scaled(60_000));

afterAll(async () => {
  await server?.stop();
  await mock?.close();
});

describe('site assistant', () => {
  it('streams the UI message protocol with citations that link to the docs section', async () => {
    const res = await send(question('How do I move Atrium to PostgreSQL?', undefined, 'site'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    expect(res.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    const chunks = chunksOf(await res.text());
    expect(chunks[0]!.type).toBe('start');
    const sources = (chunks[0]!.messageMetadata as { sources: { n: number; url: string; title: string }[] }).sources;
    expect(sources.length).toBeGreaterThan(0);
    expect(sources.some((s) => /^\/md\/[\w-]+\/[\w.-]+#/.test(s.url))).toBe(true);
    expect(chunks.filter((c) => c.type === 'text-delta').length).toBeGreaterThan(5);
    const text = textOf(chunks);
    expect(text).toContain('[1]');
    const finish = chunks.at(-1)!;
    expect(finish.type).toBe('finish');
    const html = (finish.messageMetadata as { html: string }).html;
    expect(html).toContain(`href="${sources[0]!.url}"`);
    expect(html).not.toContain('<script');
  });

  it('answers in Chinese and offers the forum when nothing matches', async () => {
    const chunks = chunksOf(await (await send(question('如何把站点迁移到 PostgreSQL 数据库？', undefined, 'site'), undefined, 'zh-cn')).text());
    // The framing is a marker, worded in the reader's language when shown (tests/unit/chat-frame.test.ts).
    expect(textOf(chunks)).toContain('%%frame:label%%');
    const none = chunksOf(await (await send(question('qwxzvbnm plorktastic', undefined, 'site'))).text());
    expect(expandFraming(textOf(none), translator('en', 'chat') as Translate)).toMatch(/\[Ask the community\]\(\S*\/ask\/post\?title=qwxzvbnm/);
  });

  it('cites the guide in the language of the question first, the translation only after', async () => {
    const sourcesOf = async (q: string): Promise<string[]> => {
      const chunks = chunksOf(await (await send(question(q, undefined, 'site'))).text());
      return (chunks[0]!.messageMetadata as { sources: { url: string }[] }).sources.map((s) => s.url);
    };
    const at = (urls: string[], re: RegExp): number[] => urls.flatMap((u, i) => (re.test(u) ? [i] : []));
    const EN = /^\/md\/guide-en\//;
    const ZH = /^\/md\/guide\//;
    for (const [q, own, other] of [['How do I move Atrium to PostgreSQL and Redis?', EN, ZH], ['如何把 Atrium 迁移到 PostgreSQL 和 Redis？', ZH, EN]] as const) {
      const urls = await sourcesOf(q);
      expect(urls[0], q).toMatch(own);
      const others = at(urls, other);
      // Every section of the question's language comes before any of the translation.
      if (others.length) expect(Math.max(...at(urls, own)), `${q}: ${urls.join(' ')}`).toBeLessThan(Math.min(...others));
    }
  });

  it('never cites a members-only book to a visitor, and does to a member', async () => {
    const visitor = chunksOf(await (await send(question('zanzibarite rotation', undefined, 'site'))).text());
    expect(JSON.stringify(visitor)).not.toContain('/md/insiders');
    const member = chunksOf(await (await send(question('zanzibarite rotation', undefined, 'site'), alice.token)).text());
    expect(JSON.stringify(member)).toContain('/md/insiders/vault#');
  });

  it('cites the forum posts whose titles hold every topic word, else those holding any', async () => {
    const db = server.runtime.db;
    const [discussion] = await db.select().from(askCategory).where(eq(askCategory.slug, 'discussion'));
    // Their own author: posting earns points, and the quota tests count Alice's.
    const author = await createUser(db, { username: 'chatposter', password: 'secret123' });
    const post = async (title: string): Promise<number> => (await createPost(db, author.id, { title, category_id: discussion!.id, content: `About ${title}.`, tags: [] })).id;
    const both = await post('Quokkaline pools on Zephyrdb');
    const one = [await post('Quokkaline pools explained'), await post('Tuning Zephyrdb'), await post('Quokkaline in production')];
    const forumUrls = async (q: string): Promise<string[]> => {
      const chunks = chunksOf(await (await send(question(q, undefined, 'site'))).text());
      return (chunks[0]!.messageMetadata as { sources: { url: string }[] }).sources.map((s) => s.url).filter((u) => u.startsWith('/ask/'));
    };
    expect(await forumUrls('Quokkaline pools on zephyrdb?')).toEqual([`/ask/info/${both}`]);
    // No title holds both words: the posts holding either still answer.
    const either = await forumUrls('quokkaline or zephyrdb with a vorpalnix?');
    expect(either).toEqual(expect.arrayContaining([both, ...one].map((id) => `/ask/info/${id}`)));
  });
});

describe('models', () => {
  it('streams a test-server reply, grounded in the sources, and records its usage', async () => {
    const before = mock.requests.length;
    const body = question('How do I move Atrium to PostgreSQL?', undefined, 'mock');
    const chunks = chunksOf(await (await send(body)).text());
    expect(textOf(chunks)).toContain('see the guide [1].');
    const upstream = mock.requests[before]!;
    expect(upstream.authorization).toBe('Bearer sk-test');
    const system = upstream.messages.find((m) => m.role === 'system')!.content as string;
    expect(system).toMatch(/\[1\] /);
    const row = await waitFor(async () => { const r = await replyOf(body.id); return r?.status === 'done' ? r : null; });
    expect(row.completionTokens).toBeGreaterThan(0);
    expect(row.promptTokens).toBeGreaterThan(0);
    // The token stream was read in the chat worker thread (dist/chat-worker.mjs), not on the request thread.
    if (existsSync('/proc/self/task')) {
      const threads = readdirSync('/proc/self/task').map((t) => { try { return readFileSync(`/proc/self/task/${t}/comm`, 'utf8').trim(); } catch { return ''; } });
      expect(threads).toContain('chat');
    }
  });

  it('lists what the reader may use, never the key or the URL', async () => {
    const visitor = await (await fetch(`${server.url}/api/chat/models`)).json() as { data: { list: { name: string }[] } };
    const names = visitor.data.list.map((m) => m.name);
    expect(names).toContain('mock');
    expect(names).not.toContain('paid');
    expect(names.at(-1)).toBe('site');
    expect(JSON.stringify(visitor)).not.toContain('sk-test');
    expect(JSON.stringify(visitor)).not.toContain('127.0.0.1');
    const member = await (await fetch(`${server.url}/api/chat/models`, { headers: { 'ba-user-token': alice.token } })).json() as { data: { list: { name: string }[] } };
    expect(member.data.list.map((m) => m.name)).toContain('paid');
    const refused = await send(question('hello', undefined, 'paid'));
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { msg: string }).msg).toBe('This model is not available to you');
  });

  it.each([
    ['f401', "refused this site's API key"],
    ['f429', 'rate limited'],
    ['f500', 'The AI provider had an error'],
    ['fctx', "longer than the model's context"],
    ['fcut', 'stopped in the middle of the answer'],
    ['down', 'cannot be reached'],
    ['fhang', 'did not answer in time'],
  ])('maps a %s failure to a message in the asker’s language', async (model, message) => {
    const chunks = chunksOf(await (await send(question('Explain backups', undefined, model))).text());
    const error = chunks.find((c) => c.type === 'error');
    expect(error?.errorText).toContain(message);
  });

  it('says it in Chinese to a Chinese reader', async () => {
    const chunks = chunksOf(await (await send(question('备份', undefined, 'f429'), undefined, 'zh-cn')).text());
    expect(chunks.find((c) => c.type === 'error')?.errorText).toBe('AI 服务繁忙（请求过于频繁），请稍后再试。');
  });
});

describe('stop and resume', () => {
  it('stop aborts the upstream request and counts the tokens used so far', async () => {
    const body = question('Tell me about the forum', undefined, 'slow');
    const before = mock.requests.length;
    const res = await send(body);
    const reader = res.body!.getReader();
    let seen = '';
    while (!seen.includes('text-delta')) seen += new TextDecoder().decode((await reader.read()).value);
    const stop = await (await fetch(`${server.url}/api/chat/stop`, { method: 'POST', headers: { 'content-type': 'application/json', ...VISITOR_KEY }, body: JSON.stringify({ id: body.id }) })).json() as { data: { stopped: boolean } };
    expect(stop.data.stopped).toBe(true);
    while (!(await reader.read()).done) { /* drain */ }
    await waitFor(async () => mock.requests[before]?.aborted);
    const row = await waitFor(async () => { const r = await replyOf(body.id); return r?.status === 'stopped' ? r : null; });
    expect(row.completionTokens).toBeGreaterThan(0);
    expect(row.completionTokens).toBeLessThan(12);
  });

  it('a stop that reaches the server before its question stops the reply as it starts: nothing asked, nothing charged, the stopped reply kept', async () => {
    const carolRow = await createUser(server.runtime.db, { username: 'chatcarol', password: 'secret123' });
    const carol = { id: carolRow.id, token: (await loginAs(server.url, server.runtime, 'chatcarol', 'secret123')).token };
    await adjustScore(server.runtime.db, carol.id, 10, 'test top-up');
    const scoreOf = async () => (await server.runtime.db.select({ score: user.score }).from(user).where(eq(user.id, carol.id)))[0]!.score;
    const score = await scoreOf();
    const stopFor = async (id: string, turn: string, token: string) => ((await (await fetch(`${server.url}/api/chat/stop`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'ba-user-token': token }, body: JSON.stringify({ id, turn }),
    })).json()) as { data: { stopped: boolean } }).data.stopped;
    // Stop pressed right after sending: the stop names the send (its turn) and arrives first.
    const body = { ...question('Stop before I am asked', undefined, 'paidslow'), turn: 'turnStopEarly1' };
    const before = mock.requests.length;
    expect(await stopFor(body.id, body.turn, carol.token)).toBe(false);
    const chunks = chunksOf(await (await send(body, carol.token)).text());
    const finish = chunks.at(-1)!;
    expect(finish.type).toBe('finish');
    expect((finish.messageMetadata as { status: string }).status).toBe('stopped');
    expect(textOf(chunks)).toBe('');
    expect(mock.requests.length).toBe(before);
    const row = await waitFor(async () => { const r = await replyOf(body.id); return r?.status === 'stopped' ? r : null; });
    expect(row.points).toBe(0);
    expect(await scoreOf()).toBe(score);
    // The stopped reply is kept as the page showed it: empty, marked stopped.
    const stored = await (await fetch(`${server.url}/api/chat/conversation?id=${body.id}`, { headers: { 'ba-user-token': carol.token } })).json() as { data: { messages: { role: string; text: string; metadata: { status?: string } }[] } };
    const answer = stored.data.messages.find((m) => m.role === 'assistant');
    expect(answer?.text).toBe('');
    expect(answer?.metadata.status).toBe('stopped');
    // Someone else naming the same chat and turn stops nothing of Carol's.
    const other = { ...question('Not yours to stop', undefined, 'mock'), turn: 'turnStopOther1' };
    await stopFor(other.id, other.turn, bob.token);
    const done = chunksOf(await (await send(other, carol.token)).text());
    expect(textOf(done)).toContain('see the guide [1].');
    expect((done.at(-1)!.messageMetadata as { status: string }).status).toBe('done');
  });

  it('a dropped connection keeps the reply going; the stream endpoint resumes it, then answers 204', async () => {
    const body = question('How do I back up the site?', undefined, 'slow');
    const abort = new AbortController();
    const res = await send(body, undefined, 'en', abort.signal);
    const reader = res.body!.getReader();
    await reader.read();
    abort.abort();
    const resumed = await fetch(`${server.url}/api/chat/stream?id=${body.id}`, { headers: VISITOR_KEY });
    expect(resumed.status).toBe(200);
    const chunks = chunksOf(await resumed.text());
    expect(chunks[0]!.type).toBe('start');
    expect(textOf(chunks)).toContain('see the guide [1].');
    expect(chunks.at(-1)!.type).toBe('finish');
    const after = await fetch(`${server.url}/api/chat/stream?id=${body.id}`, { headers: VISITOR_KEY });
    expect(after.status).toBe(204);
    // Someone else's chat id resumes nothing.
    expect((await fetch(`${server.url}/api/chat/stream?id=nobody`)).status).toBe(204);
  });

  it('a visitor who comes back after the reply ended gets the finished reply (their chat lives in the browser)', async () => {
    const body = question('How do I back up the data directory?', undefined, 'mock');
    const live = chunksOf(await (await send(body)).text());
    const replyId = live[0]!.messageId as string;
    const questionId = body.messages[0]!.id;
    // The page asks for what follows its last question: the reply, whole, as it ended.
    const again = await fetch(`${server.url}/api/chat/stream?id=${body.id}&after=${questionId}`, { headers: VISITOR_KEY });
    expect(again.status).toBe(200);
    expect(again.headers.get('content-type')).toContain('text/event-stream');
    const chunks = chunksOf(await again.text());
    expect(chunks[0]).toMatchObject({ type: 'start', messageId: replyId });
    expect(textOf(chunks)).toBe(textOf(live));
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', messageMetadata: { status: 'done', model: 'mock' } });
    // Without `after`, after another question, for a member or with a bad id: nothing.
    expect((await fetch(`${server.url}/api/chat/stream?id=${body.id}`, { headers: VISITOR_KEY })).status).toBe(204);
    expect((await fetch(`${server.url}/api/chat/stream?id=${body.id}&after=other`, { headers: VISITOR_KEY })).status).toBe(204);
    expect((await fetch(`${server.url}/api/chat/stream?id=${body.id}&after=${questionId}`, { headers: { 'ba-user-token': alice.token } })).status).toBe(204);
    const bad = await fetch(`${server.url}/api/chat/stream?id=${body.id}&after=no%20spaces`);
    expect(((await bad.json()) as { code: number }).code).toBe(0);
  });
});

describe('quotas and points', () => {
  it('refuses before the provider is called when the member lacks the points', async () => {
    const before = mock.requests.length;
    const res = await send(question('Paid question', undefined, 'paid'), bob.token);
    expect(res.status).toBe(402);
    const envelope = await res.json() as { code: number; msg: string; data: { resets: number } };
    expect(envelope.code).toBe(0);
    expect(envelope.msg).toMatch(/needs about 3 points and you have 0\. Your free allowance resets at/);
    expect(envelope.data.resets).toBeGreaterThan(Date.now() / 1000);
    expect(mock.requests.length).toBe(before);
  });

  it('charges once per reply, also when the client disconnects, with the conversation title in the points log', async () => {
    await adjustScore(server.runtime.db, alice.id, 10, 'test top-up');
    const body = question('What does a paid answer cost?', undefined, 'paidslow');
    const abort = new AbortController();
    const res = await send(body, alice.token, 'en', abort.signal);
    await res.body!.getReader().read();
    abort.abort();
    await waitFor(async () => { const r = await replyOf(body.id); return r?.status === 'done' ? r : null; }, 8000);
    // A stop after the end changes nothing.
    await fetch(`${server.url}/api/chat/stop`, { method: 'POST', headers: { 'content-type': 'application/json', 'ba-user-token': alice.token }, body: JSON.stringify({ id: body.id }) });
    const logs = await server.runtime.db.select().from(userScoreLog).where(and(eq(userScoreLog.userId, alice.id), eq(userScoreLog.score, -3)));
    expect(logs).toHaveLength(1);
    expect(logs[0]!.memo).toBe('AI chat: What does a paid answer cost?');
    const [row] = await server.runtime.db.select({ score: user.score }).from(user).where(eq(user.id, alice.id));
    expect(row!.score).toBe(7);
    expect((await replyOf(body.id))!.points).toBe(3);
  });

  it('rate-limits questions per address', async () => {
    await server.runtime.site.set('chat_rate_ip', '2');
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) {
        const res = await send(question('rate', undefined, 'site'));
        statuses.push(res.status);
        await res.body?.cancel();
      }
      expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
    } finally {
      await server.runtime.site.set('chat_rate_ip', '1000');
    }
  });
});

describe('conversations', () => {
  it('stores a member’s conversation with its branches, readable only by its owner', async () => {
    const chatId = `conv${Date.now().toString(36)}`;
    const first = { id: chatId, model: 'mock', messages: [{ id: 'q1', role: 'user', parts: [{ type: 'text', text: 'First question about docs' }] }] };
    const one = chunksOf(await (await send(first, alice.token)).text());
    const answerId = one[0]!.messageId as string;
    // Edit the question: a new user message replacing q1 starts a second branch.
    const edited = { id: chatId, model: 'mock', messages: [{ id: 'q1b', role: 'user', parts: [{ type: 'text', text: 'Edited question about docs' }] }] };
    await (await send(edited, alice.token)).text();
    const got = await (await fetch(`${server.url}/api/chat/conversation?id=${chatId}`, { headers: { 'ba-user-token': alice.token } })).json() as {
      data: { title: string; leafId: string; messages: { id: string; parentId: string; role: string; text: string }[] };
    };
    expect(got.data.title).toBe('First question about docs');
    expect(got.data.messages.filter((m) => m.role === 'user' && m.parentId === '').map((m) => m.id).sort()).toEqual(['q1', 'q1b']);
    expect(got.data.messages.find((m) => m.id === answerId)?.parentId).toBe('q1');
    expect(got.data.messages.find((m) => m.id === got.data.leafId)?.parentId).toBe('q1b');

    const other = await fetch(`${server.url}/api/chat/conversation?id=${chatId}`, { headers: { 'ba-user-token': bob.token, 'think-lang': 'en' } });
    expect(other.status).toBe(404);
    expect(((await other.json()) as { msg: string }).msg).toBe('Conversation not found');
    // Bob cannot write into it either, nor rename or delete it.
    expect((await send({ ...first, messages: [{ id: 'x1', role: 'user', parts: [{ type: 'text', text: 'hijack' }] }] }, bob.token)).status).toBe(404);
    const rename = await fetch(`${server.url}/api/chat/rename`, { method: 'POST', headers: { 'content-type': 'application/json', 'ba-user-token': bob.token }, body: JSON.stringify({ id: chatId, title: 'mine' }) });
    expect(rename.status).toBe(404);
    const bobs = await (await fetch(`${server.url}/api/chat/list`, { headers: { 'ba-user-token': bob.token } })).json() as { data: { list: unknown[] } };
    expect(bobs.data.list).toEqual([]);

    // A title of only spaces, on two lines or too long is the spec's dialog input error (§8), in the reader's language.
    const illegal = async (title: string, lang: string) => (await (await fetch(`${server.url}/api/chat/rename`, { method: 'POST', headers: { 'content-type': 'application/json', 'ba-user-token': alice.token, 'think-lang': lang }, body: JSON.stringify({ id: chatId, title }) })).json()) as { code: number; data: { fields: Record<string, string> } };
    expect(await illegal('   ', 'en')).toMatchObject({ code: 0, data: { fields: { title: 'Illegal input' } } });
    expect(await illegal('a\nb', 'zh-cn')).toMatchObject({ code: 0, data: { fields: { title: '非法输入' } } });
    expect(await illegal('x'.repeat(101), 'en')).toMatchObject({ code: 0, data: { fields: { title: 'Illegal input' } } });
    const renamed = await fetch(`${server.url}/api/chat/rename`, { method: 'POST', headers: { 'content-type': 'application/json', 'ba-user-token': alice.token }, body: JSON.stringify({ id: chatId, title: '  Renamed chat ' }) });
    expect(((await renamed.json()) as { code: number }).code).toBe(1);
    const search = await (await fetch(`${server.url}/api/chat/list?q=edited`, { headers: { 'ba-user-token': alice.token } })).json() as { data: { list: { id: string; title: string }[] } };
    expect(search.data.list.map((c) => c.title)).toEqual(['Renamed chat']);
    await fetch(`${server.url}/api/chat/delete`, { method: 'POST', headers: { 'content-type': 'application/json', 'ba-user-token': alice.token }, body: JSON.stringify({ id: chatId }) });
    expect((await fetch(`${server.url}/api/chat/conversation?id=${chatId}`, { headers: { 'ba-user-token': alice.token } })).status).toBe(404);
  });

  it('remembers the branch a member picks, for the owner only', async () => {
    const chatId = `branch${Date.now().toString(36)}`;
    const ask = (id: string, text: string) => ({ id: chatId, model: 'mock', messages: [{ id, role: 'user', parts: [{ type: 'text', text }] }] });
    const first = chunksOf(await (await send(ask('b1', 'First branch question'), alice.token)).text())[0]!.messageId as string;
    const second = chunksOf(await (await send(ask('b2', 'Second branch question'), alice.token)).text())[0]!.messageId as string;
    const leafOf = async (): Promise<string> => ((await (await fetch(`${server.url}/api/chat/conversation?id=${chatId}`, { headers: { 'ba-user-token': alice.token } })).json()) as { data: { leafId: string } }).data.leafId;
    await waitFor(async () => (await leafOf()) === second);
    const pick = (leafId: string, token?: string) => fetch(`${server.url}/api/chat/branch`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'think-lang': 'en', ...(token ? { 'ba-user-token': token } : {}) }, body: JSON.stringify({ id: chatId, leafId }),
    });
    const picked = await pick(first, alice.token);
    expect(((await picked.json()) as { code: number; data: { leafId: string } })).toMatchObject({ code: 1, data: { leafId: first } });
    // A reload shows the branch picked.
    expect(await leafOf()).toBe(first);
    // Someone else's conversation, a message of another conversation, a bad id, a visitor: refused.
    const other = await pick(second, bob.token);
    expect(other.status).toBe(404);
    expect(((await other.json()) as { msg: string }).msg).toBe('Conversation not found');
    const stranger = await pick('nosuchmessage', alice.token);
    expect(stranger.status).toBe(400);
    expect(((await stranger.json()) as { msg: string }).msg).toBe('That message is not in this conversation');
    expect(((await (await pick('bad id!', alice.token)).json()) as { code: number }).code).toBe(0);
    expect(((await (await pick(first)).json()) as { code: number }).code).not.toBe(1);
    expect(await leafOf()).toBe(first);
  });

  it('counts replies and tokens per model in /metrics', async () => {
    const scrape = async (): Promise<string> => (await fetch(`${server.url}/metrics`)).text();
    const value = (text: string, series: string): number => Number(new RegExp(`^${series.replace(/[{}"]/g, '\\$&')} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
    const before = await scrape();
    const body = question('How do I move Atrium to PostgreSQL?', undefined, 'mock');
    await (await send(body)).text();
    await (await send(question('Explain backups', undefined, 'f429'))).text();
    const after = await waitFor(async () => {
      const text = await scrape();
      return value(text, 'atrium_chat_replies_total{model="mock",status="done"}') > value(before, 'atrium_chat_replies_total{model="mock",status="done"}') ? text : null;
    });
    const row = (await replyOf(body.id))!;
    expect(value(after, 'atrium_chat_replies_total{model="mock",status="done"}') - value(before, 'atrium_chat_replies_total{model="mock",status="done"}')).toBe(1);
    expect(value(after, 'atrium_chat_tokens_total{model="mock",kind="completion"}') - value(before, 'atrium_chat_tokens_total{model="mock",kind="completion"}')).toBe(row.completionTokens);
    expect(value(after, 'atrium_chat_tokens_total{model="mock",kind="prompt"}') - value(before, 'atrium_chat_tokens_total{model="mock",kind="prompt"}')).toBe(row.promptTokens);
    expect(value(after, 'atrium_chat_replies_total{model="f429",status="failed"}')).toBeGreaterThan(value(before, 'atrium_chat_replies_total{model="f429",status="failed"}'));
    expect(after).toMatch(/^# HELP atrium_chat_points_total /m);
  });

  it('answers the envelope for bad input and for visitors asking for history', async () => {
    const bad = await send({ id: 'bad id!', messages: [] });
    expect(bad.status).toBe(200);
    expect(((await bad.json()) as { code: number }).code).toBe(0);
    const list = await (await fetch(`${server.url}/api/chat/list`)).json() as { code: number };
    expect(list.code).not.toBe(1);
    const long = await send(question('x'.repeat(4001), undefined, 'site'));
    expect(((await long.json()) as { msg: string }).msg).toBe('A question can be at most 4000 characters');
  });
});
