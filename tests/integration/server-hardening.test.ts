// The built server's answers to what a prober sends it, and what it leaves on disk (issue 24,
// findings 4, 5, 6, 8, 11c, 11d): a proxy trust anyone could use, methods it does not implement,
// the modes of DATA_DIR, the upload reply's address under a forged Host, /healthz while Redis is
// down, and the status of a login the per-address limit refuses.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, cpSync, existsSync, lstatSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../src/lib/server/env';
import { createRuntime } from '../../src/lib/server/boot/runtime';
import { createUser } from '../../src/lib/server/account/users';
import { createClickCaptcha, clickCaptchaKey } from '../../src/lib/server/captcha/click-captcha';
import { captcha } from '../../src/lib/server/db/schema';
import { CHAT_SEND_PATH } from '../../src/server/chat-send';
import { COUNT_PATH, STREAM_PATH } from '../../src/server/stream';
import { postJson, raw, startServer, type TestServer } from '../helpers/server';
import { startInProcess, type InProcessServer } from '../helpers/in-process';
import { png } from '../helpers/files';
import { freePort } from '../helpers/ports';
import { ROOT, TEMPLATE_DIR, TMP } from '../helpers/paths';
import { rawExchange } from '../helpers/raw-exchange';
import { scaled } from '../helpers/time-scale.mjs';

const dirs: string[] = [];
afterAll(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }); });

type Envelope = { code: number; msg: string; data: unknown; time: number };

/**
 * A data folder with member `paula` (password `right-password1`), the login captcha off, and one
 * click captcha already made: its id and the clicks that solve it (the server holds PGlite's lock
 * once it runs, so the answer is read before).
 */
async function preparedData(): Promise<{ dataDir: string; captchaId: string; captchaInfo: string }> {
  const dataDir = mkdtempSync(join(TMP, 'harden-'));
  dirs.push(dataDir);
  cpSync(TEMPLATE_DIR, dataDir, { recursive: true });
  const rt = await createRuntime(readConfig({ ATRIUM_ROOT: ROOT, DATA_DIR: dataDir, LOG_LEVEL: 'warn' }));
  const captchaId = `t${Date.now().toString(36)}`;
  try {
    await createUser(rt.db, { username: 'paula', password: 'right-password1', email: 'paula@example.com' });
    await rt.site.set('user_login_captcha', '0');
    await createClickCaptcha(rt.db, captchaId, 'en');
    const [row] = await rt.db.select().from(captcha).where(eq(captcha.key, clickCaptchaKey(captchaId)));
    const stored = JSON.parse(row!.captcha) as { text: { x: number; y: number; width: number; height: number }[]; width: number; height: number };
    const clicks = stored.text.map((b) => `${Math.round(b.x + b.width / 2)},${Math.round(b.y + b.height / 2)}`).join('-');
    return { dataDir, captchaId, captchaInfo: `${clicks};${stored.width};${stored.height}` };
  } finally {
    await rt.close();
  }
}

async function loginToken(url: string, extra: Record<string, string> = {}): Promise<string> {
  const res = await postJson(url, '/api/user/checkIn', { tab: 'login', username: 'paula', password: 'right-password1', keep: false }, { 'think-lang': 'en', ...extra });
  const body = res.json<Envelope & { data: { userInfo: { token: string } } }>();
  if (body.code !== 1) throw new Error(`login failed: ${res.text}`);
  return body.data.userInfo.token;
}

async function upload(url: string, token: string, headers: Record<string, string> = {}): Promise<{ url: string; full_url: string }> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(png(3, 3, Math.floor(Math.random() * 250)))], { type: 'image/png' }), 'dot.png');
  const req = new Request(`${url}/api/ajax/upload`, { method: 'POST', body: form });
  const body = Buffer.from(await req.arrayBuffer());
  const res = await raw(url, '/api/ajax/upload', { method: 'POST', body, headers: { 'content-type': req.headers.get('content-type')!, 'ba-user-token': token, 'think-lang': 'en', ...headers } });
  const reply = res.json<Envelope & { data: { file: { url: string; full_url: string } } }>();
  if (reply.code !== 1) throw new Error(`upload failed: ${res.text}`);
  return reply.data.file;
}


describe('TRUST_PROXY on an address beyond loopback', () => {
  it('refuses to start when a number of proxies would trust every peer, and names the fix', async () => {
    for (const [trust, host] of [['1', '0.0.0.0'], ['2', '::']]) {
      const started = startServer({ env: { TRUST_PROXY: trust!, HOST: host! }, startTimeout: scaled(50_000) });
      const error = await started.then(async (s) => { await s.stop(); return null; }, (err: Error) => err);
      expect(error?.message, `TRUST_PROXY=${trust} HOST=${host}`).toMatch(/server exited with 1/);
      expect(error?.message).toContain(`TRUST_PROXY=${trust} believes X-Forwarded-For from any peer, and HOST=${host}`);
      expect(error?.message).toContain('TRUST_PROXY=127.0.0.1');
      expect(error?.message).toContain('HOST=127.0.0.1');
    }
  }, scaled(120_000));

  it('starts with the proxies named by address on 0.0.0.0, and with a count of proxies on loopback', async () => {
    for (const env of [{ TRUST_PROXY: '127.0.0.1,::1', HOST: '0.0.0.0' }, { TRUST_PROXY: '1', HOST: '127.0.0.1' }]) {
      const server = await startServer({ env, startTimeout: scaled(60_000) });
      try {
        expect((await raw(server.url, '/healthz')).status).toBe(200);
      } finally {
        await server.stop();
      }
    }
  }, scaled(180_000));
});

