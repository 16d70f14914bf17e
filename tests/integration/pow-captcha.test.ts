// The captcha without pictures through the HTTP API: a solved ALTCHA challenge sends a sign-up code
// and logs in; the same solution again, an expired challenge or a forged one get the spec's captcha
// error; the operator's setting decides which captchas are accepted; the difficulty rises for an
// address that asks too often.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { solveChallenge, type Challenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/sha';
import { createUser } from '../../src/lib/server/account/users';
import { createPowChallenge, POW_BASE_MAX, POW_FREE, POW_TTL, powSecrets } from '../../src/lib/server/captcha/pow-captcha';
import en from '../../src/lib/i18n/en/account';
import enCaptcha from '../../src/lib/i18n/en/captcha';
import enAdmin from '../../src/lib/i18n/en/admin';
import { startInProcess, type InProcessServer } from '../helpers/in-process';
import { loginAs, solvedCaptcha } from '../helpers/members';
import { postJson, raw } from '../helpers/server';
import { scaled } from '../helpers/time-scale.mjs';

interface Reply<T = unknown> { code: number; msg: string; data: T; time: number }

let server: InProcessServer;
let ipSeq = 0;
// TRUST_PROXY: each test comes from its own address, so difficulty and limits do not spill over.
const from = (): Record<string, string> => ({ 'x-forwarded-for': `198.51.100.${++ipSeq}`, 'think-lang': 'en' });
const refused = { code: 0, msg: en['account.captchaFailed'], data: { fields: { captcha: en['account.captchaFailed'] } } };

beforeAll(async () => {
  server = await startInProcess({ TRUST_PROXY: '1' });
  await createUser(server.runtime.db, { username: 'powalice', password: 'secret123', email: 'powalice@example.com' });
  await createUser(server.runtime.db, { username: 'powboss', password: 'secret123', email: 'powboss@example.com', groupId: 2 });
}, scaled(120_000));
afterAll(async () => { await server?.stop(); });

async function challenge(headers: Record<string, string>): Promise<Challenge> {
  const reply = (await raw(server.url, '/api/common/altcha', { headers })).json<Reply<Challenge>>();
  expect(reply.code, reply.msg).toBe(1);
  return reply.data;
}

/** What the browser sends: ALTCHA's payload, base64 of the challenge and its solution. */
async function solved(c: Challenge): Promise<string> {
  const solution = await solveChallenge({ challenge: c, deriveKey, timeout: 60_000 });
  return Buffer.from(JSON.stringify({ challenge: { parameters: c.parameters, signature: c.signature }, solution })).toString('base64');
}

function latestCode(mobile: string): string {
  const dir = join(server.dataDir, 'outbox');
  const file = readdirSync(dir).filter((f) => f.includes(mobile)).sort().at(-1)!;
  return /\b(\d{6})\b/.exec(readFileSync(join(dir, file), 'utf8'))![1]!;
}

