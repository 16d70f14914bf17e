// The message center through its HTTP API, on PGlite and (when TEST_DATABASE_URL and
// TEST_REDIS_URL are set) on PostgreSQL + Redis: ownership on every call, blocking, limits,
// grouped likes, the live stream with Last-Event-ID replay, delivery across two instances, the
// e-mail job (exactly once with two instances running it at once), unsubscribe and retention.
import type { AddressInfo } from 'node:net';
import { and, eq, sql } from 'drizzle-orm';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, type UserRow } from '../../src/lib/server/account/users';
import { askCategory, messages, user } from '../../src/lib/server/db/schema';
import { notify } from '../../src/lib/server/messages/notify';
import { createPost } from '../../src/lib/server/ask/posts';
import { vote } from '../../src/lib/server/ask/interactions';
import { runMessageJob, unsubscribeSignature, mailKinds } from '../../src/lib/server/messages/mail-job';
import { countUnread } from '../../src/lib/server/messages/inbox';
import { startInProcess, type InProcessServer } from '../helpers/in-process';
import { loginAs } from '../helpers/members';
import { freshPostgres, postJson, raw } from '../helpers/server';
import { openSse, type SseClient } from '../helpers/sse';
import { scaled } from '../helpers/time-scale.mjs';

type Env<T = Record<string, unknown>> = { code: number; msg: string; data: T };
const DB = process.env.TEST_DATABASE_URL;
const REDIS = process.env.TEST_REDIS_URL;
const MODES = [{ name: 'PGlite', pg: false }, ...(DB && REDIS ? [{ name: 'PostgreSQL + Redis', pg: true }] : [])];

/** Mails received by the loopback SMTP server, decoded. */
const inbox: { to: string; text: string }[] = [];
let smtp: SMTPServer;
let smtpPort = 0;

function decode(message: string): string {
  const [head = '', ...rest] = message.split(/\r?\n\r?\n/);
  const body = rest.join('\n\n');
  if (/content-transfer-encoding:\s*base64/i.test(head)) return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (/quoted-printable/i.test(head)) return Buffer.from(body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))), 'latin1').toString('utf8');
  return body;
}

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true, disabledCommands: ['STARTTLS', 'AUTH'], logger: false,
    onData(stream, session, callback) {
      let data = '';
      stream.on('data', (c: Buffer) => { data += c.toString(); });
      stream.on('end', () => { inbox.push({ to: session.envelope.rcptTo.map((r) => r.address).join(','), text: decode(data) }); callback(); });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  smtpPort = (smtp.server.address() as AddressInfo).port;
});
afterAll(async () => { await new Promise<void>((resolve) => smtp?.close(() => resolve())); });