describe('methods Atrium does not implement', () => {
  let server: TestServer;
  beforeAll(async () => { server = await startServer({ startTimeout: scaled(60_000) }); }, scaled(90_000));
  afterAll(async () => { await server?.stop(); });

  const API = ['/api/user/checkIn', '/api/ajax/upload', '/api/developer/package', STREAM_PATH, COUNT_PATH, CHAT_SEND_PATH, '/api/no/such'];
  const PAGES = ['/', '/ask', '/healthz', '/metrics', '/storage/nothing.png', '/favicon.svg', '/no-such-page'];

  it('answers 501 with the envelope on /api and a plain line elsewhere, never a 500, and logs no stack', async () => {
    const seen: string[] = [];
    for (const method of ['TRACE', 'TRACK', 'CONNECT', 'PROPFIND', 'MKCOL', 'BREW', 'get']) {
      for (const path of [...API, ...PAGES]) {
        const res = await rawExchange(server.port, `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Language: en\r\nConnection: close\r\n\r\n`);
        const where = `${method} ${path}`;
        seen.push(`${where} ${res.status}`);
        expect(res.status, where).toBe(501);
        expect(res.headers, where).toMatch(/\r\nallow: GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS/i);
        if (path.startsWith('/api/')) {
          expect(res.headers, where).toMatch(/content-type: application\/json/i);
          const body = JSON.parse(res.body) as Envelope;
          expect(body, where).toMatchObject({ code: 0, data: null, msg: `This site does not support the ${method} method` });
          expect(typeof body.time).toBe('number');
        } else {
          expect(res.headers, where).toMatch(/content-type: text\/plain/i);
          expect(res.body.trim(), where).toBe(`This site does not support the ${method} method`);
        }
      }
    }
    expect(seen).toHaveLength(7 * (API.length + PAGES.length));
    // In Chinese by default, and the server goes on answering.
    const zh = await rawExchange(server.port, 'TRACE /api/user/checkIn HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    expect((JSON.parse(zh.body) as Envelope).msg).toBe('本站不支持 TRACE 请求方法');
    expect((await raw(server.url, '/healthz')).status).toBe(200);
    const logs = server.logs();
    expect(logs).not.toMatch(/request failed|\[ERROR\]|unsupported|\n\s+at /);
  });

  it('keeps answering the methods it does implement', async () => {
    expect((await raw(server.url, '/', { method: 'HEAD' })).status).toBe(200);
    const wrong = await raw(server.url, '/api/user/checkIn', { method: 'PUT', headers: { 'think-lang': 'en', origin: server.url } });
    expect(wrong.status).toBe(405);
    expect(wrong.json().msg).toBe('Method not allowed: PUT');
  });
});

/** Every entry under `dir` that group or others may read, write or enter, with its mode. */
function openToOthers(dir: string): string[] {
  const found: string[] = [];
  const visit = (path: string): void => {
    const st = lstatSync(path);
    if (st.isSymbolicLink()) return;
    if (st.mode & 0o077) found.push(`${(st.mode & 0o777).toString(8)} ${path.slice(dir.length) || '/'}`);
    if (st.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(dir);
  return found;
}

describe('DATA_DIR under umask 022', () => {
  let server: TestServer;
  let prepared: Awaited<ReturnType<typeof preparedData>>;
  beforeAll(async () => {
    prepared = await preparedData();
    // What a site started before this fix left: world-readable folders and files (and no mark
    // saying the tree was made owner-only).
    rmSync(join(prepared.dataDir, '.owner-only'), { force: true });
    chmodSync(prepared.dataDir, 0o755);
    chmodSync(join(prepared.dataDir, 'db'), 0o755);
    chmodSync(join(prepared.dataDir, 'db', 'PG_VERSION'), 0o644);
    expect(openToOthers(prepared.dataDir).length).toBeGreaterThan(0);
    server = await startServer({ dataDir: prepared.dataDir, umask: '022', startTimeout: scaled(60_000) });
  }, scaled(120_000));
  afterAll(async () => { await server?.stop(); });

  it('is the owner\'s alone: folders 0700 and files 0600, the old ones and those written since', async () => {
    const token = await loginToken(server.url);
    const file = await upload(server.url, token);
    const sent = await postJson(server.url, '/api/ems/send', { email: 'someone@example.com', event: 'user_register', captchaId: prepared.captchaId, captchaInfo: prepared.captchaInfo }, { 'think-lang': 'en' });
    expect(sent.json().code).toBe(1);
    const outbox = join(prepared.dataDir, 'outbox');
    expect(readdirSync(outbox).some((f) => f.includes('someone@example.com'))).toBe(true);
    expect(existsSync(join(prepared.dataDir, file.url))).toBe(true);
    expect(openToOthers(prepared.dataDir)).toEqual([]);
    expect(lstatSync(prepared.dataDir).mode & 0o777).toBe(0o700);
    expect(lstatSync(join(prepared.dataDir, file.url)).mode & 0o777).toBe(0o600);
  });
});

describe('the upload reply\'s full_url', () => {
  let server: InProcessServer;
  let site: InProcessServer;
  let token = '';
  let siteToken = '';
  beforeAll(async () => {
    server = await startInProcess();
    site = await startInProcess({ SITE_URL: 'https://example.com' });
    for (const s of [server, site]) {
      await createUser(s.runtime.db, { username: 'paula', password: 'right-password1' });
      await s.runtime.site.set('user_login_captcha', '0');
    }
    token = await loginToken(server.url);
    siteToken = await loginToken(site.url);
  }, scaled(120_000));
  afterAll(async () => { await server?.stop(); await site?.stop(); });

  it('never names a forged Host: relative without SITE_URL, SITE_URL\'s origin with it', async () => {
    const forged = await upload(server.url, token, { host: 'evil.example' });
    expect(forged.full_url).toBe(forged.url);
    expect(forged.url).toMatch(/^\/storage\//);
    // A loopback Host (a local run) may still be named, as pages do.
    const local = await upload(server.url, token);
    expect(local.full_url).toBe(`//${new URL(server.url).host}${local.url}`);
    const configured = await upload(site.url, siteToken, { host: 'evil.example' });
    expect(configured.full_url).toBe(`https://example.com${configured.url}`);
  });
});

describe('/healthz with Redis', () => {
  let redis: ChildProcess | null = null;
  let server: TestServer;
  let redisPort = 0;
  const startRedis = async (): Promise<void> => {
    redis = spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    for (let i = 0; i < 200; i++) {
      const up = await new Promise<boolean>((resolve) => {
        const s = connect(redisPort, '127.0.0.1', () => { s.end(); resolve(true); });
        s.on('error', () => resolve(false));
      });
      if (up) return;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error('redis-server did not start');
  };
  const stopRedis = async (): Promise<void> => {
    const child = redis;
    redis = null;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  };
  beforeAll(async () => {
    redisPort = await freePort();
    await startRedis();
    server = await startServer({ env: { REDIS_URL: `redis://127.0.0.1:${redisPort}`, REDIS_PREFIX: `hz${Date.now().toString(36)}:` }, startTimeout: scaled(60_000) });
  }, scaled(90_000));
  afterAll(async () => {
    await server?.stop();
    await stopRedis();
  });

  type Health = { status: string; database: string; redis?: string };
  const health = async (): Promise<{ status: number; body: Health }> => {
    const res = await raw(server.url, '/healthz');
    return { status: res.status, body: res.json<Health>() };
  };
  const until = async (want: number): Promise<{ status: number; body: Health }> => {
    for (let i = 0; i < 100; i++) {
      const h = await health();
      if (h.status === want) return h;
      await new Promise((r) => setTimeout(r, 100));
    }
    return health();
  };

  it('reports each dependency, and answers 503 while Redis is down and 200 once it is back', async () => {
    expect(await health()).toEqual({ status: 200, body: expect.objectContaining({ status: 'ok', database: 'up', redis: 'up' }) });
    await stopRedis();
    const down = await until(503);
    expect(down).toEqual({ status: 503, body: expect.objectContaining({ status: 'unavailable', database: 'up', redis: 'down' }) });
    await startRedis();
    expect(await until(200)).toEqual({ status: 200, body: expect.objectContaining({ status: 'ok', redis: 'up' }) });
  });

  it('says nothing of Redis where none is configured', async () => {
    const plain = await startInProcess();
    try {
      const res = await raw(plain.url, '/healthz');
      expect(res.status).toBe(200);
      expect(res.json<Health>()).not.toHaveProperty('redis');
    } finally {
      await plain.stop();
    }
  });
});

describe('a login the per-address limit refuses', () => {
  let server: InProcessServer;
  beforeAll(async () => {
    server = await startInProcess({ LOGIN_IP_LIMIT: '2' });
    await server.runtime.site.set('user_login_captcha', '0');
  });
  afterAll(async () => { await server?.stop(); });

  it('answers HTTP 429 with Retry-After and the message, like the other limits', async () => {
    const replies = [];
    for (let i = 0; i < 3; i++) {
      replies.push(await postJson(server.url, '/api/user/checkIn', { tab: 'login', username: `nobody${i}`, password: 'whatever-1', keep: false }, { 'think-lang': 'en' }));
    }
    expect(replies.map((r) => r.status)).toEqual([200, 200, 429]);
    expect(replies[2]!.json()).toMatchObject({ code: 0, data: null });
    expect(replies[2]!.json().msg).toMatch(/^Too many login attempts from your network; please try again in \d+ minutes$/);
    expect(Number(replies[2]!.headers['retry-after'])).toBeGreaterThan(0);
  });
});
