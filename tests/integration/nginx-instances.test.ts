// A whole site on two instances (the built server, two processes) sharing PostgreSQL and Redis,
// behind Debian's nginx running deploy/nginx/atrium.conf (templated for this test's ports and paths
// by tests/helpers/nginx.ts, nothing else changed). Every request goes through nginx; a test-only
// `x-test-instance: 1|2` header picks the instance through the same locations, so "made on one,
// seen on the other" is certain rather than left to round-robin.
// Needs nginx, TEST_DATABASE_URL and TEST_REDIS_URL; the upload case also Swift (python3-swift).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { and, eq, like, sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from '@playwright/test';
import { readConfig } from '../../src/lib/server/env';
import type { Runtime } from '../../src/lib/server/runtime';
import { createRuntime } from '../../src/lib/server/boot/runtime';
import { createUser } from '../../src/lib/server/account/users';
import { ADMIN_GROUP } from '../../src/lib/server/site/seed';
import zhAdmin from '../../src/lib/i18n/zh-cn/admin';
import { createPost } from '../../src/lib/server/ask/posts';
import { installModule, isInstalled } from '../../src/lib/server/modules/installs';
import { saveModel } from '../../src/lib/server/chat/models';
import { askCategory, attachment, user, userRule } from '../../src/lib/server/db/schema';
import { freshPostgres, startServer, type TestServer } from '../helpers/server';
import { NGINX_MISSING, startNginx, viaTls, type Nginx } from '../helpers/nginx';
import { startHttpsTunnel } from '../helpers/https-tunnel';
import { openSse } from '../helpers/sse';
import { startMockOpenAI, mockReplyWords, type MockOpenAI } from '../helpers/mock-openai';
import { startSwift, swiftInstalled, type SwiftStore } from '../helpers/swift';
import { ROOT, TMP } from '../helpers/paths';
import { scaled } from '../helpers/time-scale.mjs';

const DB = process.env.TEST_DATABASE_URL;
const REDIS = process.env.TEST_REDIS_URL;
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SKIP = NGINX_MISSING
  ?? (!DB || !REDIS ? 'TEST_DATABASE_URL / TEST_REDIS_URL not set: the two-instance test behind nginx is skipped' : null);
if (SKIP) console.warn(SKIP);
const NO_SWIFT = swiftInstalled() ? null : 'python3-swift not installed: the cloud-upload case behind nginx is skipped';

const PASSWORD = 'right-password1';
const API_LIMIT = 60;
const LOGIN_IP_LIMIT = 12;
type Env<T = Record<string, unknown>> = { code: number; msg: string; data: T; time: number };
type Instance = 1 | 2;

