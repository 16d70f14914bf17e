// Streams end with the session that opened them (issue 24, findings 2 and 11(b)): a message stream
// or a chat reply stream held with a token stops delivering and closes within a second of that
// session's logout, of a password change made in another session, of an operator blocking the
// member and of the token's expiry, on the instance that ended it and on another (PostgreSQL +
// Redis: the stream on instance A, the logout on instance B). Message streams are capped per
// member and per address, the oldest closed first.
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/lib/server/account/users';
import { hashToken, startSession } from '../../src/lib/server/auth/sessions';
import { MESSAGE_STREAMS_PER_ADDRESS, MESSAGE_STREAMS_PER_MEMBER } from '../../src/lib/server/auth/session-streams';
import { saveModel } from '../../src/lib/server/chat/models';
import { stopReply } from '../../src/lib/server/chat/reply';
import { notify } from '../../src/lib/server/messages/notify';
import { ADMIN_GROUP } from '../../src/lib/server/site/seed';
import { token } from '../../src/lib/server/db/schema';
import { startInProcess, type InProcessServer } from '../helpers/in-process';
import { loginAs } from '../helpers/members';
import { startMockOpenAI, type MockOpenAI } from '../helpers/mock-openai';
import { freshPostgres, postJson } from '../helpers/server';
import { openSse, type SseClient } from '../helpers/sse';
import { scaled } from '../helpers/time-scale.mjs';

type Env<T = Record<string, unknown>> = { code: number; msg: string; data: T };
const DB = process.env.TEST_DATABASE_URL;
const REDIS = process.env.TEST_REDIS_URL;
const MODES = [{ name: 'PGlite', pg: false }, ...(DB && REDIS ? [{ name: 'PostgreSQL + Redis, two instances', pg: true }] : [])];
const PASSWORD = 'secret123';
/** Each test's streams come from their own address (TRUST_PROXY names the loopback proxy). */
let addressCounter = 10;
const nextAddress = (): string => `198.51.100.${addressCounter++}`;

let mock: MockOpenAI;
beforeAll(async () => { mock = await startMockOpenAI({ delayMs: 2, words: 2000 }); });
afterAll(async () => { await mock?.close(); });

