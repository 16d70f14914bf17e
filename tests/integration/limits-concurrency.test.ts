// Every "N per day / per hour / per minute" rule under parallel requests through the HTTP API:
// N+5 requests at once, exactly N pass and the rest are refused with the rule's message in each
// request's language (every other request asks in Chinese). One test per rule, on PGlite; the
// message center's first-day rule (and the one-code-a-minute rule) also on PostgreSQL + Redis
// with two instances answering together.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { and, eq, ne, sql } from 'drizzle-orm';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, type UserRow } from '../../src/lib/server/account/users';
import { adjustMoney } from '../../src/lib/server/account/ledger';
import { sendCode } from '../../src/lib/server/account/codes';
import { askCategory, askReply, askReport, attachment, invoice, messages, user, userSignIn } from '../../src/lib/server/db/schema';
import { installModule, isInstalled } from '../../src/lib/server/modules/installs';
import { createPost } from '../../src/lib/server/ask/posts';
import { createReply } from '../../src/lib/server/ask/replies';
import type { Runtime } from '../../src/lib/server/runtime';
import { createMemoryLimiter, createRedisLimiter, type RateLimiter } from '../../src/lib/server/rate-limit';
import { startInProcess, type InProcessServer } from '../helpers/in-process';
import { loginAs, solvedCaptcha } from '../helpers/members';
import { png } from '../helpers/files';
import { freshPostgres, postJson, startServer, type TestServer } from '../helpers/server';
import { scaled } from '../helpers/time-scale.mjs';

const DB = process.env.TEST_DATABASE_URL;
const REDIS = process.env.TEST_REDIS_URL;

type Lang = 'en' | 'zh-cn';
interface Reply { status: number; code: number; msg: string; lang: Lang }
/** The refusal in each language: the exact text, or a pattern when it carries a number of seconds. */
type Refusal = Record<Lang, string | RegExp>;

const langOf = (i: number): Lang => (i % 2 ? 'zh-cn' : 'en');
const RATE_LIMITED: Refusal = { en: /^Too many requests, please try again in \d+ seconds$/, 'zh-cn': /^请求过于频繁，请 \d+ 秒后再试$/ };

/** Sends `n` requests at once (request i in language langOf(i)) and gathers the envelopes. */
async function burst(n: number, send: (i: number, lang: Lang) => Promise<{ status: number; json<T>(): T }>): Promise<Reply[]> {
  return Promise.all(Array.from({ length: n }, async (_, i) => {
    const res = await send(i, langOf(i));
    const body = res.json<{ code: number; msg: string }>();
    return { status: res.status, code: body.code, msg: body.msg, lang: langOf(i) };
  }));
}

/** Exactly `limit` replies succeeded; every other one is the rule's refusal in its request's language. */
function expectSplit(replies: Reply[], limit: number, refusal: Refusal): void {
  const passed = replies.filter((r) => r.code === 1);
  const refused = replies.filter((r) => r.code !== 1);
  expect(passed, JSON.stringify(replies.map((r) => r.msg))).toHaveLength(limit);
  expect(refused).toHaveLength(replies.length - limit);
  for (const r of refused) {
    const want = refusal[r.lang];
    if (typeof want === 'string') expect(r.msg, r.lang).toBe(want);
    else expect(r.msg, r.lang).toMatch(want);
  }
}

interface Member { row: UserRow; token: string }
let seq = 0;
/** A member (a day old unless `fresh`), logged in through the API. */
async function member(srv: { url: string; runtime: Runtime }, prefix: string, opts: { fresh?: boolean; email?: string } = {}): Promise<Member> {
  const name = `${prefix}${++seq}`.slice(0, 15);
  const row = await createUser(srv.runtime.db, { username: name, password: 'limits123', email: opts.email ?? '' });
  if (!opts.fresh) await srv.runtime.db.update(user).set({ joinTime: sql`${user.joinTime} - 200000` }).where(eq(user.id, row.id));
  const { token } = await loginAs(srv.url, srv.runtime, name, 'limits123');
  return { row, token };
}
/** A member who never logs in (someone to write to). */
async function quiet(rt: Runtime, prefix: string): Promise<UserRow> {
  return createUser(rt.db, { username: `${prefix}${++seq}`.slice(0, 15), password: 'limits123' });
}
const headers = (m: Member | null, lang: Lang): Record<string, string> => ({ 'think-lang': lang, ...(m ? { 'ba-user-token': m.token } : {}) });

const FIRST_DAY: Refusal = { en: 'In their first day new members can start at most 3 conversations', 'zh-cn': '新会员注册第一天最多发起 3 个新对话' };
const CODE_TOO_OFTEN: Refusal = { en: /^Sent too often; please try again in \d+ seconds$/, 'zh-cn': /^发送过于频繁，请 \d+ 秒后再试$/ };