describe.skipIf(SKIP !== null)('two instances behind nginx (deploy/nginx/atrium.conf)', () => {
  let rt: Runtime;
  let servers: TestServer[] = [];
  let nginx: Nginx;
  let mock: MockOpenAI;
  let swift: SwiftStore | null = null;
  let setupDir = '';
  const ids = { alice: 0, bob: 0, carol: 0, dave: 0, post: 0 };
  const tokens: Record<string, string> = {};

  beforeAll(async () => {
    // 60 words 150 ms apart: a reply still being written when a loaded machine's second instance is asked to resume it.
    mock = await startMockOpenAI({ delayMs: 150, words: 60 });
    if (!NO_SWIFT) swift = await startSwift({ bucket: 'atrium-nginx' });
    const env: Record<string, string> = {
      DATABASE_URL: await freshPostgres(), REDIS_URL: REDIS!, REDIS_PREFIX: `ngx${Date.now().toString(36)}:`,
      TRUST_PROXY: '1', SITE_URL: 'https://example.com', API_RATE_LIMIT: String(API_LIMIT), LOGIN_IP_LIMIT: String(LOGIN_IP_LIMIT),
      ...(swift ? { S3_ACCESS_KEY_ID: swift.accessKeyId, S3_SECRET_ACCESS_KEY: swift.secretAccessKey } : {}),
    };
    // The test's own runtime on the same database and Redis: prepares the site, reads what the
    // instances wrote and resets the shared rate-limit counters between cases.
    setupDir = mkdtempSync(join(TMP, 'ngx-setup-'));
    rt = await createRuntime(readConfig({ ATRIUM_ROOT: ROOT, DATA_DIR: setupDir, LOG_LEVEL: 'warn', DEPLOY_POLL_SECONDS: '0', ...env }));
    if (!(await isInstalled(rt.db, 'editor'))) await installModule(rt.db, 'editor');
    await rt.site.set('user_login_captcha', '0');
    for (const name of ['alice', 'bob', 'carol', 'dave'] as const) {
      const row = await createUser(rt.db, { username: name, password: PASSWORD, email: `${name}@example.com` });
      // Old enough to reply without the new-member wait.
      await rt.db.update(user).set({ joinTime: sql`${user.joinTime} - 200000` }).where(eq(user.id, row.id));
      ids[name] = row.id;
    }
    const [discussion] = await rt.db.select().from(askCategory).where(eq(askCategory.slug, 'discussion'));
    ids.post = (await createPost(rt.db, ids.bob, { title: 'Served by two instances', category_id: discussion!.id, content: 'Which one answers?', tags: [] } as Parameters<typeof createPost>[2])).id;
    await saveModel(rt.db, { name: 'slow', modelId: 'mock', baseUrl: mock.url, audience: 'visitors' });
    if (swift) {
      await rt.site.set('upload_mode', 's3');
      await rt.site.set('upload_params', JSON.stringify({ bucket: swift.bucket, region: swift.region, endpoint: swift.endpoint }));
    }
    servers = await Promise.all([startServer({ env }), startServer({ env })]);
    nginx = await startNginx(servers.map((s) => s.port), { pin: true });
  }, scaled(120_000));

  afterAll(async () => {
    await nginx?.stop();
    await Promise.all(servers.map((s) => s.stop()));
    await rt?.close();
    await mock?.close();
    await swift?.stop();
    if (setupDir) rmSync(setupDir, { recursive: true, force: true });
  });

  beforeEach(async () => {
    // Every request reaches the instances from nginx on 127.0.0.1: one client address for the whole file.
    for (const key of ['api:127.0.0.1', 'login-ip:127.0.0.1']) await rt.limiter.reset(key);
  });

  const headers = (via: Instance | null, token?: string): Record<string, string> => ({
    'think-lang': 'en', origin: 'https://example.com',
    ...(via ? { 'x-test-instance': String(via) } : {}),
    ...(token ? { 'ba-user-token': token } : {}),
  });
  const get = async <T = Record<string, unknown>>(via: Instance | null, path: string, token?: string): Promise<Env<T>> =>
    (await viaTls(nginx.httpsPort, path, { headers: headers(via, token) })).json<Env<T>>();
  const post = async <T = Record<string, unknown>>(via: Instance | null, path: string, body: unknown, token?: string): Promise<Env<T>> =>
    (await viaTls(nginx.httpsPort, path, { method: 'POST', headers: { ...headers(via, token), 'content-type': 'application/json' }, body: JSON.stringify(body) })).json<Env<T>>();
  const login = (via: Instance, username: string, password = PASSWORD) =>
    post<{ userInfo: { token: string; refresh_token: string; username: string } }>(via, '/api/user/checkIn', { tab: 'login', username, password, keep: true });
  const tokenOf = async (name: 'alice' | 'bob' | 'carol'): Promise<string> => {
    if (!tokens[name]) {
      const res = await login(1, name);
      expect(res.code, res.msg).toBe(1);
      tokens[name] = res.data.userInfo.token;
    }
    return tokens[name]!;
  };

  /** A streaming POST through nginx: the response as it arrives. */
  const streamPost = (via: Instance, path: string, body: unknown): Promise<IncomingMessage> => new Promise((resolve, reject) => {
    const data = JSON.stringify(body);
    const req = httpsRequest({
      host: '127.0.0.1', port: nginx.httpsPort, path, method: 'POST', servername: 'example.com', rejectUnauthorized: false, agent: false,
      headers: { host: 'example.com', ...headers(via), 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(data)) },
    }, resolve);
    req.on('error', reject);
    req.end(data);
  });
  const deltas = (sse: string): string => sse.split('\n\n').map((e) => e.replace(/^data: /, '')).filter((d) => d.startsWith('{'))
    .map((d) => JSON.parse(d) as { type: string; delta?: string }).filter((c) => c.type === 'text-delta').map((c) => c.delta).join('');

  it('pins a request to either instance through nginx, and balances across both without the pin', async () => {
    const one = JSON.parse((await viaTls(nginx.httpsPort, '/healthz', { headers: headers(1) })).text) as { instance: string };
    const two = JSON.parse((await viaTls(nginx.httpsPort, '/healthz', { headers: headers(2) })).text) as { instance: string };
    expect(one.instance).not.toBe(two.instance);
    const seen = new Set<string>();
    for (let i = 0; i < 6; i++) seen.add((JSON.parse((await viaTls(nginx.httpsPort, '/healthz')).text) as { instance: string }).instance);
    expect(seen).toEqual(new Set([one.instance, two.instance]));
    // Hashed assets come from the build on disk with a one-year cache, not from an instance.
    const home = await viaTls(nginx.httpsPort, '/ask');
    const asset = /\/_astro\/[^"]+\.js/.exec(home.text)?.[0];
    expect(asset, 'an /_astro/ script on the forum page').toBeTruthy();
    const res = await viaTls(nginx.httpsPort, asset!, { headers: { 'accept-encoding': 'gzip' } });
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.headers['x-request-id'], 'answered by nginx, not Atrium').toBeUndefined();
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(res.headers['content-type']).toMatch(/javascript/);
    // Pages still come from Atrium.
    expect(home.headers['x-request-id']).toBeTruthy();
  });

  it('a session made through one instance works on the other, and a logout on the other ends it on both', async () => {
    const res = await viaTls(nginx.httpsPort, '/api/user/checkIn', {
      method: 'POST', headers: { ...headers(1), 'content-type': 'application/json' },
      body: JSON.stringify({ tab: 'login', username: 'carol', password: PASSWORD, keep: true }),
    });
    const body = res.json<{ code: number; data: { userInfo: { token: string; refresh_token: string } } }>();
    expect(body.code).toBe(1);
    const cookie = ([] as string[]).concat(res.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]).join('; ');
    expect(cookie).toContain('ba-user-token=');
    const { token, refresh_token: refresh } = body.data.userInfo;
    const me = '/api/index/index?requiredLogin=1';
    const profile = await get<{ userInfo: { username: string } }>(2, me, token);
    expect(profile.code).toBe(1);
    expect(profile.data.userInfo.username).toBe('carol');
    // The cookie alone, as a browser sends it.
    const byCookie = await viaTls(nginx.httpsPort, me, { headers: { ...headers(2), cookie } });
    expect(byCookie.json<Env<{ userInfo: { username: string } }>>().data.userInfo.username).toBe('carol');
    // The refresh token made on 1 is rotated by 2.
    const renewed = await post<{ token: string }>(2, '/api/common/refreshToken', { refreshToken: refresh });
    expect(renewed.code).toBe(1);
    expect((await get(1, me, renewed.data.token)).code).toBe(1);
    // Logged out through 2: 1 refuses the token at once.
    expect((await post(2, '/api/user/logout', {}, renewed.data.token)).code).toBe(1);
    const after = await get(1, me, renewed.data.token);
    expect(after.code).toBe(303);
  });

  it.skipIf(!existsSync(CHROMIUM))('Chromium: logged in through instance 1, the member center on instance 2 knows the member', async () => {
    const browser: Browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', `--host-resolver-rules=MAP example.com 127.0.0.1`, '--no-first-run', '--disable-background-networking'],
    });
    try {
      const context = await browser.newContext({ locale: 'zh-CN', ignoreHTTPSErrors: true, extraHTTPHeaders: { 'x-test-instance': '1' } });
      const page = await context.newPage();
      const base = `https://example.com:${nginx.httpsPort}`;
      await page.goto(`${base}/user/login`);
      await page.getByLabel('账户名 / 邮箱 / 手机号').fill('alice');
      await page.getByLabel('密码').fill(PASSWORD);
      await page.getByRole('button', { name: '登录', exact: true }).last().click();
      await page.waitForURL(/\/user\/account\/overview$/);
      // From here on every request of this browser goes to instance 2.
      await context.setExtraHTTPHeaders({ 'x-test-instance': '2' });
      const res = await page.goto(`${base}/user/account/profile`);
      expect(res?.status()).toBe(200);
      expect(page.url()).toBe(`${base}/user/account/profile`);
      await expect.poll(() => page.getByRole('textbox').first().isVisible()).toBe(true);
      expect(await page.content()).toContain('alice');
      const cookies = await context.cookies(base);
      expect(cookies.find((c) => c.name === 'ba-user-token')?.secure).toBe(true);
    } finally {
      await browser.close();
    }
  });

  // Issue 28: menus are data, not code. An administrator adds a link menu and an iframe menu in the
  // console of instance 1, in Chinese; a member of instance 2 sees both in the member center, in
  // English and in Chinese, without a restart; the link menu disabled and the iframe menu deleted
  // there leave it again. Instance 2 holds the member group's rule trees in memory before every
  // change (the member's pages are loaded first), so only the bus's `site:rules` invalidation can
  // make it show or drop an entry.
  it.skipIf(!existsSync(CHROMIUM))('Chromium: menus added, disabled and deleted in the console of instance 1 (zh-cn) show and go in the member center of instance 2 (en, zh-cn)', async () => {
    const DOCS = 'https://docs.example.org';
    const LINK = { name: 'account/nginx-link', title: '运维手册', en: 'Operations handbook', type: 'link', url: 'https://handbook.example.org/' };
    const FRAME = { name: 'account/nginx-frame', title: '内嵌运维文档', en: 'Embedded operations docs', type: 'iframe', url: `${DOCS}/ops` };
    await rt.site.set('user_iframe_allow', DOCS);
    await createUser(rt.db, { username: 'erin', password: PASSWORD, email: 'erin@example.com', groupId: ADMIN_GROUP });
    const [account] = await rt.db.select({ id: userRule.id }).from(userRule).where(and(eq(userRule.name, 'account'), eq(userRule.type, 'menu_dir')));
    // The browser visits https://example.com/ itself (port 443, as a visitor of the real site): on
    // the test port, nginx's `Host $host` drops the port the console's Origin keeps and every
    // cookie-authenticated POST is refused as cross-site (403 "Cross-site request refused").
    const tunnel = await startHttpsTunnel('example.com', nginx.httpsPort);
    const browser: Browser = await chromium.launch({
      executablePath: CHROMIUM, proxy: { server: tunnel.server },
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
    const base = 'https://example.com';
    /** A browser pinned to one instance, logged in from the page itself (through the tunnel, as Chromium goes). */
    const logIn = async (username: string, lang: 'zh-cn' | 'en', instance: Instance): Promise<Page> => {
      const context = await browser.newContext({ ignoreHTTPSErrors: true, extraHTTPHeaders: { 'x-test-instance': String(instance) } });
      await context.addCookies([{ name: 'ba-lang', value: lang, url: base }]);
      const page = await context.newPage();
      await page.goto(`${base}/user/login`);
      const reply = await page.evaluate(async ([name, password]) => {
        const res = await fetch('/api/user/checkIn', { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify({ tab: 'login', username: name, password, keep: false }) });
        return res.json() as Promise<{ code: number; msg: string }>;
      }, [username, PASSWORD] as const);
      expect(reply.code, reply.msg).toBe(1);
      return page;
    };
    const setLang = (page: Page, lang: 'zh-cn' | 'en') => page.context().addCookies([{ name: 'ba-lang', value: lang, url: base }]);
    try {
      const admin = await logIn('erin', 'zh-cn', 1);
      const member = await logIn('alice', 'en', 2);
      await member.route(`${DOCS}/**`, (route) => route.fulfill({ contentType: 'text/html', body: '<h1>Embedded operations</h1>' }));
      const nav = member.locator('#member-menu');
      /** The member-center menu's entries as instance 2 renders them now. */
      const entries = async (): Promise<string[]> => {
        const res = await member.goto(`${base}/user/account/overview`);
        expect(res?.status()).toBe(200);
        return nav.getByRole('link').allTextContents();
      };
      // Instance 2 builds (and keeps) the member group's trees in both languages before any change.
      await setLang(member, 'zh-cn');
      expect(await entries()).not.toContain(LINK.title);
      await setLang(member, 'en');
      expect(await entries()).not.toContain(LINK.en);

      // The console of instance 1, in Chinese.
      const console1 = async (): Promise<void> => {
        const res = await admin.goto(`${base}/admin/groups`);
        expect(res?.status()).toBe(200);
      };
      await console1();
      for (const menu of [LINK, FRAME]) {
        await admin.getByText(zhAdmin['admin.rules.new'], { exact: true }).click();
        const form = admin.locator('form[data-api="/api/admin/ruleCreate"]');
        await form.locator('select[name=pid]').selectOption(String(account!.id));
        await form.locator('select[name=type]').selectOption('menu');
        await form.getByLabel(zhAdmin['admin.rules.title'], { exact: true }).fill(menu.title);
        await form.getByLabel(zhAdmin['admin.rules.titleEn'], { exact: true }).fill(menu.en);
        await form.getByLabel(zhAdmin['admin.rules.name'], { exact: true }).fill(menu.name);
        await form.locator('select[name=menu_type]').selectOption(menu.type);
        await form.getByLabel(zhAdmin['admin.rules.url'], { exact: true }).fill(menu.url);
        await form.getByRole('button', { name: zhAdmin['admin.rules.createSubmit'] }).click();
        // Saved, the console reloads with the reply's message and the new rule in its tree.
        await admin.locator('[data-admin-flash]', { hasText: zhAdmin['admin.rules.created'] }).waitFor({ timeout: scaled(15_000) });
        await admin.locator('.admin-rule-title', { hasText: menu.title }).waitFor({ timeout: scaled(5000) });
      }
      expect((await rt.db.select({ name: userRule.name }).from(userRule).where(like(userRule.name, 'account/nginx-%'))).length).toBe(2);

      // Instance 2, in English: both entries, the link to the other site, the iframe sandboxed.
      await expect.poll(entries, { timeout: scaled(5000) }).toEqual(expect.arrayContaining([LINK.en, FRAME.en]));
      expect(await nav.getByRole('link', { name: LINK.en }).getAttribute('href')).toBe(LINK.url);
      await nav.getByRole('link', { name: FRAME.en }).click();
      await member.waitForURL(/\/user\/iframe\//);
      expect(await member.locator('iframe.member-iframe').getAttribute('sandbox')).toMatch(/allow-scripts/);
      await member.frameLocator('iframe.member-iframe').getByRole('heading', { name: 'Embedded operations' }).waitFor({ timeout: scaled(15_000) });
      // And in Chinese, with the Chinese titles.
      await setLang(member, 'zh-cn');
      expect(await entries()).toEqual(expect.arrayContaining([LINK.title, FRAME.title]));
      await setLang(member, 'en');

      // The link menu disabled on instance 1: gone from instance 2.
      await console1();
      await admin.getByRole('button', { name: `${zhAdmin['admin.rules.disable']}: ${LINK.title}`, exact: true }).click();
      await admin.locator('[data-admin-flash]', { hasText: zhAdmin['admin.rules.disabled'] }).waitFor({ timeout: scaled(15_000) });
      await expect.poll(entries, { timeout: scaled(5000) }).not.toContain(LINK.en);
      expect(await entries()).toContain(FRAME.en);

      // The iframe menu deleted (the console asks first, in Chinese): gone from instance 2 too.
      await admin.getByRole('button', { name: `${zhAdmin['admin.rules.delete']}: ${FRAME.title}`, exact: true }).click();
      const dialog = admin.getByRole('dialog', { name: zhAdmin['admin.confirm.title'] });
      await dialog.getByText(zhAdmin['admin.rules.deleteConfirm']).waitFor({ timeout: scaled(5000) });
      await dialog.getByRole('button', { name: zhAdmin['admin.confirm.ok'], exact: true }).click();
      await admin.locator('[data-admin-flash]', { hasText: zhAdmin['admin.rules.deleted'] }).waitFor({ timeout: scaled(15_000) });
      await expect.poll(entries, { timeout: scaled(5000) }).not.toContain(FRAME.en);
      await setLang(member, 'zh-cn');
      const zhEntries = await entries();
      expect(zhEntries).not.toContain(LINK.title);
      expect(zhEntries).not.toContain(FRAME.title);
    } finally {
      await browser.close();
      await tunnel.close();
    }
  });

  it('counts the API rate limit, the per-address login limit and the account lockout across both instances', async () => {
    const bob = await tokenOf('bob');
    for (const key of ['api:127.0.0.1', 'login-ip:127.0.0.1']) await rt.limiter.reset(key);
    // The API limit: half the budget on each instance, then either refuses.
    for (let i = 0; i < API_LIMIT; i++) {
      const res = await viaTls(nginx.httpsPort, '/api/chat/models', { headers: headers(((i % 2) + 1) as Instance) });
      expect(res.status, `call ${i + 1}`).toBe(200);
    }
    for (const via of [1, 2] as const) {
      const refused = await viaTls(nginx.httpsPort, '/api/chat/models', { headers: headers(via) });
      expect(refused.status).toBe(429);
      expect(refused.json().msg).toMatch(/^Too many requests, please try again in \d+ seconds$/);
    }
    // The message stream (answered before Astro) keys the same address: a forged entry does not reopen it.
    const stream = await viaTls(nginx.httpsPort, '/api/interaction/stream', { headers: { ...headers(2, bob), 'x-forwarded-for': '198.51.100.23' } });
    expect(stream.status).toBe(429);
    await rt.limiter.reset('api:127.0.0.1');

    // Logins per address: a forged X-Forwarded-For changes nothing (nginx appends the real one).
    const msgs: string[] = [];
    for (let i = 0; i < LOGIN_IP_LIMIT + 2; i++) {
      const res = await viaTls(nginx.httpsPort, '/api/user/checkIn', {
        method: 'POST', headers: { ...headers(((i % 2) + 1) as Instance), 'content-type': 'application/json', 'x-forwarded-for': `203.0.113.${i + 1}` },
        body: JSON.stringify({ tab: 'login', username: `nobody${i}`, password: 'whatever-1', keep: false }),
      });
      msgs.push(res.json().msg);
    }
    expect(msgs.slice(0, LOGIN_IP_LIMIT)).toEqual(Array(LOGIN_IP_LIMIT).fill('Incorrect account or password'));
    expect(msgs.slice(LOGIN_IP_LIMIT)).toEqual(Array(2).fill('Too many login attempts from your network; please try again in 15 minutes'));
    await rt.limiter.reset('login-ip:127.0.0.1');

    // The account lockout: ten wrong passwords spread over both, then even the right one is refused.
    for (let i = 0; i < 10; i++) expect((await login(((i % 2) + 1) as Instance, 'dave', 'wrong-password9')).msg).toBe('Incorrect account or password');
    for (const via of [1, 2] as const) expect((await login(via, 'dave')).msg).toBe('Too many failed logins; please try again in 60 minutes');
  });

  it('a reply posted through instance 1 shows at once on the page instance 2 had cached', async () => {
    const path = `/ask/info/${ids.post}`;
    const page = (via: Instance) => viaTls(nginx.httpsPort, path, { headers: { 'x-test-instance': String(via), 'accept-language': 'en' } });
    expect((await page(2)).status).toBe(200);
    const cached = await page(2);
    expect(cached.headers['x-atrium-cache']).toBe('hit');
    const text = `Seen everywhere ${Date.now().toString(36)}`;
    const reply = await post(1, '/api/ask/reply', { post_id: ids.post, content: text }, await tokenOf('alice'));
    expect(reply.code, reply.msg).toBe(1);
    // Instance 1 dropped its copy before answering and published the invalidation; instance 2
    // drops its copy when the message arrives (a few ms; here a render on a loaded machine too).
    const sent = Date.now();
    let fresh = await page(2);
    while (!fresh.text.includes(text) && Date.now() - sent < 3000) fresh = await page(2);
    expect(fresh.text).toContain(text);
    // And instance 2 caches the new page again.
    expect((await page(2)).headers['x-atrium-cache']).toBe('hit');
  });

  it('a private message sent through instance 1 reaches the stream instance 2 holds', async () => {
    const bob = await tokenOf('bob');
    const stream = await openSse(`https://127.0.0.1:${nginx.httpsPort}`, '/api/interaction/stream', { host: 'example.com', ...headers(2, bob) });
    try {
      expect(stream.status).toBe(200);
      expect(stream.headers['content-type']).toContain('text/event-stream');
      const first = await stream.waitFor((e) => e.event === 'count', scaled(5000));
      const sent = Date.now();
      const res = await post(1, '/api/interaction/sendMessage', { user_id: ids.bob, content: 'across the proxy' }, await tokenOf('alice'));
      expect(res.code, res.msg).toBe(1);
      const live = await stream.waitFor((e) => e.event === 'message', scaled(3000));
      expect(Date.now() - sent).toBeLessThan(scaled(1500));
      expect(live.data).toMatchObject({ count: Number(first.data.count) + 1, message: { content: 'across the proxy', sender_id: ids.alice } });
    } finally {
      stream.close();
    }
  });

  it('a chat reply streamed through instance 1 unbuffered resumes on instance 2', async () => {
    const chatId = `ngx${Date.now().toString(36)}`;
    const question = 'Where does this reply continue?';
    const res = await streamPost(1, '/api/chat/send', { id: chatId, model: 'slow', messages: [{ id: `u${chatId}`, role: 'user', parts: [{ type: 'text', text: question }] }] });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/event-stream');
    // Through nginx the first words arrive while the model is still writing (60 words, 150 ms apart):
    // a buffered proxy would hold them until the end.
    let seen = '';
    res.setEncoding('utf8');
    for await (const chunk of res) {
      seen += chunk as string;
      if (seen.includes('"text-delta"')) break;
    }
    expect(seen).toContain('"text-delta"');
    expect(seen).not.toContain('"finish"');
    res.destroy();
    // A visitor's reply resumes with their key: sent without one, the reply's headers gave one.
    const key = res.headers['x-chat-key'] as string;
    expect(key).toMatch(/^[\w-]{32}$/);
    const [keyless, resumed] = await Promise.all([
      viaTls(nginx.httpsPort, `/api/chat/stream?id=${chatId}`, { headers: headers(2) }),
      viaTls(nginx.httpsPort, `/api/chat/stream?id=${chatId}`, { headers: { ...headers(2), 'x-chat-key': key } }),
    ]);
    expect(keyless.status).toBe(204);
    expect(resumed.status).toBe(200);
    expect(deltas(resumed.text)).toBe(mockReplyWords(question, 60).join(''));
    expect(resumed.text).toContain('"finish"');
  });

  it.skipIf(NO_SWIFT !== null)('an s3 upload works whichever instance answers each step', async () => {
    const token = await tokenOf('alice');
    const data = randomBytes(300_000);
    const sha1 = createHash('sha1').update(data).digest('hex');
    const meta = { name: 'both.zip', size: data.length, type: 'application/zip', sha1, topic: 'nginx' };
    const prepared = await post<{ key: string; uploadId: string; partSize: number; driver: string }>(1, '/api/upload/prepare', meta, token);
    expect(prepared.code, prepared.msg).toBe(1);
    expect(prepared.data.driver).toBe('s3');
    const { key, uploadId, partSize } = prepared.data;
    const signed = await post<{ urls: Record<string, string> }>(2, '/api/upload/sign', { key, uploadId, partNumbers: [1] }, token);
    expect(signed.code, signed.msg).toBe(1);
    const put = await fetch(signed.data.urls[1]!, { method: 'PUT', body: new Uint8Array(data) });
    expect(put.status).toBe(200);
    const listed = await post<{ parts: { partNumber: number }[] }>(1, '/api/upload/multipart', { op: 'list', key, uploadId }, token);
    expect(listed.data.parts.map((p) => p.partNumber)).toEqual([1]);
    expect((await post(2, '/api/upload/multipart', { op: 'complete', key, uploadId, size: data.length, partSize }, token)).code).toBe(1);
    const callback = await post<{ file: { url: string; size: number } }>(1, '/api/cos/callback', { url: key, ...meta }, token);
    expect(callback.code, callback.msg).toBe(1);
    expect(callback.data.file).toMatchObject({ url: `/${key}`, size: data.length });
    const [row] = await rt.db.select().from(attachment).where(eq(attachment.url, `/${key}`));
    expect(row).toMatchObject({ userId: ids.alice, storage: 's3', size: data.length });
    // The same content again through the other instance: found at once (sha1), no new object.
    const again = await post<{ file?: { url: string } }>(2, '/api/upload/prepare', { ...meta, name: 'again.zip' }, token);
    expect(again.data.file?.url).toBe(`/${key}`);
  });
});
