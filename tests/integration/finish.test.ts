// Fit and finish (issue 29), the server-rendered points: a first visit is welcomed (not welcomed
// back), an empty book offers its first page, and /api/index/index speaks the caller's language.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInProcess, type InProcessServer } from '../helpers/in-process';
import { loginAs } from '../helpers/members';
import { raw } from '../helpers/server';
import { createUser } from '../../src/lib/server/account/users';
import { createBook } from '../../src/lib/server/md/books';
import { installModule } from '../../src/lib/server/modules/installs';

let srv: InProcessServer;
let cookie = '';
let veteran = '';
let userId = 0;

beforeAll(async () => {
  srv = await startInProcess();
  await installModule(srv.runtime.db, 'editor');
  userId = (await createUser(srv.runtime.db, { username: 'newcomer', password: 'secret-pass1' })).id;
  cookie = (await loginAs(srv.url, srv.runtime, 'newcomer', 'secret-pass1')).cookie;
  const old = await createUser(srv.runtime.db, { username: 'veteran', password: 'secret-pass1' });
  await srv.runtime.db.execute(sql`update "user" set join_time = join_time - 86400 where id = ${old.id}`);
  veteran = (await loginAs(srv.url, srv.runtime, 'veteran', 'secret-pass1')).cookie;
});
afterAll(async () => { await srv?.stop(); });

const page = (path: string, lang: 'zh-cn' | 'en', as = cookie) => raw(srv.url, path, { headers: { cookie: `${as}; ba-lang=${lang}` } });

describe('the member center greeting', () => {
  it('welcomes a member on their first visit, and welcomes them back after that', async () => {
    // Just joined and logged in (as sign-up does): welcomed.
    expect((await page('/user/account/overview', 'en')).text).toMatch(/class="overview-greeting">[^<]*newcomer, welcome aboard!</);
    expect((await page('/user/account/overview', 'zh-cn')).text).toMatch(/class="overview-greeting">[^<]*newcomer，欢迎加入！</);
    // Joined yesterday, logged in today: welcomed back.
    expect((await page('/user/account/overview', 'en', veteran)).text).toMatch(/class="overview-greeting">[^<]*veteran, welcome back!</);
    expect((await page('/user/account/overview', 'zh-cn', veteran)).text).toMatch(/class="overview-greeting">[^<]*veteran，欢迎回来！</);
  });
});

describe('an empty book', () => {
  it('offers its owner to write the first page, not to edit one', async () => {
    await createBook(srv.runtime.db, { name: 'blank', title: 'Blank book', ownerId: userId });
    const en = (await page('/md/blank', 'en')).text;
    expect(en).toContain('This book has no pages yet');
    expect(en).toMatch(/href="\/md\/edit\/blank">Write the first page</);
    expect(en).not.toContain('Edit this page');
    expect((await page('/md/blank', 'zh-cn')).text).toMatch(/href="\/md\/edit\/blank">撰写第一页</);
  });
});

describe('/api/index/index', () => {
  it('answers its data in the language of the think-lang header, like its msg', async () => {
    const get = async (headers: Record<string, string>) => (await raw(srv.url, '/api/index/index', { headers })).json<{ data: unknown }>().data;
    const english = await get({ cookie: 'ba-lang=en', 'think-lang': 'en' });
    const chinese = await get({ cookie: 'ba-lang=zh-cn', 'think-lang': 'zh-cn' });
    expect(english).not.toEqual(chinese);
    expect(await get({ cookie: 'ba-lang=zh-cn', 'think-lang': 'en' })).toEqual(english);
    expect(await get({ cookie: 'ba-lang=en', 'think-lang': 'zh-cn' })).toEqual(chinese);
  });
});