describe.each(MODES)('streams end with their session on $name', ({ pg }) => {
  /** A holds the streams; B ends the sessions (the same instance on PGlite). */
  let a: InProcessServer;
  let b: InProcessServer;
  const opened: SseClient[] = [];
  let counter = 0;

  const headers = (tokenValue: string, address: string): Record<string, string> => ({ 'ba-user-token': tokenValue, 'think-lang': 'en', 'x-forwarded-for': address });
  const stream = async (tokenValue: string, address = nextAddress(), on = a): Promise<SseClient> => {
    const s = await openSse(on.url, '/api/interaction/stream', headers(tokenValue, address));
    opened.push(s);
    expect(s.status).toBe(200);
    await s.waitFor((e) => e.event === 'count');
    return s;
  };
  const call = async (tokenValue: string, path: string, body: unknown, on = b): Promise<Env> =>
    (await postJson(on.url, path, body, { ...(tokenValue ? { 'ba-user-token': tokenValue } : {}), 'think-lang': 'en' })).json<Env>();
  /** A member who may write at once (not a first-day member), and a login of theirs. */
  const member = async (groupId?: number): Promise<{ id: number; name: string; token: string; refreshToken: string }> => {
    const name = `s${pg ? 'p' : 'l'}${counter++}`;
    const row = await createUser(a.runtime.db, { username: name, password: PASSWORD, ...(groupId ? { groupId } : {}) });
    await a.runtime.db.execute(sql`update "user" set join_time = join_time - 200000 where id = ${row.id}`);
    const session = await loginAs(a.url, a.runtime, name, PASSWORD);
    return { id: row.id, name, token: session.token, refreshToken: session.refreshToken };
  };
  const login = async (name: string): Promise<string> => (await loginAs(a.url, a.runtime, name, PASSWORD)).token;
  const say = async (from: string, to: number, content: string): Promise<void> => {
    expect((await call(from, '/api/interaction/sendMessage', { user_id: to, content })).code).toBe(1);
  };
  /** The stream ends within a second of `started`, and its last event says why. */
  const endsWithin = async (s: SseClient, started: number, reason: string): Promise<void> => {
    await s.waitForEnd(scaled(1000));
    expect(Date.now() - started).toBeLessThan(scaled(1000));
    expect(s.events.at(-1)).toMatchObject({ event: 'end', data: { reason } });
  };
  const privateTexts = (s: SseClient): unknown[] => s.events.filter((e) => e.event === 'message').map((e) => (e.data.message as { content: string }).content);

  beforeAll(async () => {
    const env: Record<string, string> = { TRUST_PROXY: '127.0.0.1' };
    if (pg) Object.assign(env, { DATABASE_URL: await freshPostgres(), REDIS_URL: REDIS!, REDIS_PREFIX: `sst${Date.now().toString(36)}:` });
    a = await startInProcess(env);
    b = pg ? await startInProcess(env) : a;
    await a.runtime.site.set('chat_rate_ip', '1000');
    await saveModel(a.runtime.db, { name: 'slow', modelId: 'mock@50', baseUrl: mock.url, apiKey: 'sk-test', audience: 'members' });
  }, scaled(120_000));
  afterAll(async () => {
    for (const s of opened) s.close();
    if (b !== a) await b?.stop();
    await a?.stop();
  });

  it('logout ends the streams of that session on every instance; the member\'s other session keeps its own', async () => {
    const ann = await member();
    const bob = await member();
    const other = await login(ann.name);
    const s = await stream(ann.token);
    const kept = await stream(other);
    const started = Date.now();
    expect((await call(ann.token, '/api/user/logout', { refreshToken: ann.refreshToken })).code).toBe(1);
    await endsWithin(s, started, 'session');
    await say(bob.token, ann.id, 'after logout');
    expect((await kept.waitFor((e) => e.event === 'message')).data.message).toMatchObject({ content: 'after logout' });
    expect(privateTexts(s)).toEqual([]);
    expect(kept.ended).toBe(false);
  });

  it('a password change ends the streams of the member\'s other sessions, not of the one that changed it', async () => {
    const ann = await member();
    const bob = await member();
    const other = await login(ann.name);
    const s = await stream(other);
    const own = await stream(ann.token);
    const started = Date.now();
    expect((await call(ann.token, '/api/account/changePassword', { oldPassword: PASSWORD, newPassword: 'another123' })).code).toBe(1);
    await endsWithin(s, started, 'session');
    await say(bob.token, ann.id, 'after the password change');
    expect((await own.waitFor((e) => e.event === 'message')).data.message).toMatchObject({ content: 'after the password change' });
    expect(privateTexts(s)).toEqual([]);
    expect(own.ended).toBe(false);
  });

  it('an operator blocking a member ends every stream of theirs', async () => {
    const operator = await member(ADMIN_GROUP);
    const ann = await member();
    const bob = await member();
    const bobStream = await stream(bob.token);
    const first = await stream(ann.token);
    const second = await stream(await login(ann.name));
    const started = Date.now();
    expect((await call(operator.token, '/api/admin/memberStatus', { id: ann.id, status: 'disable' })).code).toBe(1);
    await endsWithin(first, started, 'session');
    await endsWithin(second, started, 'session');
    // A message to them afterwards (from the system: a blocked member takes no private ones) reaches
    // none of their streams, while the same message reaches another member's.
    await notify(a.runtime.db, [ann, bob].map((m) => ({ type: 'system' as const, senderId: operator.id, recipientId: m.id, title: 'after the block', summary: 'after the block', link: '/' })));
    await bobStream.waitFor((e) => e.event === 'message');
    expect([first, second].flatMap((s) => s.events.filter((e) => e.event === 'message'))).toEqual([]);
    expect(bobStream.ended).toBe(false);
  });

  it('a refresh token presented twice (a stolen copy) ends the streams of its session, renewed token included', async () => {
    const ann = await member();
    const renewed = await call('', '/api/common/refreshToken', { refreshToken: ann.refreshToken }) as Env<{ token: string }>;
    expect(renewed.code).toBe(1);
    const s = await stream(renewed.data.token);
    // Past the window in which two tabs renewing at once are told to retry.
    await a.runtime.db.update(token).set({ usedTime: Math.floor(Date.now() / 1000) - 60 }).where(eq(token.token, hashToken(a.runtime.tokenSecret, ann.refreshToken)));
    const started = Date.now();
    expect((await call('', '/api/common/refreshToken', { refreshToken: ann.refreshToken })).code).toBe(0);
    await endsWithin(s, started, 'session');
  });

  it('a stream ends when its access token expires', async () => {
    const ann = await member();
    const session = await startSession(a.runtime.db, a.runtime.tokenSecret, ann.id, false);
    const expires = Math.floor(Date.now() / 1000) + 2;
    await a.runtime.db.update(token).set({ expireTime: expires }).where(eq(token.token, hashToken(a.runtime.tokenSecret, session.token)));
    const s = await stream(session.token);
    await s.waitForEnd(scaled(4000));
    expect(Date.now()).toBeGreaterThanOrEqual(expires * 1000 - 50);
    expect(Date.now()).toBeLessThan(expires * 1000 + 1000);
    expect(s.events.at(-1)).toMatchObject({ event: 'end', data: { reason: 'expired' } });
  });

  it('a resumed chat reply stream ends with the session that resumed it', async () => {
    const ann = await member();
    const chatId = `sst${pg ? 'p' : 'l'}${Date.now().toString(36)}`;
    const abort = new AbortController();
    const sent = await fetch(`${a.url}/api/chat/send`, {
      method: 'POST', signal: abort.signal,
      headers: { 'content-type': 'application/json', 'think-lang': 'en', 'ba-user-token': ann.token },
      body: JSON.stringify({ id: chatId, model: 'slow', messages: [{ id: 'q1', role: 'user', parts: [{ type: 'text', text: 'A long answer, please' }] }] }),
    });
    expect(sent.status).toBe(200);
    await sent.body!.getReader().read();
    abort.abort();
    const resumed = await fetch(`${a.url}/api/chat/stream?id=${chatId}`, { headers: { 'ba-user-token': ann.token } });
    expect(resumed.status).toBe(200);
    const reader = resumed.body!.getReader();
    expect((await reader.read()).done).toBe(false);
    const started = Date.now();
    expect((await call(ann.token, '/api/user/logout', { refreshToken: ann.refreshToken })).code).toBe(1);
    // Read to the end: the reply itself would run for a minute and a half.
    const ended = (async () => { while (!(await reader.read()).done) { /* the rest until it ends */ } })();
    try {
      await Promise.race([ended, new Promise((_, fail) => setTimeout(() => fail(new Error(`the resumed reply was still streaming after ${scaled(1000)} ms`)), scaled(1000)))]);
      expect(Date.now() - started).toBeLessThan(scaled(1000));
    } finally {
      await reader.cancel().catch(() => undefined);
      // The reply itself runs on (as after any disconnect) until it is stopped.
      await stopReply(a.runtime, { userId: ann.id, key: null }, chatId);
    }
  });

  it(`closes a member's oldest message stream past ${MESSAGE_STREAMS_PER_MEMBER} open`, async () => {
    const ann = await member();
    const tokens = [ann.token, ...await Promise.all(Array.from({ length: MESSAGE_STREAMS_PER_MEMBER }, () => login(ann.name)))];
    const streams: SseClient[] = [];
    for (const value of tokens) streams.push(await stream(value));
    await streams[0]!.waitForEnd(scaled(1000));
    expect(streams[0]!.events.at(-1)).toMatchObject({ event: 'end', data: { reason: 'limit' } });
    expect(streams.slice(1).map((s) => s.ended)).toEqual(Array(MESSAGE_STREAMS_PER_MEMBER).fill(false));
    expect(a.runtime.sessions.streams.count(ann.id)).toBe(MESSAGE_STREAMS_PER_MEMBER);
    // The one that closed gets nothing more; the others get what follows.
    const bob = await member();
    await say(bob.token, ann.id, 'to the newest');
    await streams.at(-1)!.waitFor((e) => e.event === 'message');
    expect(privateTexts(streams[0]!)).toEqual([]);
  });

  it(`closes the oldest message stream of one address past ${MESSAGE_STREAMS_PER_ADDRESS} open`, async () => {
    const address = nextAddress();
    const perMember = MESSAGE_STREAMS_PER_MEMBER - 1;
    const members = await Promise.all(Array.from({ length: Math.ceil((MESSAGE_STREAMS_PER_ADDRESS + 1) / perMember) }, () => member()));
    const streams: SseClient[] = [];
    for (let i = 0; i <= MESSAGE_STREAMS_PER_ADDRESS; i++) streams.push(await stream(members[Math.floor(i / perMember)]!.token, address));
    await streams[0]!.waitForEnd(scaled(1000));
    expect(streams[0]!.events.at(-1)).toMatchObject({ event: 'end', data: { reason: 'limit' } });
    expect(streams.slice(1).filter((s) => s.ended)).toHaveLength(0);
    // Another address is not affected.
    const elsewhere = await stream(members[0]!.token);
    expect(elsewhere.ended).toBe(false);
    expect(streams[1]!.ended).toBe(false);
  });
});
