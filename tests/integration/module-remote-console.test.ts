// Installing from another Atrium's market from the console (issue 26 item 7; the CLI's
// module:remote:* are tested in module-remote.test.ts): two sites in one process. Site A's market
// publishes `math`; a member of A makes an API token there; B's administrator reads A's key
// fingerprint, connects pinning it, lists what the token may install, installs math (after the same
// checks as the CLI: a package whose bytes are not the signed ones is refused, in the
// administrator's language) and disconnects, through /api/admin/remoteMarkets and
// /api/admin/remoteModules and on the Site modules page, every step in B's audit log.
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/lib/server/account/users';
import { createPost } from '../../src/lib/server/ask/posts';
import { adminLog, askCategory, module, moduleInstall, moduleRemote, moduleVersion, user } from '../../src/lib/server/db/schema';
import { seedMath } from '../../src/lib/server/market/demo';
import { installModule } from '../../src/lib/server/modules/installs';
import { ADMIN_GROUP } from '../../src/lib/server/site/seed';
import { startInProcess, type InProcessServer } from '../helpers/in-process';
import { startMarketRelay, type MarketRelay } from '../helpers/market-relay';
import { loginAs } from '../helpers/members';
import { modulePackage } from '../helpers/module-package';
import { postJson, raw } from '../helpers/server';
import { scaled } from '../helpers/time-scale.mjs';
import { until } from '../helpers/until';

type Env<T = Record<string, unknown>> = { code: number; msg: string; data: T & { fields?: Record<string, string> } };
interface Offered { uid: string; name: string; latest: string; free: boolean; installed: string | null; installable: boolean; capabilities: string[] }

let a: InProcessServer;
let b: InProcessServer;
let relay: MarketRelay;
let relayUrl = '';
/** The relay passes A's answers on, or swaps the package's bytes for others. */
let swapBytes = false;
const fake = modulePackage('math', '1.0.0', [{ name: 'server.mjs', data: Buffer.from('export default { hooks: { markdown: (items) => items.map(() => "<mi>pwned</mi>") } };\n') }], {
  entry: { server: 'server.mjs' }, capabilities: ['markdown'], contributes: { markdown: { inline: [{ open: '$', close: '$' }] } },
});
let marketToken = '';
let fingerprint = '';
let mathSha = '';
const boss = { token: '', cookie: '' };
let memberToken = '';

const post = async <T = Record<string, unknown>>(path: string, body: unknown, lang = 'en', token = boss.token): Promise<Env<T>> =>
  (await postJson(b.url, path, body, { 'think-lang': lang, 'ba-user-token': token })).json<Env<T>>();
const get = async <T = Record<string, unknown>>(path: string, lang = 'en'): Promise<Env<T>> =>
  (await raw(b.url, path, { headers: { 'think-lang': lang, 'ba-user-token': boss.token } })).json<Env<T>>();
const page = async (path: string, lang: 'en' | 'zh-cn' = 'en'): Promise<string> => {
  const res = await raw(b.url, path, { headers: { cookie: `${boss.cookie}; ba-lang=${lang}` } });
  expect(res.status).toBe(200);
  return res.text;
};
const auditOf = async (action: string) => b.runtime.db.select().from(adminLog).where(eq(adminLog.action, action));

