// Installing from another Atrium's market (issue 26 item 7): two sites in one process. Site A's
// market publishes `math`; a member of A makes an API token in the member center; site B connects
// to A with it (pinning A's ed25519 key), lists what the member may install and installs `math`,
// after which a post on B renders `$E=mc^2$` as MathML. B reaches A through a small relay the test
// controls, which can swap the package's bytes or re-sign nothing: a package that is not the signed
// one, a signature the pinned key does not verify, a key that changed since connecting are refused.
import { generateKeyPairSync, createHash } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/lib/server/account/users';
import { createPost } from '../../src/lib/server/ask/posts';
import { adminLog, askCategory, module, moduleDownload, moduleInstall, modulePackage as modulePackageTable, moduleRemote, moduleVersion } from '../../src/lib/server/db/schema';
import { seedMath } from '../../src/lib/server/market/demo';
import { canonicalJson, keyFingerprint } from '../../src/lib/server/market/remote';
import { installModule } from '../../src/lib/server/modules/installs';
import { runCommand } from '../../src/server/cli';
import { startInProcess, type InProcessServer } from '../helpers/in-process';
import { startMarketRelay, type MarketRelay } from '../helpers/market-relay';
import { loginAs } from '../helpers/members';
import { modulePackage } from '../helpers/module-package';
import { postJson, raw } from '../helpers/server';
import { scaled } from '../helpers/time-scale.mjs';
import { until } from '../helpers/until';

type Env<T = Record<string, unknown>> = { code: number; msg: string; data: T };

let a: InProcessServer;
let b: InProcessServer;
let relay: MarketRelay;
let relayUrl = '';
/** What the relay does to A's answers: pass them on, swap the package's bytes, or change the signed sha256 in the list. */
let mode: 'pass' | 'swap-bytes' | 'swap-list' = 'pass';
const fake = modulePackage('math', '1.0.0', [{ name: 'server.mjs', data: Buffer.from('export default { hooks: { markdown: (items) => items.map(() => "<mi>pwned</mi>") } };\n') }], {
  entry: { server: 'server.mjs' }, capabilities: ['markdown'], contributes: { markdown: { inline: [{ open: '$', close: '$' }] } },
});
const fakeSha = createHash('sha256').update(fake).digest('hex');
let token = '';
let aliceCookie = '';
let aliceToken = '';
let mathSha = '';

async function cli(srv: InProcessServer, ...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCommand(args, srv.runtime, { out: (t) => void (out += t), err: (t) => void (err += t), cwd: process.cwd() });
  return { code, out, err };
}


beforeAll(async () => {
  // A first: the markdown provider registry is process-wide and the last runtime started (B) holds it.
  a = await startInProcess();
  const seeded = await seedMath(a.runtime);
  expect(seeded.join('\n')).toMatch(/math 1\.\d+\.\d+/);
  [{ sha: mathSha }] = await a.runtime.db.select({ sha: moduleVersion.reviewedSha256 }).from(moduleVersion)
    .innerJoin(module, eq(module.id, moduleVersion.moduleId)).where(eq(module.uid, 'math')) as [{ sha: string }];
  await createUser(a.runtime.db, { username: 'alice', password: 'remote-pass1', groupId: 1 });
  const session = await loginAs(a.url, a.runtime, 'alice', 'remote-pass1');
  aliceCookie = session.cookie;
  aliceToken = session.token;

  b = await startInProcess();
  await installModule(b.runtime.db, 'editor');

  relay = await startMarketRelay(() => a.url, (path, body) => {
    if (mode === 'swap-bytes' && path.startsWith('/api/market/remote/package')) return fake;
    if (mode === 'swap-list' && path.startsWith('/api/market/remote/list')) {
      const env = JSON.parse(body.toString()) as Env<{ modules: { uid: string; versions: { sha256: string }[] }[] }>;
      for (const m of env.data.modules) for (const v of m.versions) v.sha256 = fakeSha;
      return Buffer.from(JSON.stringify(env));
    }
    if (mode === 'swap-list' && path.startsWith('/api/market/remote/package')) return fake;
    return body;
  });
  relayUrl = relay.url;
}, scaled(180_000));

afterAll(async () => {
  relay?.close();
  await b?.stop();
  await a?.stop();
});