/** 8 first messages at once from a member who joined today, to 8 members, over `urls` in turn: 3 conversations. */
async function firstDayConversations(urls: string[], rt: Runtime, newbie: Member): Promise<void> {
  const others = await Promise.all(Array.from({ length: 8 }, () => quiet(rt, 'peer')));
  const replies = await burst(8, (i, lang) => postJson(urls[i % urls.length]!, '/api/interaction/sendMessage', { user_id: others[i]!.id, content: `hello ${i}` }, headers(newbie, lang)));
  expectSplit(replies, 3, FIRST_DAY);
  const started = await rt.db.select({ to: messages.recipientId }).from(messages).where(and(eq(messages.type, 'private'), eq(messages.senderId, newbie.row.id)));
  expect(new Set(started.map((m) => m.to)).size).toBe(3);
}

/** 6 code requests at once for one address (each with its own solved captcha), over `urls` in turn: one code. */
async function oneCodeAMinute(urls: string[], rt: Runtime, address: string, outbox: () => string[]): Promise<void> {
  const captchas: Awaited<ReturnType<typeof solvedCaptcha>>[] = [];
  for (let i = 0; i < 6; i++) captchas.push(await solvedCaptcha(urls[0]!, rt));
  const before = outbox().length;
  const replies = await burst(6, (i, lang) => postJson(urls[i % urls.length]!, '/api/ems/send', { email: address, event: 'user_retrieve_pwd', ...captchas[i]! }, { 'think-lang': lang }));
  expectSplit(replies, 1, CODE_TOO_OFTEN);
  expect(outbox().length - before).toBe(1);
}

