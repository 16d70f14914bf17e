// Points and balance memos in the reader's language everywhere (issue 28, item 9): the member API's
// `memo` is translated, with the message key (`memo_key`) and the stored text (`memo_raw`) beside
// it; the console's member page shows the same words; operators' own memos stay as written.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInProcess, type InProcessServer } from '../helpers/in-process';
import { postJson, raw } from '../helpers/server';
import { createUser } from '../../src/lib/server/account/users';
import { adjustMoney, adjustScore } from '../../src/lib/server/account/ledger';
import { signIn } from '../../src/lib/server/account/sign-in';
import { scaled } from '../helpers/time-scale.mjs';

type Row = { memo: string; memo_key: string; memo_raw: string };
type Env<T> = { code: number; data: T };

const PASSWORD = 'secret123';
let srv: InProcessServer;
let memberId = 0;
const cookies: Record<string, string> = {};

async function login(username: string): Promise<string> {
  const res = await postJson(srv.url, '/api/user/checkIn', { tab: 'login', username, password: PASSWORD });
  expect(res.json<Env<unknown>>().code, res.text).toBe(1);
  return ([] as string[]).concat(res.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]).join('; ');
}
const list = async (path: string, lang: string): Promise<Row[]> =>
  (await raw(srv.url, path, { headers: { cookie: cookies.member!, 'think-lang': lang } })).json<Env<{ list: Row[] }>>().data.list;

beforeAll(async () => {
  srv = await startInProcess();
  const rt = srv.runtime;
  await rt.site.set('user_login_captcha', '0');
  await createUser(rt.db, { username: 'boss', email: 'boss@example.com', password: PASSWORD, groupId: 2 });
  const member = await createUser(rt.db, { username: 'memo_member', email: 'memo@example.com', password: PASSWORD });
  memberId = member.id;
  await adjustMoney(rt.db, member.id, 5000, 'bank transfer');
  await adjustMoney(rt.db, member.id, -1990, 'module:notes order:20261127000000123456', { key: 'user.ledger.memo.buy', params: { uid: 'notes', order: '20261127000000123456' } });
  await signIn(rt, member.id);
  await adjustScore(rt.db, member.id, -3, 'AI chat: Hello', { key: 'chat.memo', params: { title: 'Hello' } });
  cookies.member = await login('memo_member');
  cookies.boss = await login('boss');
}, scaled(120_000));

afterAll(async () => {
  await srv?.stop();
});

describe('ledger memos in the reader\'s language', () => {
  it('the balance API translates the memo and keeps the key and the stored text apart', async () => {
    const zh = await list('/api/account/balance', 'zh-cn');
    expect(zh.map((r) => r.memo)).toEqual(['购买模块 notes（订单 20261127000000123456）', 'bank transfer']);
    expect(zh[0]).toMatchObject({ memo_key: 'user.ledger.memo.buy', memo_raw: 'module:notes order:20261127000000123456' });
    expect(zh[1]).toMatchObject({ memo_key: '', memo_raw: 'bank transfer' });
    const en = await list('/api/account/balance', 'en');
    expect(en[0]!.memo).toBe('Bought module notes (order 20261127000000123456)');
  });

  it('the points API does the same, the AI chat charge included', async () => {
    const zh = await list('/api/account/integral', 'zh-cn');
    expect(zh[0]).toMatchObject({ memo: 'AI 对话：Hello', memo_key: 'chat.memo', memo_raw: 'AI chat: Hello' });
    expect(zh[1]!.memo).toMatch(/^每日签到 \d{4}-\d{2}-\d{2}$/);
    const en = await list('/api/account/integral', 'en');
    expect(en[1]!.memo).toMatch(/^Daily check-in \d{4}-\d{2}-\d{2}$/);
  });

  it("the console's member page shows the memos in the administrator's language", async () => {
    const zh = await raw(srv.url, `/admin/members/${memberId}`, { headers: { cookie: `${cookies.boss!}; ba-lang=zh-cn` } });
    expect(zh.status).toBe(200);
    expect(zh.text).toContain('购买模块 notes（订单 20261127000000123456）');
    expect(zh.text).toContain('AI 对话：Hello');
    expect(zh.text).not.toContain('module:notes order:');
    const en = await raw(srv.url, `/admin/members/${memberId}`, { headers: { cookie: `${cookies.boss!}; ba-lang=en` } });
    expect(en.text).toContain('Bought module notes (order 20261127000000123456)');
    expect(en.text).toContain('bank transfer');
  });
});