beforeAll(async () => {
  // A first: the markdown provider registry is process-wide and the last runtime started (B) holds it.
  a = await startInProcess();
  expect((await seedMath(a.runtime)).join('\n')).toMatch(/math 1\.\d+\.\d+/);
  [{ sha: mathSha }] = await a.runtime.db.select({ sha: moduleVersion.reviewedSha256 }).from(moduleVersion)
    .innerJoin(module, eq(module.id, moduleVersion.moduleId)).where(eq(module.uid, 'math')) as [{ sha: string }];
  await createUser(a.runtime.db, { username: 'alice', password: 'console-pass1', groupId: 1 });
  const alice = await loginAs(a.url, a.runtime, 'alice', 'console-pass1');
  const made = (await postJson(a.url, '/api/account/apiTokens', { action: 'create', name: 'site B' }, { 'ba-user-token': alice.token })).json<Env<{ token: string }>>();
  marketToken = made.data.token;
  fingerprint = (await raw(a.url, '/api/market/key')).json<Env<{ fingerprint: string }>>().data.fingerprint;

  b = await startInProcess();
  await installModule(b.runtime.db, 'editor');
  await createUser(b.runtime.db, { username: 'boss', password: 'console-pass1', groupId: ADMIN_GROUP });
  await createUser(b.runtime.db, { username: 'member', password: 'console-pass1', groupId: 1 });
  Object.assign(boss, await loginAs(b.url, b.runtime, 'boss', 'console-pass1'));
  memberToken = (await loginAs(b.url, b.runtime, 'member', 'console-pass1')).token;

  relay = await startMarketRelay(() => a.url, (path, body) => (swapBytes && path.startsWith('/api/market/remote/package') ? fake : body));
  relayUrl = relay.url;
}, scaled(180_000));

afterAll(async () => {
  relay?.close();
  // B, then the market it read from.
  for (const site of [b, a]) await site?.stop();
});

describe('connecting from the console', () => {
  it('is for administrators only', async () => {
    for (const [path, body] of [['/api/admin/remoteMarkets', { action: 'key', url: relayUrl }], ['/api/admin/remoteModules', { uid: 'math' }]] as const) {
      expect((await post(path, body, 'en', memberToken)).code).toBe(401);
    }
    expect(await b.runtime.db.select().from(moduleRemote)).toEqual([]);
  });

  it('shows the market\'s key fingerprint before anything is stored, on the page and through the API', async () => {
    const key = await post<{ url: string; fingerprint: string }>('/api/admin/remoteMarkets', { action: 'key', url: `${relayUrl}/` });
    expect(key).toMatchObject({ code: 1, data: { url: relayUrl, fingerprint }, msg: `The market at ${relayUrl} signs with the key of fingerprint ${fingerprint}` });
    // The page's second step: the fingerprint, the compare hint and the token form carrying it.
    const html = await page(`/admin/modules?market=${encodeURIComponent(relayUrl)}`);
    expect(html).toContain('Confirm the market&#39;s key');
    expect(html).toContain(`<code class="remote-long" data-fingerprint`);
    expect(html).toContain(fingerprint);
    expect(html).toMatch(new RegExp(`<input type="hidden" name="fingerprint" value="${fingerprint}"`));
    expect(html).toContain('Pin this key and connect');
    const zh = await page(`/admin/modules?market=${encodeURIComponent(relayUrl)}`, 'zh-cn');
    expect(zh).toContain('确认市场的公钥');
    expect(zh).toContain('固定此公钥并连接');
    // A wrong address says why in the administrator's language, on the page and through the API.
    expect(await page('/admin/modules?market=ftp%3A%2F%2Fexample.com', 'zh-cn')).toContain('市场地址必须是一个 Atrium 站点的 http(s) 地址');
    expect(await post('/api/admin/remoteMarkets', { action: 'key', url: 'http://127.0.0.1:9/' }, 'zh-cn')).toMatchObject({ code: 0, msg: expect.stringContaining('的市场没有按 Atrium 市场的方式应答') });
    expect(await b.runtime.db.select().from(moduleRemote)).toEqual([]);
  });

  it('connects with the token, pinning only the fingerprint shown; a missing token is a field error', async () => {
    const missing = await post('/api/admin/remoteMarkets', { action: 'connect', url: relayUrl, token: ' ', fingerprint }, 'zh-cn');
    expect(missing).toMatchObject({ code: 0, data: { fields: { token: '请粘贴会员在那个市场的会员中心创建的 API 令牌' } } });
    const other = 'ab'.repeat(32);
    const wrong = await post('/api/admin/remoteMarkets', { action: 'connect', url: relayUrl, token: marketToken, fingerprint: other }, 'zh-cn');
    expect(wrong).toMatchObject({ code: 0, msg: `${relayUrl} 的市场公钥指纹是 ${fingerprint}，不是你给出的 ${other}：未连接` });
    expect(await b.runtime.db.select().from(moduleRemote)).toEqual([]);
    const done = await post<{ id: number; fingerprint: string; modules: number }>('/api/admin/remoteMarkets', { action: 'connect', url: relayUrl, token: marketToken, fingerprint: fingerprint.toUpperCase() });
    // Every market offers its editor package too (free), beside the math this test published.
    expect(done).toMatchObject({ code: 1, data: { fingerprint, modules: 2 }, msg: `Connected to ${relayUrl}: key ${fingerprint} pinned, 2 modules offered to this token` });
    const [row] = await b.runtime.db.select().from(moduleRemote);
    expect(row).toMatchObject({ id: done.data.id, url: relayUrl, fingerprint, token: marketToken });
    // Listed without its token; audited with the administrator's name, the token nowhere in the log.
    const listed = await get<{ list: Record<string, unknown>[] }>('/api/admin/remoteMarkets');
    expect(listed.data.list).toEqual([{ id: row!.id, url: relayUrl, fingerprint, create_time: expect.any(Number) }]);
    expect((await auditOf('module:remote:connect')).map((r) => r.username)).toEqual(['boss']);
    expect(JSON.stringify(await b.runtime.db.select().from(adminLog))).not.toContain(marketToken);
    const html = await page('/admin/modules');
    expect(html).toContain(`Disconnect ${relayUrl}`);
    expect(html).not.toContain(marketToken);
  });
});