describe('limits under parallel requests on PGlite', () => {
  let srv: InProcessServer;
  let rt: Runtime;
  let category = 0;
  const outbox = (): string[] => {
    try { return readdirSync(join(srv.dataDir, 'outbox')).map((f) => readFileSync(join(srv.dataDir, 'outbox', f), 'utf8')); } catch { return []; }
  };

  beforeAll(async () => {
    srv = await startInProcess();
    rt = srv.runtime;
    await rt.site.set('user_login_captcha', '0');
    if (!(await isInstalled(rt.db, 'editor'))) await installModule(rt.db, 'editor');
    const [row] = await rt.db.select({ id: askCategory.id }).from(askCategory).where(ne(askCategory.type, 'announcement')).limit(1);
    category = row!.id;
  }, scaled(120_000));
  afterAll(async () => { await srv?.stop(); });

  it('opens exactly 3 of 8 first conversations sent at once by a member who joined today', async () => {
    await firstDayConversations([srv.url], rt, await member(srv, 'newbie', { fresh: true }));
  });

  it('sends exactly 20 of 25 private messages sent at once within the hour', async () => {
    const sender = await member(srv, 'chatty');
    const to = await quiet(rt, 'ear');
    const replies = await burst(25, (i, lang) => postJson(srv.url, '/api/interaction/sendMessage', { user_id: to.id, content: `n${i}` }, headers(sender, lang)));
    expectSplit(replies, 20, {
      en: 'You can send at most 20 private messages an hour; please try again later', 'zh-cn': '每小时最多发送 20 条私信，请稍后再试',
    });
    expect(replies.filter((r) => r.code !== 1).every((r) => r.status === 429)).toBe(true);
  });

  it('publishes exactly 1 of 6 forum posts sent at once (one post per 15 seconds)', async () => {
    const author = await member(srv, 'poster');
    const replies = await burst(6, (i, lang) => postJson(srv.url, '/api/ask/post', { title: `Parallel post ${i}`, category_id: category, content: `body ${i}`, nonce: `parallel-post-${seq}-${i}` }, headers(author, lang)));
    expectSplit(replies, 1, RATE_LIMITED);
  });

  it('publishes exactly 1 of 6 replies sent at once (one reply per 5 seconds)', async () => {
    const asker = await quiet(rt, 'asker');
    const { id: postId } = await createPost(rt.db, asker.id, { title: 'A question to answer', category_id: category, content: 'question', tags: [] });
    const author = await member(srv, 'replier');
    const replies = await burst(6, (i, lang) => postJson(srv.url, '/api/ask/reply', { post_id: postId, content: `answer ${i}`, nonce: `parallel-reply-${seq}-${i}` }, headers(author, lang)));
    expectSplit(replies, 1, RATE_LIMITED);
    expect(await rt.db.select().from(askReply).where(eq(askReply.userId, author.row.id))).toHaveLength(1);
  });

  it('publishes exactly 1 of 6 comments sent at once (one comment per 5 seconds)', async () => {
    const asker = await quiet(rt, 'asker');
    const { id: postId } = await createPost(rt.db, asker.id, { title: 'A question to comment on', category_id: category, content: 'question', tags: [] });
    const { id: replyId } = await createReply(rt.db, asker.id, { post_id: postId, parent_id: 0, content: 'an answer' });
    const author = await member(srv, 'commenter');
    const replies = await burst(6, (i, lang) => postJson(srv.url, '/api/ask/reply', { post_id: postId, parent_id: replyId, content: `comment ${i}`, nonce: `parallel-comment-${seq}-${i}` }, headers(author, lang)));
    expectSplit(replies, 1, RATE_LIMITED);
  });

  it('files exactly 20 of 25 reports sent at once on 25 posts (20 reports a day)', async () => {
    const asker = await quiet(rt, 'asker');
    const posts: number[] = [];
    for (let i = 0; i < 25; i++) posts.push((await createPost(rt.db, asker.id, { title: `Reported post ${i}`, category_id: category, content: 'text', tags: [] })).id);
    const reporter = await member(srv, 'reporter');
    const replies = await burst(25, (i, lang) => postJson(srv.url, '/api/ask/report', { type: 'post', id: posts[i], reason: `spam ${i}` }, headers(reporter, lang)));
    expectSplit(replies, 20, RATE_LIMITED);
    expect(await rt.db.select().from(askReport).where(eq(askReport.userId, reporter.row.id))).toHaveLength(20);
  });

  it('files exactly 1 of 6 reports sent at once on the same post (one open report per target)', async () => {
    const asker = await quiet(rt, 'asker');
    const { id: postId } = await createPost(rt.db, asker.id, { title: 'Reported once', category_id: category, content: 'text', tags: [] });
    const reporter = await member(srv, 'reporter');
    const replies = await burst(6, (i, lang) => postJson(srv.url, '/api/ask/report', { type: 'post', id: postId, reason: `spam ${i}` }, headers(reporter, lang)));
    expectSplit(replies, 1, { en: 'You already reported this; the moderators will look at it soon', 'zh-cn': '你已经举报过了，版主会尽快处理' });
  });

  it('stores exactly 30 of 35 uploads sent at once (30 uploads a minute)', async () => {
    const uploader = await member(srv, 'uploader');
    const replies = await burst(35, async (i, lang) => {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(png(1, 1, i))], { type: 'image/png' }), `p${i}.png`);
      const res = await fetch(`${srv.url}/api/ajax/upload`, { method: 'POST', body: form, headers: headers(uploader, lang) });
      const text = await res.text();
      return { status: res.status, json: <T>() => JSON.parse(text) as T };
    });
    expectSplit(replies, 30, RATE_LIMITED);
    expect(await rt.db.select().from(attachment).where(eq(attachment.userId, uploader.row.id))).toHaveLength(30);
  });

  it('grants exactly 5 of 10 invoice requests of ¥20 sent at once against ¥100 paid', async () => {
    const payer = await member(srv, 'payer');
    await adjustMoney(rt.db, payer.row.id, 10_000, 'top-up');
    await adjustMoney(rt.db, payer.row.id, -10_000, 'bought modules');
    const replies = await burst(10, (_, lang) => postJson(srv.url, '/api/account/invoice', { amount: '20', title: 'Acme Ltd', tax_id: '91310000MA1', email: 'payer@example.com' }, headers(payer, lang)));
    expectSplit(replies, 5, { en: /^The amount exceeds what can be invoiced: at most /, 'zh-cn': /^可开票金额不足：最多 / });
    expect(await rt.db.select().from(invoice).where(eq(invoice.userId, payer.row.id))).toHaveLength(5);
  });

  it('files exactly 5 of 10 developer applications sent at once (5 an hour)', async () => {
    const applicant = await member(srv, 'applicant');
    const application = (i: number) => ({
      real_name: '李开发', id_number: `11010819900307123${checkChar('11010819900307123')}`, mobile: '13800138000', email: 'dev@example.com',
      province: '11', city: '1101', intro: `我开发 Atrium 的编辑器插件和主题，第 ${i} 次提交申请。`,
    });
    const replies = await burst(10, (i, lang) => postJson(srv.url, '/api/developer/verif', application(i), headers(applicant, lang)));
    expectSplit(replies, 5, RATE_LIMITED);
  });

  it('checks in exactly once of 6 check-ins sent at once, and pays the points once', async () => {
    const early = await member(srv, 'early');
    const replies = await burst(6, (_, lang) => postJson(srv.url, '/api/account/signIn', {}, headers(early, lang)));
    const added = replies.filter((r) => /^Checked in|^签到成功/.test(r.msg));
    expect(added).toHaveLength(1);
    for (const r of replies.filter((x) => !added.includes(x))) expect(r.msg).toBe(r.lang === 'en' ? 'You already checked in today' : '今天已经签到过了');
    expect(await rt.db.select().from(userSignIn).where(eq(userSignIn.userId, early.row.id))).toHaveLength(1);
    const [row] = await rt.db.select({ score: user.score }).from(user).where(eq(user.id, early.row.id));
    expect(row!.score).toBe(early.row.score + 10);
  });

  it('sends exactly 1 of 6 codes requested at once for one address (one code a minute)', async () => {
    await member(srv, 'forgetful', { email: 'forgetful@example.test' });
    await oneCodeAMinute([srv.url], rt, 'forgetful@example.test', outbox);
  });

  it('signs up exactly 10 of 15 members at once from one address (10 sign-ups an hour)', async () => {
    const codes: string[] = [];
    for (let i = 0; i < 15; i++) {
      const to = `joiner${i}@example.test`;
      // Codes sent as from other addresses: only the sign-ups share one.
      await sendCode(rt, { channel: 'email', to, event: 'user_register', ip: `192.0.2.${i + 1}`, locale: 'en', userId: null });
      const mail = outbox().find((m) => m.includes(to))!;
      codes.push(/\b(\d{6})\b/.exec(mail)![1]!);
    }
    const replies = await burst(15, (i, lang) => postJson(srv.url, '/api/user/checkIn', {
      tab: 'register', username: `joiner${i}`, password: 'limits123', registerType: 'email', email: `joiner${i}@example.test`, captcha: codes[i],
    }, { 'think-lang': lang }));
    expectSplit(replies, 10, { en: /^Too many sign-ups from your network; please try again in \d+ minutes$/, 'zh-cn': /^该网络注册次数过多，请 \d+ 分钟后再试$/ });
    const [joined] = await rt.db.select({ n: sql<number>`count(*)::int` }).from(user).where(sql`${user.username} like 'joiner%'`);
    expect(joined!.n).toBe(10);
  });
});