describe('proof-of-work captcha over HTTP', () => {
  it('hands out a signed, expiring SHA-256 challenge in the envelope', async () => {
    const res = await raw(server.url, '/api/common/altcha', { headers: from() });
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.json<Reply<Challenge>>();
    expect(body.code).toBe(1);
    expect(body.data.signature).toMatch(/^[0-9a-f]{64}$/);
    expect(body.data.parameters.algorithm).toBe('SHA-256');
    const now = Date.now() / 1000;
    expect(body.data.parameters.expiresAt).toBeGreaterThan(now + POW_TTL - 10);
    expect(body.data.parameters.expiresAt).toBeLessThanOrEqual(now + POW_TTL + 1);
  });

  it('a solved challenge sends the sign-up code and signs up; the same solution again is refused', async () => {
    const ip = from();
    const payload = await solved(await challenge(ip));
    const sent = await postJson(server.url, '/api/sms/send', { mobile: '13900139101', template_code: 'user_register', altcha: payload }, ip);
    expect(sent.json<Reply>()).toMatchObject({ code: 1 });
    const signedUp = await postJson(server.url, '/api/user/checkIn', {
      tab: 'register', username: 'powbob', password: 'hunter22', registerType: 'mobile', mobile: '13900139101', captcha: latestCode('13900139101'),
    }, ip);
    expect(signedUp.json<Reply>()).toMatchObject({ code: 1, data: { userInfo: { username: 'powbob' } } });

    // Replayed, for another number and by e-mail: used once already.
    const again = await postJson(server.url, '/api/sms/send', { mobile: '13900139102', template_code: 'user_register', altcha: payload }, ip);
    expect(again.json<Reply>()).toMatchObject(refused);
    const byMail = await postJson(server.url, '/api/ems/send', { email: 'powcarol@example.com', event: 'user_register', altcha: payload }, ip);
    expect(byMail.json<Reply>()).toMatchObject(refused);
  });

  it('lets only one of several parallel uses of one solution through', async () => {
    const ip = from();
    const payload = await solved(await challenge(ip));
    const replies = await Promise.all(['13900139111', '13900139112', '13900139113', '13900139114'].map((mobile) =>
      postJson(server.url, '/api/sms/send', { mobile, template_code: 'user_register', altcha: payload }, ip).then((r) => r.json<Reply>().code)));
    expect(replies.filter((c) => c === 1)).toHaveLength(1);
  });

  it('logs in with a solved challenge when the login asks for a captcha, and not twice with it', async () => {
    const ip = from();
    const payload = await solved(await challenge(ip));
    const login = (altcha?: string) => postJson(server.url, '/api/user/checkIn', { tab: 'login', username: 'powalice', password: 'secret123', ...(altcha ? { altcha } : {}) }, ip);
    expect((await login()).json<Reply>()).toMatchObject(refused);
    expect((await login(payload)).json<Reply>()).toMatchObject({ code: 1, data: { userInfo: { username: 'powalice' } } });
    expect((await login(payload)).json<Reply>()).toMatchObject(refused);
  });

  it('refuses an expired challenge, a forged one and garbage with the captcha error', async () => {
    const ip = from();
    const secrets = powSecrets(server.runtime.tokenSecret);
    const expired = await solved(await createPowChallenge(secrets, 0, Math.floor(Date.now() / 1000) - POW_TTL - 5));
    const send = (altcha: string) => postJson(server.url, '/api/sms/send', { mobile: '13900139121', template_code: 'user_register', altcha }, ip);
    expect((await send(expired)).json<Reply>()).toMatchObject(refused);
    // Signed with a key made up by the client: the site's key is derived from its secret.
    const forged = await solved(await createPowChallenge(powSecrets('guessed-secret'), 0));
    expect((await send(forged)).json<Reply>()).toMatchObject(refused);
    // A real challenge with a made-up answer.
    const real = await challenge(ip);
    const wrong = Buffer.from(JSON.stringify({ challenge: real, solution: { counter: 1, derivedKey: '00'.repeat(32) } })).toString('base64');
    expect((await send(wrong)).json<Reply>()).toMatchObject(refused);
    for (const junk of ['not base64!', Buffer.from('{"challenge":1}').toString('base64'), 'x'.repeat(2000)]) {
      expect((await send(junk)).json<Reply>(), junk.slice(0, 20)).toMatchObject(refused);
    }
    // Over the field's limit: a field error, not a parse.
    const huge = (await send('x'.repeat(2001))).json<Reply<{ fields: Record<string, string> }>>();
    expect(huge.code).toBe(0);
    expect(huge.data.fields.altcha).toBeTruthy();
  });

  it('raises the difficulty for an address that asks for many challenges, not for others', async () => {
    const busy = from();
    const counters: number[] = [];
    for (let i = 0; i < POW_FREE * 4 + 1; i++) {
      const c = await challenge(busy);
      if (i === POW_FREE * 4) counters.push((await solveChallenge({ challenge: c, deriveKey, timeout: 60_000 }))!.counter);
    }
    // 41 challenges in the window: level 3, the secret counter at least 8 × the lowest range's floor.
    expect(counters[0]).toBeGreaterThan(POW_BASE_MAX);
    const quiet = await solveChallenge({ challenge: await challenge(from()), deriveKey, timeout: 60_000 });
    expect(quiet!.counter).toBeLessThanOrEqual(POW_BASE_MAX);
  }, scaled(120_000));

  it('accepts only the captchas the operator offers', async () => {
    const ip = from();
    try {
      await server.runtime.site.set('user_captcha_types', 'click');
      const off = (await raw(server.url, '/api/common/altcha', { headers: ip })).json<Reply>();
      expect(off).toMatchObject({ code: 0, msg: enCaptcha['captcha.powOff'] });
      await server.runtime.site.set('user_captcha_types', 'both');
      const payload = await solved(await challenge(ip));
      await server.runtime.site.set('user_captcha_types', 'click');
      const send = (body: Record<string, string>) => postJson(server.url, '/api/sms/send', { mobile: '13900139131', template_code: 'user_register', ...body }, ip);
      expect((await send({ altcha: payload })).json<Reply>()).toMatchObject(refused);

      await server.runtime.site.set('user_captcha_types', 'pow');
      expect((await send(await solvedCaptcha(server.url, server.runtime))).json<Reply>()).toMatchObject(refused);
      expect((await send({ altcha: payload })).json<Reply>()).toMatchObject({ code: 1 });
    } finally {
      await server.runtime.site.set('user_captcha_types', 'both');
    }
  });

  it('is a choice in the admin console\'s member settings, named in the page\'s language, and only its three values are saved', async () => {
    const { cookie } = await loginAs(server.url, server.runtime, 'powboss', 'secret123');
    const page = await raw(server.url, '/admin/settings/user', { headers: { cookie: `${cookie}; ba-lang=en` } });
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/<select name="values\.user_captcha_types"[^>]*>/);
    for (const value of ['both', 'click', 'pow'] as const) {
      expect(page.text).toContain(`<option value="${value}"${value === 'both' ? ' selected' : ''}>${enAdmin[`admin.setting.user_captcha_types.${value}`]}</option>`);
    }
    const save = (value: string) => postJson(server.url, '/api/admin/settings', { values: { user_captcha_types: value } }, { cookie, origin: server.url, 'think-lang': 'en' });
    const bad = (await save('none')).json<Reply<{ fields: Record<string, string> }>>();
    expect(bad.code).toBe(0);
    expect(bad.data.fields['values.user_captcha_types']).toBeTruthy();
    try {
      expect((await save('pow')).json<Reply>().code).toBe(1);
      expect(await server.runtime.site.get('user_captcha_types')).toBe('pow');
      const login = await raw(server.url, '/user/login');
      expect(login.text).toContain('&quot;captchaTypes&quot;:[0,&quot;pow&quot;]');
    } finally {
      await server.runtime.site.set('user_captcha_types', 'both');
    }
  });
});