describe('the market side (site A)', () => {
  it('serves one ed25519 public key, the same on every call, with its fingerprint', async () => {
    const first = (await raw(a.url, '/api/market/key')).json<Env<{ publicKey: string; fingerprint: string; algorithm: string }>>();
    const again = (await raw(a.url, '/api/market/key')).json<Env<{ publicKey: string; fingerprint: string }>>();
    expect(first.data.algorithm).toBe('ed25519');
    expect(first.data.fingerprint).toBe(keyFingerprint(first.data.publicKey));
    expect(again.data).toMatchObject({ publicKey: first.data.publicKey, fingerprint: first.data.fingerprint });
  });

  it('gives a member a token once, keeps only its hash, and accepts it only as a bearer token on the remote routes', async () => {
    const made = (await postJson(a.url, '/api/account/apiTokens', { action: 'create', name: 'site B' }, { 'think-lang': 'en', 'ba-user-token': aliceToken })).json<Env<{ id: number; token: string }>>();
    expect(made.code, made.msg).toBe(1);
    token = made.data.token;
    expect(token).toMatch(/^atm_[A-Za-z0-9_-]{43}$/);
    const listed = (await raw(a.url, '/api/account/apiTokens', { headers: { 'ba-user-token': aliceToken } })).json<Env<{ list: Record<string, unknown>[] }>>();
    expect(listed.data.list).toEqual([expect.objectContaining({ name: 'site B' })]);
    expect(JSON.stringify(listed.data)).not.toContain(token.slice(4));
    // The member center's page lists it by name (never the token), in the reader's language.
    for (const [lang, lead] of [['en', 'A token lets another Atrium site'], ['zh-cn', '令牌让你运营的另一个 Atrium 站点']] as const) {
      const page = await raw(a.url, '/user/account/apiTokens', { headers: { cookie: `${aliceCookie}; ba-lang=${lang}` } });
      expect(page.status).toBe(200);
      expect(page.text).toContain(lead);
      expect(page.text).toContain('site B');
      expect(page.text).not.toContain(token.slice(4));
    }
    // No token, a session instead of a token, a wrong token: refused.
    for (const headers of [{}, { cookie: aliceCookie, 'ba-user-token': aliceToken }, { authorization: `Bearer atm_${'x'.repeat(43)}` }] as Record<string, string>[]) {
      const res = await raw(a.url, '/api/market/remote/list', { headers: { 'think-lang': 'en', ...headers } });
      expect(res.status).toBe(401);
      expect(res.json<Env>()).toMatchObject({ code: 0, msg: expect.stringContaining('API token') });
    }
    // The token does not log anyone in elsewhere.
    const profile = (await raw(a.url, '/api/account/profile', { headers: { authorization: `Bearer ${token}` } })).json<Env>();
    expect(profile.code).toBe(303);
    const ok = (await raw(a.url, '/api/market/remote/list', { headers: { authorization: `Bearer ${token}` } })).json<Env<{ modules: { uid: string; free: boolean; versions: { sha256: string; signature: string }[] }[] }>>();
    expect(ok.code).toBe(1);
    // math is free; the demo's paid webhook is not seeded here, and nothing unbought is listed.
    expect(ok.data.modules.map((m) => m.uid)).toEqual(['editor', 'math']); // every market offers its editor package too
    expect(ok.data.modules.find((m) => m.uid === 'math')!.versions[0]).toMatchObject({ sha256: mathSha, signature: expect.any(String) });
  });
});