/** The check character of a mainland ID number (GB 11643-1999). */
function checkChar(first17: string): string {
  const weights = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
  const sum = [...first17].reduce((acc, d, i) => acc + Number(d) * weights[i]!, 0);
  return '10X98765432'[sum % 11]!;
}

describe.skipIf(!DB || !REDIS)('limits under parallel requests on PostgreSQL + Redis, two instances', () => {
  let a: InProcessServer;
  let b: TestServer;

  beforeAll(async () => {
    const env = { DATABASE_URL: await freshPostgres(), REDIS_URL: REDIS!, REDIS_PREFIX: `lim${Date.now().toString(36)}:` };
    a = await startInProcess(env);
    await a.runtime.site.set('user_login_captcha', '0');
    b = await startServer({ env, dataDir: a.dataDir });
  }, scaled(120_000));
  afterAll(async () => {
    await b?.stop();
    await a?.stop();
  });

  it('opens exactly 3 of 8 first conversations sent at once over both instances', async () => {
    await firstDayConversations([a.url, b.url], a.runtime, await member(a, 'newbie', { fresh: true }));
  });

  it('sends exactly 1 of 6 codes requested at once over both instances for one address', async () => {
    await member(a, 'forgetful', { email: 'forgetful@example.test' });
    const outbox = (): string[] => {
      try { return readdirSync(join(a.dataDir, 'outbox')).filter((f) => readFileSync(join(a.dataDir, 'outbox', f), 'utf8').includes('forgetful@example.test')); } catch { return []; }
    };
    await oneCodeAMinute([a.url, b.url], a.runtime, 'forgetful@example.test', outbox);
  });
});

describe('byte budgets in the rate limiter (the daily upload quota holds uploads started today there)', () => {
  async function countsBytes(limiter: RateLimiter): Promise<void> {
    const key = `bytes-${Date.now().toString(36)}`;
    const results = await Promise.all(Array.from({ length: 8 }, () => limiter.hit(key, 6000, 60, 2000)));
    expect(results.filter((r) => r.allowed)).toHaveLength(3);
    expect(await limiter.count(key)).toBe(16_000);
  }
  it('adds amounts in memory', async () => {
    const limiter = createMemoryLimiter();
    try { await countsBytes(limiter); } finally { await limiter.close(); }
  });
  it.skipIf(!REDIS)('adds amounts in Redis', async () => {
    const redis = new Redis(REDIS!);
    try { await countsBytes(createRedisLimiter(redis, `bb${Date.now().toString(36)}:`)); } finally { redis.disconnect(); }
  });
});