describe.each(MODES)('message center on $name', ({ pg }) => {
  let srv: InProcessServer;
  let second: InProcessServer | null = null;
  const env: Record<string, string> = {};
  const people: Record<string, { row: UserRow; token: string; cookie: string }> = {};
  const streams: SseClient[] = [];

  const as = (name: string): Record<string, string> => ({ 'ba-user-token': people[name]!.token, 'think-lang': 'en' });
  const get = async <T = Record<string, unknown>>(name: string | null, path: string, base = srv.url): Promise<Env<T>> =>
    (await raw(base, path, { headers: name ? as(name) : { 'think-lang': 'en' } })).json<Env<T>>();
  const post = async <T = Record<string, unknown>>(name: string, path: string, body: unknown, base = srv.url): Promise<Env<T>> =>
    (await postJson(base, path, body, as(name))).json<Env<T>>();
  const id = (name: string): number => people[name]!.row.id;
  const tell = (to: string, from: string, title = 'A post', type: 'ask_reply' | 'ask_mention' | 'market_sale' = 'ask_reply') =>
    notify(srv.runtime.db, [{ type, senderId: id(from), recipientId: id(to), title, summary: `from ${from}`, link: '/ask/info/1#reply-2' }]);
  const stream = async (name: string, extra: Record<string, string> = {}, base = srv.url): Promise<SseClient> => {
    const s = await openSse(base, '/api/interaction/stream', { ...as(name), ...extra });
    streams.push(s);
    return s;
  };

  async function member(name: string, opts: { fresh?: boolean; email?: string } = {}): Promise<void> {
    const row = await createUser(srv.runtime.db, { username: name, password: 'secret123', email: opts.email ?? '' });
    if (!opts.fresh) await srv.runtime.db.execute(sql`update "user" set join_time = join_time - 200000 where id = ${row.id}`);
    const session = await loginAs(srv.url, srv.runtime, name, 'secret123');
    people[name] = { row: { ...row, joinTime: opts.fresh ? row.joinTime : row.joinTime - 200000 }, token: session.token, cookie: session.cookie };
  }

  beforeAll(async () => {
    Object.assign(env, { SMTP_HOST: '127.0.0.1', SMTP_PORT: String(smtpPort) });
    if (pg) Object.assign(env, { DATABASE_URL: await freshPostgres(), REDIS_URL: REDIS!, REDIS_PREFIX: `msg${Date.now().toString(36)}:` });
    srv = await startInProcess(env);
    for (const name of ['ann', 'bob', 'cat', 'dan']) await member(name, { email: `${name}@example.test` });
    await member('newbie', { fresh: true });
  }, scaled(120_000));
  afterAll(async () => {
    for (const s of streams) s.close();
    await second?.stop();
    await srv?.stop();
  });

  it('counts unread messages and lists them by tab with the sender and a translated title', async () => {
    await tell('ann', 'bob');
    await tell('ann', 'cat', 'Mentioned', 'ask_mention');
    await notify(srv.runtime.db, [{ type: 'market_developer', senderId: 0, recipientId: id('ann'), title: 'developer.notice.approved', link: '/user/developer/verif' }]);
    const count = await get<{ count: number; pollingInterval: number }>('ann', '/api/interaction/count');
    expect(count.code).toBe(1);
    expect(count.data.count).toBe(3);
    expect(count.data.pollingInterval).toBe(15);
    expect((await get<{ pollingInterval: number }>('ann', '/api/interaction/count?push=1')).data.pollingInterval).toBe(60);
    const all = await get<{ list: { title: string; action: string; sender: { nickname: string } | null; tab: string; link: string; read: boolean }[]; total: number; unread: Record<string, number> }>('ann', '/api/interaction/messageList');
    expect(all.data.total).toBe(3);
    expect(all.data.unread).toMatchObject({ all: 3, reply: 1, mention: 1, system: 1, like: 0 });
    expect(all.data.list[0]).toMatchObject({ title: 'Your developer verification was approved', sender: null, tab: 'system' });
    expect(all.data.list[2]).toMatchObject({ action: 'replied to your post', sender: { nickname: 'bob' }, link: '/ask/info/1#reply-2', read: false });
    const mentions = await get<{ list: { tab: string }[] }>('ann', '/api/interaction/messageList?tab=mention');
    expect(mentions.data.list.map((m) => m.tab)).toEqual(['mention']);
    const zh = (await raw(srv.url, '/api/interaction/messageList?tab=system', { headers: { ...as('ann'), 'think-lang': 'zh-cn' } })).json<Env<{ list: { title: string }[] }>>();
    expect(zh.data.list[0]!.title).toBe('你的开发者认证已通过');
  });

  it('needs a login for every call but the user card, and checks its input', async () => {
    for (const path of ['/api/interaction/count', '/api/interaction/messageList', '/api/interaction/dialog?user_id=1', '/api/interaction/loadMoreUserRecent']) {
      expect((await get(null, path)).code, path).toBe(303);
    }
    expect((await get(null, `/api/interaction/userCard?user_id=${id('ann')}`)).code).toBe(1);
    expect((await get('ann', '/api/interaction/messageList?tab=nope')).code).toBe(0);
    // The count's fast path answers only the plain call; anything else gets the route's checks.
    expect((await get('ann', '/api/interaction/count?bogus=1')).code).toBe(0);
    expect((await get('ann', '/api/interaction/count?push=maybe')).code).toBe(0);
    expect((await get('ann', '/api/interaction/dialog?user_id=99999999999')).code).toBe(0);
    expect((await post('ann', '/api/interaction/markRead', { ids: [] })).code).toBe(0);
    const sse = await raw(srv.url, '/api/interaction/stream');
    expect(sse.json<Env>().code).toBe(303);
  });

  it('never lets another member read, mark or delete a message or a conversation that is not theirs', async () => {
    const [annMsg] = await srv.runtime.db.select().from(messages).where(eq(messages.recipientId, id('ann'))).limit(1);
    const before = await countUnread(srv.runtime.db, id('ann'));
    // Mark read: someone else's id, alone or among the caller's own, is refused as a whole.
    await tell('bob', 'cat');
    const [bobMsg] = await srv.runtime.db.select().from(messages).where(eq(messages.recipientId, id('bob'))).limit(1);
    const refused = await post('bob', '/api/interaction/markRead', { ids: [annMsg!.id] });
    expect(refused).toMatchObject({ code: 0, msg: 'Message not found' });
    expect((await post('bob', '/api/interaction/markRead', { ids: [annMsg!.id, bobMsg!.id] })).msg).toBe('Message not found');
    const missing = await post('bob', '/api/interaction/markRead', { ids: [2_000_000_000] });
    expect(missing.msg).toBe(refused.msg);
    expect(await countUnread(srv.runtime.db, id('ann'))).toBe(before);
    // Delete: the same.
    expect((await post('bob', '/api/interaction/delMessage', { ids: [annMsg!.id] })).msg).toBe('Message not found');
    expect((await srv.runtime.db.select().from(messages).where(eq(messages.id, annMsg!.id))).length).toBe(1);
    // Lists and conversations show only the caller's own.
    const bobList = await get<{ list: { id: number }[] }>('bob', '/api/interaction/messageList');
    expect(bobList.data.list.map((m) => m.id)).not.toContain(annMsg!.id);
    expect((await post('ann', '/api/interaction/sendMessage', { user_id: id('cat'), content: 'secret between ann and cat' })).code).toBe(1);
    const bobDialog = await get<{ list: { content: string }[] }>('bob', `/api/interaction/dialog?user_id=${id('cat')}`);
    expect(bobDialog.data.list.map((m) => m.content)).not.toContain('secret between ann and cat');
    const bobRecent = await get<{ list: { user: { id: number } }[] }>('bob', '/api/interaction/loadMoreUserRecent');
    expect(bobRecent.data.list.map((r) => r.user.id)).not.toContain(id('ann'));
    // The owner can.
    expect((await post('bob', '/api/interaction/markRead', { ids: [bobMsg!.id] })).code).toBe(1);
  });

  it('marks read by id and all of a tab, deletes, and the cached count follows at once', async () => {
    const start = (await get<{ count: number }>('cat', '/api/interaction/count')).data.count;
    await tell('cat', 'dan', 'one');
    await tell('cat', 'dan', 'two', 'ask_mention');
    await tell('cat', 'ann', 'three', 'market_sale');
    expect((await get<{ count: number }>('cat', '/api/interaction/count')).data.count).toBe(start + 3);
    const list = await get<{ list: { id: number; tab: string }[] }>('cat', '/api/interaction/messageList?unread=1');
    const sale = list.data.list.find((m) => m.tab === 'market')!;
    expect((await post<{ ids: number[] }>('cat', '/api/interaction/markRead', { ids: [sale.id] })).data.ids).toEqual([sale.id]);
    expect((await get<{ count: number }>('cat', '/api/interaction/count')).data.count).toBe(start + 2);
    expect((await post('cat', '/api/interaction/markRead', { all: true, tab: 'mention' })).code).toBe(1);
    expect((await get<{ count: number }>('cat', '/api/interaction/count')).data.count).toBe(start + 1);
    const reply = list.data.list.find((m) => m.tab === 'reply')!;
    expect((await post('cat', '/api/interaction/delMessage', { ids: [reply.id] })).code).toBe(1);
    expect((await get<{ count: number }>('cat', '/api/interaction/count')).data.count).toBe(start);
    expect((await post('cat', '/api/interaction/markRead', { all: true })).code).toBe(1);
    expect((await get<{ count: number }>('cat', '/api/interaction/count')).data.count).toBe(0);
  });

  it('holds private conversations: both sides, newest first, older pages, reading marks them read', async () => {
    for (let i = 1; i <= 33; i++) {
      const from = i % 2 ? 'dan' : 'bob';
      const to = from === 'dan' ? 'bob' : 'dan';
      expect((await post(from, '/api/interaction/sendMessage', { user_id: id(to), content: `line ${i} <b>x</b>` })).code).toBe(1);
    }
    expect((await get<{ count: number }>('bob', '/api/interaction/count')).data.count).toBeGreaterThanOrEqual(17);
    const page = await get<{ list: { id: number; content: string }[]; more: boolean; partner: { nickname: string } }>('bob', `/api/interaction/dialog?user_id=${id('dan')}`);
    expect(page.data.partner.nickname).toBe('dan');
    expect(page.data.list).toHaveLength(30);
    expect(page.data.list[0]!.content).toBe('line 33 <b>x</b>');
    expect(page.data.more).toBe(true);
    const older = await get<{ list: { content: string }[]; more: boolean }>('bob', `/api/interaction/dialog?user_id=${id('dan')}&before=${page.data.list.at(-1)!.id}`);
    expect(older.data.list.map((m) => m.content)).toEqual(['line 3 <b>x</b>', 'line 2 <b>x</b>', 'line 1 <b>x</b>']);
    expect(older.data.more).toBe(false);
    const unreadFromDan = await srv.runtime.db.select().from(messages).where(and(eq(messages.senderId, id('dan')), eq(messages.recipientId, id('bob')), eq(messages.readTime, 0)));
    expect(unreadFromDan).toHaveLength(0);
    const recent = await get<{ list: { user: { id: number; nickname: string }; last: { content: string }; unread: number }[] }>('dan', '/api/interaction/loadMoreUserRecent');
    expect(recent.data.list[0]).toMatchObject({ user: { id: id('bob'), nickname: 'bob' }, last: { content: 'line 33 <b>x</b>' } });
    expect(recent.data.list[0]!.unread).toBe(16);
    // A conversation is kept: its messages cannot be deleted from the inbox.
    const [pm] = await srv.runtime.db.select().from(messages).where(and(eq(messages.type, 'private'), eq(messages.recipientId, id('bob')))).limit(1);
    expect((await post('bob', '/api/interaction/delMessage', { ids: [pm!.id] })).code).toBe(0);
  });

  it('refuses private messages to yourself, to unknown or disabled members, and bad content', async () => {
    expect((await post('ann', '/api/interaction/sendMessage', { user_id: id('ann'), content: 'me' })).msg).toBe('You cannot write to or block yourself');
    expect((await post('ann', '/api/interaction/sendMessage', { user_id: 2_000_000_000, content: 'hi' })).msg).toBe('This member does not exist or is disabled');
    const ghost = await createUser(srv.runtime.db, { username: 'ghost', password: 'secret123' });
    await srv.runtime.db.update(user).set({ status: 'disable' }).where(eq(user.id, ghost.id));
    expect((await post('ann', '/api/interaction/sendMessage', { user_id: ghost.id, content: 'hi' })).msg).toBe('This member does not exist or is disabled');
    const empty = await post<{ fields: Record<string, string> }>('ann', '/api/interaction/sendMessage', { user_id: id('bob'), content: '   ' });
    expect(empty.data.fields.content).toBe('Please write a message');
    expect((await post<{ fields: Record<string, string> }>('ann', '/api/interaction/sendMessage', { user_id: id('bob'), content: 'x'.repeat(2001) })).data.fields.content).toBe('A private message has at most 2,000 characters');
    expect((await post('ann', '/api/interaction/sendMessage', { user_id: id('bob'), content: 'x'.repeat(2000) })).code).toBe(1);
    expect((await post<{ fields: Record<string, string> }>('ann', '/api/interaction/sendMessage', { user_id: id('bob'), content: 'bell\u0007' })).data.fields.content).toBe('Contains control characters (such as NUL) that cannot be saved; remove them and try again');
  });

  it('limits new members to 3 new conversations on their first day and everyone to 20 messages an hour', async () => {
    for (const to of ['ann', 'bob', 'cat']) expect((await post('newbie', '/api/interaction/sendMessage', { user_id: id(to), content: 'hello' })).code).toBe(1);
    const fourth = await post('newbie', '/api/interaction/sendMessage', { user_id: id('dan'), content: 'hello' });
    expect(fourth.msg).toBe('In their first day new members can start at most 3 conversations');
    // Writing on in a started conversation is fine.
    expect((await post('newbie', '/api/interaction/sendMessage', { user_id: id('ann'), content: 'again' })).code).toBe(1);
    let last: Env = { code: 1, msg: '', data: {} };
    for (let i = 0; i < 20 && last.code === 1; i++) last = await post('newbie', '/api/interaction/sendMessage', { user_id: id('bob'), content: `n${i}` });
    expect(last.msg).toBe('You can send at most 20 private messages an hour; please try again later');
  });

  it('stops a blocked member\'s private messages, mentions and replies, and shows it on the card', async () => {
    expect((await post('dan', '/api/interaction/block', { user_id: id('cat') })).code).toBe(1);
    expect((await post('cat', '/api/interaction/sendMessage', { user_id: id('dan'), content: 'hi' })).msg).toBe('This member does not accept your messages');
    const before = await countUnread(srv.runtime.db, id('dan'));
    await tell('dan', 'cat', 'mention', 'ask_mention');
    await tell('dan', 'cat', 'reply');
    expect(await countUnread(srv.runtime.db, id('dan'))).toBe(before);
    const card = await get<{ can_message: boolean; blocked: boolean }>('cat', `/api/interaction/userCard?user_id=${id('dan')}`);
    expect(card.data.can_message).toBe(false);
    expect((await get<{ blocked: boolean }>('dan', `/api/interaction/userCard?user_id=${id('cat')}`)).data.blocked).toBe(true);
    expect((await post('dan', '/api/interaction/block', { user_id: id('cat'), block: false })).code).toBe(1);
    await tell('dan', 'cat', 'after unblocking', 'ask_mention');
    expect(await countUnread(srv.runtime.db, id('dan'))).toBe(before + 1);
  });

  it('shows the user card to visitors, with counts and whether the viewer may write', async () => {
    const visitor = await get<{ nickname: string; can_message: boolean; posts: number; answers: number; join_time: number; join_date: string }>(null, `/api/interaction/userCard?user_id=${id('bob')}`);
    expect(visitor.data).toMatchObject({ nickname: 'bob', can_message: false, posts: 0, answers: 0 });
    // The join day on the site's clock (Asia/Shanghai by default), as the pages show it.
    expect(visitor.data.join_date).toBe(new Date((visitor.data.join_time + 8 * 3600) * 1000).toISOString().slice(0, 10));
    expect((await get<{ can_message: boolean }>('ann', `/api/interaction/userCard?user_id=${id('bob')}`)).data.can_message).toBe(true);
    expect((await get<{ can_message: boolean }>('bob', `/api/interaction/userCard?user_id=${id('bob')}`)).data.can_message).toBe(false);
    expect((await get(null, '/api/interaction/userCard?user_id=2000000000')).code).toBe(0);
  });

  it('groups likes into one message per target and lets an up-vote withdrawn within a minute leave nothing', async () => {
    const [category] = await srv.runtime.db.select().from(askCategory).where(eq(askCategory.slug, 'discussion'));
    const { id: postId } = await createPost(srv.runtime.db, id('ann'), { title: 'Liked post', category_id: category!.id, content: 'body', tags: [] });
    const likes = () => srv.runtime.db.select().from(messages).where(and(eq(messages.recipientId, id('ann')), eq(messages.type, 'ask_vote')));
    await vote(srv.runtime.db, id('bob'), 'post', postId, 1);
    await vote(srv.runtime.db, id('bob'), 'post', postId, 1);
    expect(await likes()).toHaveLength(0);
    for (const who of ['bob', 'cat', 'dan']) await vote(srv.runtime.db, id(who), 'post', postId, 1);
    const rows = await likes();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.groupCount).toBe(3);
    const list = await get<{ list: { action: string; title: string }[] }>('ann', '/api/interaction/messageList?tab=like');
    expect(list.data.list[0]).toMatchObject({ action: 'and 2 others liked your post', title: 'Liked post', sender: { nickname: 'dan' } });
    await vote(srv.runtime.db, id('dan'), 'post', postId, 1);
    expect((await likes())[0]!.groupCount).toBe(2);
    // An older vote taken back leaves the like in place.
    await srv.runtime.db.execute(sql`update ask_vote set create_time = create_time - 120 where user_id = ${id('cat')}`);
    await vote(srv.runtime.db, id('cat'), 'post', postId, 1);
    expect((await likes())[0]!.groupCount).toBe(2);
    // Once read, the next like starts a new message.
    await post('ann', '/api/interaction/markRead', { all: true, tab: 'like' });
    await vote(srv.runtime.db, id('dan'), 'post', postId, 1);
    expect(await likes()).toHaveLength(2);
  });

  it('streams the count on connect, then every new message, read and delete, with ids to resume from', async () => {
    const s = await stream('bob');
    expect(s.status).toBe(200);
    expect(s.headers['content-type']).toContain('text/event-stream');
    expect(s.headers['x-accel-buffering']).toBe('no');
    const first = await s.waitFor((e) => e.event === 'count');
    const start = Number(first.data.count);
    const sent = Date.now();
    expect((await post('ann', '/api/interaction/sendMessage', { user_id: id('bob'), content: 'live hello' })).code).toBe(1);
    const live = await s.waitFor((e) => e.event === 'message');
    expect(Date.now() - sent).toBeLessThan(scaled(1000));
    expect(live.data).toMatchObject({ count: start + 1, message: { content: 'live hello', sender_id: id('ann') } });
    expect(Number(live.id)).toBeGreaterThan(Number(first.id));
    const msgId = (live.data.message as { id: number }).id;
    await post('bob', '/api/interaction/markRead', { ids: [msgId] });
    const read = await s.waitFor((e) => e.event === 'read');
    expect(read.data).toMatchObject({ ids: [msgId], count: start });
    s.close();
    // Missed while away: replayed after Last-Event-ID, then the count.
    await tell('bob', 'cat', 'while away');
    await post('ann', '/api/interaction/sendMessage', { user_id: id('bob'), content: 'while away too' });
    const again = await stream('bob', { 'last-event-id': read.id });
    const count = await again.waitFor((e) => e.event === 'count');
    const replayed = again.events.filter((e) => e.event === 'message');
    expect(replayed.map((e) => (e.data.message as { summary: string }).summary)).toEqual(['from cat', 'while away too']);
    expect(count.data.count).toBe(start + 2);
    expect(Number(count.id)).toBe(Number(replayed.at(-1)!.id));
    // The sender's other tabs see what they sent.
    const annStream = await stream('ann');
    await annStream.waitFor((e) => e.event === 'count');
    await post('ann', '/api/interaction/sendMessage', { user_id: id('bob'), content: 'to all my tabs' });
    expect((await annStream.waitFor((e) => e.event === 'sent')).data.message).toMatchObject({ content: 'to all my tabs' });
  });

  it.skipIf(pg)('counts opening a stream against the API rate limit', async () => {
    const limited = await startInProcess({ API_RATE_LIMIT: '4' });
    try {
      await createUser(limited.runtime.db, { username: 'limited', password: 'secret123' });
      // The captcha and the login are the first two calls of the minute.
      const session = await loginAs(limited.url, limited.runtime, 'limited', 'secret123');
      const headers = { 'ba-user-token': session.token, 'think-lang': 'en' };
      const first = await openSse(limited.url, '/api/interaction/stream', headers);
      const second = await openSse(limited.url, '/api/interaction/stream', headers);
      expect([first.status, second.status]).toEqual([200, 200]);
      first.close();
      second.close();
      const third = await raw(limited.url, '/api/interaction/stream', { headers });
      expect(third.status).toBe(429);
      expect(third.json<Env>().msg).toMatch(/^Too many requests/);
    } finally {
      await limited.stop();
    }
  });

  it.skipIf(!pg)('delivers a message written on one instance to a stream held by another', async () => {
    second = await startInProcess(env);
    const s = await stream('cat', {}, second.url);
    await s.waitFor((e) => e.event === 'count');
    const sent = Date.now();
    expect((await post('ann', '/api/interaction/sendMessage', { user_id: id('cat'), content: 'across instances' })).code).toBe(1);
    const got = await s.waitFor((e) => e.event === 'message');
    expect(Date.now() - sent).toBeLessThan(scaled(1000));
    expect(got.data.message).toMatchObject({ content: 'across instances' });
    // The other instance's cached count was dropped too.
    const on2 = await get<{ count: number }>('cat', '/api/interaction/count', second.url);
    await post('cat', '/api/interaction/markRead', { all: true });
    expect((await get<{ count: number }>('cat', '/api/interaction/count', second.url)).data.count).toBe(0);
    expect(on2.data.count).toBeGreaterThan(0);
  });

  it('mails unread messages once after the delay, grouped per member, with unsubscribe links, even with two instances at once', async () => {
    await srv.runtime.site.set('message_mail_delay', '0');
    await srv.runtime.db.update(messages).set({ mailTime: 1 });
    inbox.length = 0;
    await tell('ann', 'bob', 'Mail me');
    await tell('ann', 'cat', 'Mail me too');
    await tell('ann', 'cat', 'Not by mail', 'ask_mention');
    await post('bob', '/api/interaction/sendMessage', { user_id: id('dan'), content: 'a private line' });
    const other = pg ? (second ?? await startInProcess(env)) : srv;
    if (pg) { second = other; await other.runtime.site.set('message_mail_delay', '0'); }
    const results = await Promise.all([runMessageJob(srv.runtime), runMessageJob(other.runtime), runMessageJob(srv.runtime)]);
    expect(results.reduce((n, r) => n + r.mails, 0)).toBe(2);
    expect(inbox.map((m) => m.to).sort()).toEqual(['ann@example.test', 'dan@example.test']);
    const annMail = inbox.find((m) => m.to === 'ann@example.test')!.text;
    expect(annMail).toContain('Mail me');
    expect(annMail).toContain('Mail me too');
    expect(annMail).not.toContain('Not by mail');
    expect(annMail).toContain('/ask/info/1#reply-2');
    expect(inbox.find((m) => m.to === 'dan@example.test')!.text).toContain('a private line');
    // Nothing is mailed twice.
    await runMessageJob(srv.runtime);
    expect(inbox).toHaveLength(2);
    // The one-click link (the zh-cn mail by default) takes the kind out of the member's choice, without a login.
    const link = /(\/messages\/unsubscribe\?u=\d+&k=reply&s=[\w-]+)/.exec(annMail.replace(/&amp;/g, '&'))![1]!;
    expect(await mailKinds(srv.runtime.db, id('ann'))).toContain('reply');
    const page = await raw(srv.url, link, { headers: { cookie: 'ba-lang=en' } });
    expect(page.status).toBe(200);
    expect(page.text).toContain('Unsubscribed');
    expect(await mailKinds(srv.runtime.db, id('ann'))).not.toContain('reply');
    const forged = await raw(srv.url, link.replace(/s=[\w-]+/, 's=forged'), { headers: { cookie: 'ba-lang=en' } });
    expect(forged.status).toBe(400);
    expect(unsubscribeSignature(srv.runtime.tokenSecret, id('ann'), 'reply')).not.toBe(unsubscribeSignature(srv.runtime.tokenSecret, id('bob'), 'reply'));
    // Preferences through the API.
    expect((await post('bob', '/api/interaction/mailPref', { kinds: ['mention'] })).code).toBe(1);
    expect((await get<{ kinds: string[] }>('bob', '/api/interaction/mailPref')).data.kinds).toEqual(['mention']);
    expect((await post('bob', '/api/interaction/mailPref', { kinds: ['bogus'] })).code).toBe(0);
  });

  it('deletes read messages past the retention period and keeps private conversations', async () => {
    const old = Math.floor(Date.now() / 1000) - 200 * 86_400;
    await notify(srv.runtime.db, [{ type: 'ask_reply', senderId: id('cat'), recipientId: id('dan'), title: 'Old and read', link: '/ask/info/1' }]);
    await srv.runtime.db.update(messages).set({ readTime: old }).where(eq(messages.title, 'Old and read'));
    await srv.runtime.db.update(messages).set({ readTime: old }).where(eq(messages.type, 'private'));
    const privateBefore = (await srv.runtime.db.select().from(messages).where(eq(messages.type, 'private'))).length;
    const result = await runMessageJob(srv.runtime);
    expect(result.deleted).toBeGreaterThanOrEqual(1);
    expect(await srv.runtime.db.select().from(messages).where(eq(messages.title, 'Old and read'))).toHaveLength(0);
    expect((await srv.runtime.db.select().from(messages).where(eq(messages.type, 'private'))).length).toBe(privateBefore);
  });
});