describe('the connecting site (site B)', () => {
  it('connects with the token, pinning the key it prints, and lists what the member may install', async () => {
    const key = (await raw(a.url, '/api/market/key')).json<Env<{ fingerprint: string }>>().data.fingerprint;
    const wrong = await cli(b, 'module:remote:connect', relayUrl, token, '--fingerprint', 'ab'.repeat(32));
    expect(wrong.code).toBe(1);
    expect(wrong.err).toContain(`has key fingerprint ${key}`);
    const connected = await cli(b, 'module:remote:connect', relayUrl, token);
    expect(connected.code, connected.err).toBe(0);
    expect(connected.out).toContain(`Pinned market key fingerprint: ${key}`);
    const [row] = await b.runtime.db.select().from(moduleRemote);
    expect(row).toMatchObject({ url: relayUrl, fingerprint: key, token });
    const listed = await cli(b, 'module:remote:list');
    expect(listed.code, listed.err).toBe(0);
    expect(listed.out).toMatch(/ {2}math\t1\.\d+\.\d+\tfree\tnot installed/);
  });

  it('refuses a package whose bytes are not the signed ones, and a list whose sha256 the signature does not cover', async () => {
    mode = 'swap-bytes';
    const swapped = await cli(b, 'module:remote:install', 'math');
    expect(swapped.code).toBe(1);
    expect(swapped.err).toContain(`has sha256 ${fakeSha}, not the signed ${mathSha}: installation refused`);
    mode = 'swap-list';
    const resigned = await cli(b, 'module:remote:install', 'math');
    expect(resigned.code).toBe(1);
    expect(resigned.err).toMatch(/The signature of math 1\.\d+\.\d+ is not valid under the pinned key/);
    mode = 'pass';
    expect(await b.runtime.db.select().from(moduleInstall).where(eq(moduleInstall.uid, 'math'))).toEqual([]);
    expect(await b.runtime.db.select().from(module).where(eq(module.uid, 'math'))).toEqual([]);
  });

  it('refuses when the pinned key is not the market\'s (or the market\'s key changed since connecting)', async () => {
    const [row] = await b.runtime.db.select().from(moduleRemote);
    const other = generateKeyPairSync('ed25519').publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
    // Another key pinned under the market's fingerprint: the signature is checked with the pinned key, not the served one.
    await b.runtime.db.update(moduleRemote).set({ publicKey: other }).where(eq(moduleRemote.id, row!.id));
    const forged = await cli(b, 'module:remote:install', 'math');
    expect(forged.err).toMatch(/is not valid under the pinned key/);
    await b.runtime.db.update(moduleRemote).set({ publicKey: other, fingerprint: keyFingerprint(other) }).where(eq(moduleRemote.id, row!.id));
    const changed = await cli(b, 'module:remote:install', 'math');
    expect(changed.code).toBe(1);
    expect(changed.err).toContain(`changed since connecting (pinned: ${keyFingerprint(other)}; served now: ${row!.fingerprint})`);
    await b.runtime.db.update(moduleRemote).set({ publicKey: row!.publicKey, fingerprint: row!.fingerprint }).where(eq(moduleRemote.id, row!.id));
  });

  it('installs math from A with the member\'s token, and a post on B renders $E=mc^2$ as MathML', async () => {
    const before = (await a.runtime.db.select().from(moduleDownload)).length;
    const done = await cli(b, 'module:remote:install', 'math');
    expect(done.code, done.err).toBe(0);
    expect(done.out).toMatch(/^Installed math 1\.\d+\.\d+ from http:\/\/127\.0\.0\.1:\d+ \(signature and sha256 checked/);
    // Recorded in B's market as reviewed with the signed sha256, kept in the table every instance unpacks from.
    const [install] = await b.runtime.db.select().from(moduleInstall).where(eq(moduleInstall.uid, 'math'));
    expect(install).toMatchObject({ enabled: 1, sha256: mathSha });
    const [v] = await b.runtime.db.select().from(moduleVersion).innerJoin(module, eq(module.id, moduleVersion.moduleId)).where(and(eq(module.uid, 'math'), eq(moduleVersion.version, install!.version)));
    expect(v!.module_version).toMatchObject({ reviewedSha256: mathSha, status: 'published' });
    const [aVersion] = await a.runtime.db.select({ manifest: moduleVersion.manifest }).from(moduleVersion).where(eq(moduleVersion.reviewedSha256, mathSha));
    expect(canonicalJson(v!.module_version.manifest)).toBe(canonicalJson(aVersion!.manifest));
    // The connect and the install are in B's audit log, by the CLI, the token masked.
    const audit = await b.runtime.db.select().from(adminLog).where(eq(adminLog.username, 'cli'));
    expect(audit.map((r) => r.action)).toEqual(expect.arrayContaining(['module:remote:connect', 'module:remote:install']));
    expect(JSON.stringify(audit)).not.toContain(token);
    expect((await b.runtime.db.select({ sha: modulePackageTable.sha256 }).from(modulePackageTable)).map((r) => r.sha)).toContain(mathSha);
    // A counted the member's download.
    const downloads = await a.runtime.db.select().from(moduleDownload);
    expect(downloads.length).toBeGreaterThan(before);

    await until(() => b.runtime.modules.currentRenderSet === `math@${install!.version}`, 'math in the render set', 15_000, 50);
    const writer = await createUser(b.runtime.db, { username: 'writer', password: 'remote-pass1', groupId: 1 });
    const [discussion] = await b.runtime.db.select({ id: askCategory.id }).from(askCategory).where(eq(askCategory.slug, 'discussion'));
    const post = await createPost(b.runtime.db, writer.id, { title: 'Mass and energy', content: 'Energy $E=mc^2$ here.', category_id: discussion!.id, tags: [] } as never);
    const html = (await raw(b.url, `/ask/info/${post.id}`, { headers: { cookie: 'ba-lang=en' } })).text;
    expect(html).toContain('<span class="md-ext" data-ext="math"><math><mrow><mi>E</mi><mo>=</mo><mi>m</mi><msup><mi>c</mi>');
    // Delisted in B's market: B's members cannot download or buy what A's member got.
    expect(v!.module.status).toBe('delisted');
    const session = await loginAs(b.url, b.runtime, 'writer', 'remote-pass1');
    const download = await raw(b.url, '/api/modules/download?uid=math', { headers: { 'ba-user-token': session.token, 'think-lang': 'en' } });
    expect(download.json<Env>()).toMatchObject({ code: 0, msg: 'This module does not exist or is not published' });
    // The console lists it with the other site modules (upgrade, rollback, disable work as for any).
    const { consoleModules } = await import('../../src/lib/server/modules/lifecycle');
    expect((await consoleModules(b.runtime, 'en')).find((m) => m.uid === 'math')).toMatchObject({ installed: expect.objectContaining({ sha256: mathSha }), latest: install!.version });
    expect((await cli(b, 'module:remote:list')).out).toMatch(/ {2}math\t1\.\d+\.\d+\tfree\tinstalled 1\.\d+\.\d+/);
  }, scaled(60_000));

  it('refuses a token that was revoked', async () => {
    const [row] = (await raw(a.url, '/api/account/apiTokens', { headers: { 'ba-user-token': aliceToken } })).json<Env<{ list: { id: number }[] }>>().data.list;
    const revoked = (await postJson(a.url, '/api/account/apiTokens', { action: 'revoke', id: row!.id }, { 'think-lang': 'en', 'ba-user-token': aliceToken })).json<Env>();
    expect(revoked).toMatchObject({ code: 1, msg: 'Token revoked' });
    const listed = await cli(b, 'module:remote:list');
    expect(listed.code).toBe(1);
    expect(listed.err).toContain('A member API token is required');
  });

  it('disconnects from the command line: the token is forgotten, installed modules keep running, the step is audited', async () => {
    expect(await cli(b, 'module:remote:disconnect')).toMatchObject({ code: 2, err: 'Usage: module:remote:disconnect <market-url>\n' });
    const unknown = await cli(b, 'module:remote:disconnect', 'http://127.0.0.1:9/');
    expect(unknown).toMatchObject({ code: 1, err: 'http://127.0.0.1:9 is not a connected market (module:remote:list shows the connected ones)\n' });
    // The URL as the operator typed it when connecting (a trailing slash is the same market).
    const done = await cli(b, 'module:remote:disconnect', `${relayUrl}/`);
    expect(done.code, done.err).toBe(0);
    expect(done.out).toBe(`Disconnected from ${relayUrl}. Modules installed from it keep running; connect again to take their upgrades.\n`);
    expect((await b.runtime.db.select().from(moduleRemote))[0]).toMatchObject({ url: relayUrl, token: '' });
    expect((await cli(b, 'module:remote:list')).err).toContain('No remote market is connected');
    expect((await cli(b, 'module:remote:install', 'math')).err).toContain('No remote market is connected');
    expect((await cli(b, 'module:remote:disconnect', relayUrl)).code).toBe(1);
    expect((await b.runtime.db.select().from(moduleInstall).where(eq(moduleInstall.uid, 'math')))[0]).toMatchObject({ enabled: 1, sha256: mathSha });
    // One row for the one disconnection that happened, by the CLI.
    const audit = await b.runtime.db.select().from(adminLog).where(eq(adminLog.action, 'module:remote:disconnect'));
    expect(audit.map((r) => [r.username, r.target])).toEqual([['cli', `${relayUrl}/`]]);
    expect(await b.runtime.db.select().from(adminLog).where(eq(adminLog.action, 'module:remote:connect'))).toHaveLength(1);
  });
});