describe('installing from the console', () => {
  it('lists what the token may install, free or bought, beside what is installed here', async () => {
    const offers = await get<{ markets: { url: string; error: string | null; modules: Offered[] }[] }>('/api/admin/remoteModules');
    expect(offers.data.markets).toMatchObject([{ id: expect.any(Number), url: relayUrl, fingerprint, error: null }]);
    const offered = offers.data.markets[0]!.modules;
    expect(offered.map((m) => m.uid).sort()).toEqual(['editor', 'math']);
    expect(offered.find((m) => m.uid === 'math')).toEqual(
      { uid: 'math', name: 'Math', latest: expect.stringMatching(/^1\.\d+\.\d+$/), free: true, installed: null, installable: true, capabilities: ['markdown', 'client:code'] },
    );
    const html = await page('/admin/modules?remote=list');
    expect(html).toContain(`Offered by ${relayUrl}`);
    expect(html).toMatch(/<tr data-remote-module="math">\s*<td>Math <span class="muted">math<\/span><\/td>/);
    expect(html).toContain(`Install Math ${offered.find((m) => m.uid === 'math')!.latest}`);
    const zh = await page('/admin/modules?remote=list', 'zh-cn');
    expect(zh).toMatch(/<td>数学公式 <span class="muted">math<\/span><\/td>\s*<td>1\.\d+\.\d+<\/td>\s*<td>免费<\/td>\s*<td>未安装<\/td>/);
  });

  it('refuses a package that is not the signed one, saying why in the administrator\'s language', async () => {
    swapBytes = true;
    try {
      const refused = await post('/api/admin/remoteModules', { uid: 'math' }, 'zh-cn');
      expect(refused).toMatchObject({ code: 0, msg: expect.stringMatching(new RegExp(`^${relayUrl.replace(/\./g, '\\.')} 提供的 math 1\\.\\d+\\.\\d+ 安装包的 sha256 是 [0-9a-f]{64}，不是签名的 ${mathSha}：拒绝安装$`)) });
    } finally {
      swapBytes = false;
    }
    expect(await b.runtime.db.select().from(moduleInstall).where(eq(moduleInstall.uid, 'math'))).toEqual([]);
  });

  it('installs math; a post on B renders MathML; audited like the CLI', async () => {
    const done = await post<{ version: string; url: string }>('/api/admin/remoteModules', { uid: 'math' });
    expect(done.code, done.msg).toBe(1);
    expect(done).toMatchObject({ code: 1, data: { url: relayUrl }, msg: `Installed math ${done.data.version} from ${relayUrl} (signature and sha256 checked with the pinned key)` });
    const [install] = await b.runtime.db.select().from(moduleInstall).where(eq(moduleInstall.uid, 'math'));
    expect(install).toMatchObject({ enabled: 1, sha256: mathSha, version: done.data.version });
    expect((await auditOf('module:remote:install')).map((r) => [r.username, r.target, r.after])).toEqual([['boss', 'math', `${done.data.version} from ${relayUrl}`]]);
    expect(await auditOf('module:install')).toEqual([]);
    await until(() => b.runtime.modules.currentRenderSet === `math@${install!.version}`, 'math in the render set', 15_000, 50);
    const [discussion] = await b.runtime.db.select({ id: askCategory.id }).from(askCategory).where(eq(askCategory.slug, 'discussion'));
    const [writer] = await b.runtime.db.select({ id: user.id }).from(user).where(eq(user.username, 'member'));
    const made = await createPost(b.runtime.db, writer!.id, { title: 'Mass and energy', content: 'Energy $E=mc^2$ here.', category_id: discussion!.id, tags: [] } as never);
    expect((await raw(b.url, `/ask/info/${made.id}`, { headers: { cookie: 'ba-lang=en' } })).text).toContain('<span class="md-ext" data-ext="math"><math>');
    // Now installed: the list says so and offers nothing to do.
    const offers = await get<{ markets: { modules: Offered[] }[] }>('/api/admin/remoteModules');
    expect(offers.data.markets[0]!.modules[0]).toMatchObject({ installed: done.data.version, installable: false });
    expect(await page('/admin/modules?remote=list')).toMatch(new RegExp(`<tr data-remote-module="math">[\\s\\S]*?<td>Installed ${done.data.version.replace(/\./g, '\\.')}</td>\\s*<td>\\s*<span class="muted">Up to date</span>`));
  }, scaled(60_000));

  it('disconnects: nothing more is listed or installed from it, math keeps running; connecting again keeps the market\'s row', async () => {
    const [row] = await b.runtime.db.select().from(moduleRemote);
    const gone = await post('/api/admin/remoteMarkets', { action: 'disconnect', id: row!.id }, 'zh-cn');
    expect(gone).toMatchObject({ code: 1, msg: `已断开与 ${relayUrl} 的连接：从它安装的模块继续运行` });
    expect((await auditOf('module:remote:disconnect')).map((r) => [r.username, r.target])).toEqual([['boss', relayUrl]]);
    expect((await b.runtime.db.select({ token: moduleRemote.token }).from(moduleRemote))).toEqual([{ token: '' }]);
    expect((await get<{ list: unknown[] }>('/api/admin/remoteMarkets')).data.list).toEqual([]);
    expect((await get<{ markets: unknown[] }>('/api/admin/remoteModules')).data.markets).toEqual([]);
    expect(await post('/api/admin/remoteModules', { uid: 'math' })).toMatchObject({ code: 0, msg: expect.stringContaining('No remote market is connected') });
    expect(await post('/api/admin/remoteMarkets', { action: 'disconnect', id: row!.id })).toMatchObject({ code: 0 });
    expect(await page('/admin/modules')).toContain('No market connected.');
    expect(b.runtime.modules.list().map((m) => m.uid)).toContain('math');
    const again = await post<{ id: number }>('/api/admin/remoteMarkets', { action: 'connect', url: relayUrl, token: marketToken, fingerprint });
    expect(again).toMatchObject({ code: 1, data: { id: row!.id } });
  });
});
