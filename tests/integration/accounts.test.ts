// Member accounts through the HTTP API, in-process so the test can read codes and captchas.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInProcess, type InProcessServer } from '../helpers/in-process';
import { loginAs, solvedCaptcha } from '../helpers/members';
import { postJson, raw } from '../helpers/server';
import { eq, sql } from 'drizzle-orm';
import { user, userGroup, userMoneyLog, userRule, userScoreLog } from '../../src/lib/server/db/schema';
import { adjustMoney, ledgerText } from '../../src/lib/server/account/ledger';
import { createUser } from '../../src/lib/server/account/users';
import { addNotice } from '../../src/lib/server/account/notices';
import { ADMIN_GROUP } from '../../src/lib/server/site/seed';
import { scaled } from '../helpers/time-scale.mjs';

let server: InProcessServer;
let smtp: SMTPServer;
const inbox: { to: string; text: string }[] = [];

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true, disabledCommands: ['STARTTLS', 'AUTH'], logger: false,
    onData(stream, session, callback) {
      let data = '';
      stream.on('data', (c: Buffer) => { data += c.toString(); });
      stream.on('end', () => { inbox.push({ to: session.envelope.rcptTo.map((r) => r.address).join(','), text: data }); callback(); });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const port = (smtp.server.address() as AddressInfo).port;
  server = await startInProcess({ SMTP_HOST: '127.0.0.1', SMTP_PORT: String(port), SMTP_FROM: 'Atrium <no-reply@atrium.test>' });
  await createUser(server.runtime.db, { username: 'alice', password: 'secret123', email: 'alice@example.com', mobile: '13800138000' });
});
afterAll(async () => {
  await server?.stop();
  await new Promise<void>((resolve) => smtp?.close(() => resolve()));
});

/** The six-digit code in a raw message, whatever transfer encoding the mailer chose. */
function codeIn(message: string): string {
  const [head = '', ...rest] = message.split(/\r?\n\r?\n/);
  let body = rest.join('\n\n');
  if (/content-transfer-encoding:\s*base64/i.test(head)) body = Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  else body = body.replace(/=\r?\n/g, '');
  return /\b(\d{6})\b/.exec(body)?.[1] ?? '';
}
type Body = { code: number; msg: string; data: Record<string, unknown> | null };

describe('registration', () => {
  it('registers with an e-mail code read from a real SMTP server', async () => {
    const sent = await postJson(server.url, '/api/ems/send', { email: 'bob@example.com', event: 'user_register', ...(await solvedCaptcha(server.url, server.runtime)) }, { 'think-lang': 'en' });
    expect(sent.json()).toMatchObject({ code: 1, msg: 'The code has been sent' });
    await expect.poll(() => inbox.find((m) => m.to === 'bob@example.com'), { timeout: scaled(5000) }).toBeDefined();
    const mail = inbox.find((m) => m.to === 'bob@example.com')!;
    expect(mail.text).toMatch(/Subject: Sign up - Atrium/);
    const code = codeIn(mail.text);
    expect(code).toMatch(/^\d{6}$/);

    const again = await postJson(server.url, '/api/ems/send', { email: 'bob@example.com', event: 'user_register', ...(await solvedCaptcha(server.url, server.runtime)) }, { 'think-lang': 'en' });
    expect(again.json().msg).toMatch(/^Sent too often; please try again in \d+ seconds$/);

    const res = await postJson(server.url, '/api/user/checkIn', { tab: 'register', username: 'bob', password: 'hunter22', registerType: 'email', email: 'bob@example.com', captcha: code }, { 'think-lang': 'en' });
    const body = res.json<Body>();
    expect(body).toMatchObject({ code: 1, msg: 'Registration succeeded!', data: { routePath: '/user', userInfo: { username: 'bob', nickname: 'bob', email: 'bob@example.com', money: '0.00' } } });
    expect(String((body.data!.userInfo as { token: string }).token)).toMatch(/^[0-9a-f-]{36}$/);
    expect(String(res.headers['set-cookie'])).toMatch(/ba-user-token=[^;]+; .*HttpOnly/i);
    // Signing up logs the member in: the overview's "last login" is this moment, not 0.
    const info = body.data!.userInfo as { last_login_time: number; join_time: number };
    expect(info.last_login_time).toBeGreaterThan(0);
    expect(info.last_login_time).toBe(info.join_time);

    // The code is used up.
    const reuse = await postJson(server.url, '/api/user/checkIn', { tab: 'register', username: 'bob2', password: 'hunter22', registerType: 'email', email: 'bob@example.com', captcha: code }, { 'think-lang': 'en' });
    expect(reuse.json().code).toBe(0);
  });

  it('registers with a text-message code from the outbox', async () => {
    const sent = await postJson(server.url, '/api/sms/send', { mobile: '13900139000', template_code: 'user_register', ...(await solvedCaptcha(server.url, server.runtime)) });
    expect(sent.json().code).toBe(1);
    const dir = join(server.dataDir, 'outbox');
    const file = readdirSync(dir).find((f) => f.includes('13900139000'))!;
    const code = codeIn(readFileSync(join(dir, file), 'utf8'));
    const res = await postJson(server.url, '/api/user/checkIn', { tab: 'register', username: 'carol', password: 'hunter22', registerType: 'mobile', mobile: '13900139000', captcha: code });
    expect(res.json<Body>()).toMatchObject({ code: 1, data: { userInfo: { username: 'carol', mobile: '13900139000', reg_score: 0, score: 0 } } });
  });

  it('gives the site\'s sign-up points: reg_score in the user info (§3), the score and a log entry in both languages', async () => {
    await server.runtime.site.set('reg_score', '25');
    try {
      await postJson(server.url, '/api/sms/send', { mobile: '13900139007', template_code: 'user_register', ...(await solvedCaptcha(server.url, server.runtime)) });
      const dir = join(server.dataDir, 'outbox');
      const file = readdirSync(dir).find((f) => f.includes('13900139007'))!;
      const res = await postJson(server.url, '/api/user/checkIn', { tab: 'register', username: 'rewarded', password: 'hunter22', registerType: 'mobile', mobile: '13900139007', captcha: codeIn(readFileSync(join(dir, file), 'utf8')) });
      const info = (res.json<Body>().data as { userInfo: { id: number; reg_score: number; score: number } }).userInfo;
      expect(info).toMatchObject({ reg_score: 25, score: 25 });
      const [row] = await server.runtime.db.select().from(user).where(eq(user.id, info.id));
      expect(row).toMatchObject({ regScore: 25, score: 25 });
      const [log] = await server.runtime.db.select().from(userScoreLog).where(eq(userScoreLog.userId, info.id));
      expect(log).toMatchObject({ score: 25, before: 0, after: 25 });
      expect(ledgerText(log!, 'en').text).toBe('Signing up');
      expect(ledgerText(log!, 'zh-cn').text).toBe('注册奖励');
    } finally {
      await server.runtime.site.set('reg_score', '0');
    }
  });

  it('voids a code after five wrong tries', async () => {
    await postJson(server.url, '/api/ems/send', { email: 'dave@example.com', event: 'user_register', ...(await solvedCaptcha(server.url, server.runtime)) });
    await expect.poll(() => inbox.find((m) => m.to === 'dave@example.com'), { timeout: scaled(5000) }).toBeDefined();
    const code = codeIn(inbox.find((m) => m.to === 'dave@example.com')!.text);
    const attempt = (c: string) => postJson(server.url, '/api/user/checkIn', { tab: 'register', username: 'dave', password: 'hunter22', registerType: 'email', email: 'dave@example.com', captcha: c }, { 'think-lang': 'en' });
    for (let i = 0; i < 5; i++) expect((await attempt(code === '000000' ? '111111' : '000000')).json().data).toEqual({ fields: { captcha: 'The code is incorrect' } });
    expect((await attempt(code)).json().data).toEqual({ fields: { captcha: 'The code is no longer valid; please request a new one' } });
  });

  it('refuses codes without a solved captcha, and for addresses already registered', async () => {
    const noCaptcha = await postJson(server.url, '/api/ems/send', { email: 'eve@example.com', event: 'user_register' }, { 'think-lang': 'en' });
    expect(noCaptcha.json()).toMatchObject({ code: 0, data: { fields: { captcha: 'The captcha was not passed; please verify again' } } });
    const taken = await postJson(server.url, '/api/ems/send', { email: 'alice@example.com', event: 'user_register', ...(await solvedCaptcha(server.url, server.runtime)) }, { 'think-lang': 'en' });
    expect(taken.json()).toMatchObject({ code: 0, data: { fields: { email: 'This e-mail address is already registered' } } });
  });

  it('says every validation message in both languages', async () => {
    const bad = { tab: 'register', username: '1ab', password: 'a<b', registerType: 'email', email: 'nope', captcha: '' };
    const en = (await postJson(server.url, '/api/user/checkIn', bad, { 'think-lang': 'en' })).json<Body>();
    expect(en.data).toEqual({ fields: {
      username: 'The account must be 3 to 15 characters, start with a letter, and use only letters, digits and underscores',
      password: 'The password must be 6 to 32 characters and must not contain & < > " \'',
      email: 'Please enter a correct e-mail address',
      captcha: 'Please enter the code you received',
    } });
    const zh = (await postJson(server.url, '/api/user/checkIn', { ...bad, registerType: 'mobile', mobile: '123' }, { 'think-lang': 'zh-cn' })).json<Body>();
    expect(zh.data).toMatchObject({ fields: { username: '账户名需为 3 到 15 个字符，以字母开头，只能包含字母、数字和下划线', mobile: '请输入正确的手机号' } });
    const long = (await postJson(server.url, '/api/user/checkIn', { ...bad, username: 'a'.repeat(16) }, { 'think-lang': 'en' })).json<Body>();
    expect((long.data as { fields: Record<string, string> }).fields.username).toMatch(/^The account must be 3 to 15/);
    const unknown = (await postJson(server.url, '/api/user/checkIn', { tab: 'other' }, { 'think-lang': 'en' })).json<Body>();
    expect(unknown.msg).toBe('Unknown operation');
  });
});

describe('login', () => {
  it.each(['alice', 'ALICE', 'alice@example.com', '13800138000'])('logs in with %s', async (account) => {
    const session = await loginAs(server.url, server.runtime, account, 'secret123');
    expect(session.userInfo).toMatchObject({ id: expect.any(Number), username: 'alice' });
    const index = (await raw(server.url, '/api/index/index?requiredLogin=1', { headers: { 'ba-user-token': session.token } })).json<Body>();
    expect(index.code).toBe(1);
    expect(index.data).toMatchObject({ userInfo: { username: 'alice', token: '' }, site: { userInitialize: true } });
    expect((index.data!.menus as { name: string }[]).map((m) => m.name)).toEqual(['account', 'ask', 'developer']);
  });

  it('needs the click captcha', async () => {
    const res = await postJson(server.url, '/api/user/checkIn', { tab: 'login', username: 'alice', password: 'secret123' }, { 'think-lang': 'en' });
    expect(res.json()).toMatchObject({ code: 0, msg: 'The captcha was not passed; please verify again' });
  });

  it('answers unknown accounts and wrong passwords alike, then locks after ten failures', async () => {
    await createUser(server.runtime.db, { username: 'mallory', password: 'rightpass' });
    const tryLogin = async (username: string, password: string) => (await postJson(server.url, '/api/user/checkIn', { tab: 'login', username, password, ...(await solvedCaptcha(server.url, server.runtime)) }, { 'think-lang': 'en' })).json<Body>().msg;
    expect(await tryLogin('nobody_here', 'whatever')).toBe('Incorrect account or password');
    for (let i = 0; i < 10; i++) expect(await tryLogin('mallory', 'wrongpass')).toBe('Incorrect account or password');
    expect(await tryLogin('mallory', 'rightpass')).toBe('Too many failed logins; please try again in 60 minutes');
    for (let i = 0; i < 9; i++) await tryLogin('nobody_here', 'whatever');
    expect(await tryLogin('nobody_here', 'whatever')).toBe('Too many failed logins; please try again in 60 minutes');
  });

  it('answers a logged-in member with 303 logged in', async () => {
    const session = await loginAs(server.url, server.runtime, 'alice', 'secret123');
    const res = await raw(server.url, '/api/user/checkIn', { headers: { 'ba-user-token': session.token } });
    expect(res.json()).toMatchObject({ code: 303, data: { type: 'logged in' } });
  });
});

describe('sessions', () => {
  it('rotates refresh tokens and revokes the family when a used one comes back', async () => {
    const s = await loginAs(server.url, server.runtime, 'alice', 'secret123');
    const first = (await postJson(server.url, '/api/common/refreshToken', { refreshToken: s.refreshToken }, { 'ba-user-token': s.token })).json<{ code: number; data: { type: string; token: string; refresh_token: string } }>();
    expect(first.code).toBe(1);
    expect(first.data.type).toBe('user-refresh');
    expect(first.data.refresh_token).not.toBe(s.refreshToken);
    // The old access token was replaced.
    expect((await raw(server.url, '/api/index/index?requiredLogin=1', { headers: { 'ba-user-token': s.token } })).json().code).toBe(303);
    expect((await raw(server.url, '/api/index/index?requiredLogin=1', { headers: { 'ba-user-token': first.data.token } })).json().code).toBe(1);
    // Replaying the used refresh token (after the concurrency grace) ends the whole session.
    await server.runtime.db.execute(sql.raw(`update token set used_time = used_time - 60 where used_time > 0`));
    const replay = (await postJson(server.url, '/api/common/refreshToken', { refreshToken: s.refreshToken }, { 'think-lang': 'en' })).json();
    expect(replay).toMatchObject({ code: 0, msg: 'Login expired, please login again.' });
    expect((await raw(server.url, '/api/index/index?requiredLogin=1', { headers: { 'ba-user-token': first.data.token } })).json().code).toBe(303);
    expect((await postJson(server.url, '/api/common/refreshToken', { refreshToken: first.data.refresh_token })).json().code).toBe(0);
  });

  it('answers 409 for an expired access token', async () => {
    const s = await loginAs(server.url, server.runtime, 'alice', 'secret123');
    await server.runtime.db.execute(sql.raw(`update token set expire_time = 1 where type = 'user'`));
    // As every code path that changes tokens does: drop the member's cached sessions.
    await server.runtime.sessions.forgetUser(Number(s.userInfo.id));
    const res = (await raw(server.url, '/api/index/index?requiredLogin=1', { headers: { 'ba-user-token': s.token } })).json();
    expect(res).toMatchObject({ code: 409, data: [] });
  });

  it('ends every other session when the password changes', async () => {
    await createUser(server.runtime.db, { username: 'frank', password: 'oldpass1' });
    const laptop = await loginAs(server.url, server.runtime, 'frank', 'oldpass1');
    const phone = await loginAs(server.url, server.runtime, 'frank', 'oldpass1');
    const wrong = (await postJson(server.url, '/api/account/changePassword', { oldPassword: 'nope', newPassword: 'newpass1' }, { 'ba-user-token': laptop.token, 'think-lang': 'en' })).json();
    expect(wrong).toMatchObject({ code: 0, data: { fields: { oldPassword: 'The old password is incorrect' } } });
    const changed = (await postJson(server.url, '/api/account/changePassword', { oldPassword: 'oldpass1', newPassword: 'newpass1' }, { 'ba-user-token': laptop.token })).json();
    expect(changed.code).toBe(1);
    expect((await raw(server.url, '/api/index/index?requiredLogin=1', { headers: { 'ba-user-token': laptop.token } })).json().code).toBe(1);
    expect((await raw(server.url, '/api/index/index?requiredLogin=1', { headers: { 'ba-user-token': phone.token } })).json().code).toBe(303);
    expect((await postJson(server.url, '/api/common/refreshToken', { refreshToken: phone.refreshToken })).json().code).toBe(0);
    await loginAs(server.url, server.runtime, 'frank', 'newpass1');
  });

  it('logs out with either spelling of the refresh token', async () => {
    const s = await loginAs(server.url, server.runtime, 'alice', 'secret123');
    expect((await postJson(server.url, '/api/user/logout', { refresh_token: s.refreshToken }, { 'ba-user-token': s.token })).json().code).toBe(1);
    expect((await raw(server.url, '/api/index/index?requiredLogin=1', { headers: { 'ba-user-token': s.token } })).json().code).toBe(303);
    expect((await postJson(server.url, '/api/common/refreshToken', { refreshToken: s.refreshToken })).json().code).toBe(0);
  });

  it('authenticates pages by cookie and refuses cross-site state changes', async () => {
    const s = await loginAs(server.url, server.runtime, 'alice', 'secret123');
    const page = await raw(server.url, '/user/account/overview', { headers: { cookie: s.cookie } });
    expect(page.status).toBe(200);
    expect(page.text).toContain('data-layout="user"');
    expect(page.text).toContain('href="/user/account/profile"');
    const foreign = await postJson(server.url, '/api/account/changePassword', { oldPassword: 'secret123', newPassword: 'pwned123' }, { cookie: s.cookie, origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    const own = await postJson(server.url, '/api/user/logout', {}, { cookie: s.cookie, origin: server.url });
    expect(own.json().code).toBe(1);
  });

  it('logs a disabled member out on the next request', async () => {
    const row = await createUser(server.runtime.db, { username: 'grace', password: 'gracepw1' });
    const s = await loginAs(server.url, server.runtime, 'grace', 'gracepw1');
    await server.runtime.db.execute(sql.raw(`update "user" set status = 'disable' where id = ${row.id}`));
    await server.runtime.sessions.forgetUser(row.id);
    expect((await raw(server.url, '/api/index/index?requiredLogin=1', { headers: { 'ba-user-token': s.token } })).json().code).toBe(303);
  });
});

describe('password reset and new bindings', () => {
  async function mailedCode(address: string, event: string): Promise<string> {
    const before = inbox.filter((m) => m.to === address).length;
    const sent = await postJson(server.url, '/api/ems/send', { email: address, event, ...(await solvedCaptcha(server.url, server.runtime)) }, { 'think-lang': 'en' });
    expect(sent.json().code, sent.text).toBe(1);
    await expect.poll(() => inbox.filter((m) => m.to === address).length, { timeout: scaled(5000) }).toBe(before + 1);
    return codeIn(inbox.filter((m) => m.to === address).at(-1)!.text);
  }

  it('resets a forgotten password by e-mail and ends every session', async () => {
    await createUser(server.runtime.db, { username: 'heidi', password: 'forgot11', email: 'heidi@example.com' });
    const old = await loginAs(server.url, server.runtime, 'heidi', 'forgot11');
    const unknown = await postJson(server.url, '/api/ems/send', { email: 'ghost@example.com', event: 'user_retrieve_pwd', ...(await solvedCaptcha(server.url, server.runtime)) }, { 'think-lang': 'en' });
    expect(unknown.json()).toMatchObject({ code: 0, data: { fields: { email: 'No account uses this e-mail address' } } });
    const code = await mailedCode('heidi@example.com', 'user_retrieve_pwd');
    const reset = await postJson(server.url, '/api/account/retrievePassword', { type: 'email', account: 'heidi@example.com', captcha: code, password: 'remembered1' }, { 'think-lang': 'en' });
    expect(reset.json()).toMatchObject({ code: 1, msg: 'Your password was reset; log in with the new one' });
    expect((await raw(server.url, '/api/index/index?requiredLogin=1', { headers: { 'ba-user-token': old.token } })).json().code).toBe(303);
    await loginAs(server.url, server.runtime, 'heidi@example.com', 'remembered1');
  });

  it('changes a bound e-mail only with a pass token from the current address', async () => {
    await createUser(server.runtime.db, { username: 'ivan', password: 'ivanpass1', email: 'ivan@example.com' });
    const s = await loginAs(server.url, server.runtime, 'ivan', 'ivanpass1');
    const auth = { 'ba-user-token': s.token, 'think-lang': 'en' };
    const newCode = await mailedCode('ivan.new@example.com', 'user_change_email');
    const withoutPass = await postJson(server.url, '/api/account/changeBind', { type: 'email', email: 'ivan.new@example.com', captcha: newCode }, auth);
    expect(withoutPass.json()).toMatchObject({ code: 0, data: { fields: { accountVerificationToken: 'The code is no longer valid; please request a new one' } } });

    const verifyCodeSent = await postJson(server.url, '/api/ems/send', { email: 'ivan@example.com', event: 'user_email_verify', ...(await solvedCaptcha(server.url, server.runtime)) }, auth);
    expect(verifyCodeSent.json().code).toBe(1);
    await expect.poll(() => inbox.filter((m) => m.to === 'ivan@example.com').length, { timeout: scaled(5000) }).toBe(1);
    const pass = (await postJson(server.url, '/api/account/verification', { type: 'email', captcha: codeIn(inbox.filter((m) => m.to === 'ivan@example.com').at(-1)!.text) }, auth)).json<Body>();
    expect(pass).toMatchObject({ code: 1, data: { type: 'email', accountVerificationToken: expect.any(String) } });

    const changed = await postJson(server.url, '/api/account/changeBind', { type: 'email', email: 'ivan.new@example.com', captcha: newCode, accountVerificationToken: pass.data!.accountVerificationToken }, auth);
    expect(changed.json()).toMatchObject({ code: 1, msg: 'The binding was updated' });
    await loginAs(server.url, server.runtime, 'ivan.new@example.com', 'ivanpass1');
  });

  it('refuses a verify code for someone else’s address', async () => {
    const s = await loginAs(server.url, server.runtime, 'alice', 'secret123');
    const res = await postJson(server.url, '/api/ems/send', { email: 'heidi@example.com', event: 'user_email_verify', ...(await solvedCaptcha(server.url, server.runtime)) }, { 'ba-user-token': s.token });
    expect(res.json().code).toBe(401);
  });
});

describe('member-center shell', () => {
  it('embeds only allowed origins in iframe menus', async () => {
    const s = await loginAs(server.url, server.runtime, 'alice', 'secret123');
    const page = (u: string) => raw(server.url, `/user/iframe/${encodeURIComponent(u)}`, { headers: { cookie: s.cookie } });
    expect((await page('https://evil.example/phish')).status).toBe(404);
    await server.runtime.site.set('user_iframe_allow', 'https://docs.example.com');
    const ok = await page('https://docs.example.com/guide');
    expect(ok.status).toBe(200);
    expect(ok.text).toContain('src="https://docs.example.com/guide"');
    expect((await page('javascript:alert(1)')).status).toBe(404);
  });

  it('sends /user to the first menu entry', async () => {
    const s = await loginAs(server.url, server.runtime, 'alice', 'secret123');
    const res = await raw(server.url, '/user', { headers: { cookie: s.cookie } });
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('/user/account/overview');
  });
});

describe('site notices', () => {
  it('lists notices with each member’s own read state', async () => {
    const first = await addNotice(server.runtime.db, 'Maintenance', 'Saturday 02:00–03:00');
    const second = await addNotice(server.runtime.db, 'New feature', 'Daily check-in is live');
    await createUser(server.runtime.db, { username: 'judy', password: 'judypass1' });
    const alice = await loginAs(server.url, server.runtime, 'alice', 'secret123');
    const judy = await loginAs(server.url, server.runtime, 'judy', 'judypass1');
    const list = async (token: string) => (await raw(server.url, '/api/account/notice', { headers: { 'ba-user-token': token } })).json<{ code: number; data: { list: { id: number; read: boolean }[]; total: number; unread: number } }>().data;
    expect(await list(alice.token)).toMatchObject({ total: 2, unread: 2, list: [{ id: second, read: false }, { id: first, read: false }] });
    const marked = await postJson(server.url, '/api/account/notice', { ids: [first, 999999] }, { 'ba-user-token': alice.token });
    expect(marked.json()).toMatchObject({ code: 1, data: { marked: 1 } });
    expect(await list(alice.token)).toMatchObject({ unread: 1, list: [{ id: second, read: false }, { id: first, read: true }] });
    // Alice reading a notice changes nothing for Judy.
    expect((await list(judy.token)).unread).toBe(2);
    const page = await raw(server.url, '/user/account/notice', { headers: { cookie: alice.cookie } });
    expect(page.text).toContain('Maintenance');
    expect(page.text).toContain('data-read="false"');
    expect((await raw(server.url, '/api/account/notice')).json().code).toBe(303);
  });
});

describe('button permissions', () => {
  it('shows and serves the balance export only to groups that have the rule', async () => {
    const member = await createUser(server.runtime.db, { username: 'kate', password: 'katepass1' });
    await adjustMoney(server.runtime.db, member.id, 1250, '=HYPERLINK("x") top-up');
    const kate = await loginAs(server.url, server.runtime, 'kate', 'katepass1');
    const page = await raw(server.url, '/user/account/balance', { headers: { cookie: kate.cookie } });
    expect(page.text).toContain('href="/api/account/balanceExport"');
    const csv = await raw(server.url, '/api/account/balanceExport', { headers: { 'ba-user-token': kate.token } });
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.text).toContain(`"12.50","0.00","12.50","'=HYPERLINK(""x"") top-up"`);

    // A group without the button rule: no button in the page, 401 from the API.
    const rules = await server.runtime.db.select({ id: userRule.id, name: userRule.name }).from(userRule);
    const [readers] = await server.runtime.db.insert(userGroup).values({
      name: 'Readers', rules: rules.filter((r) => r.name !== 'account/balance/export').map((r) => r.id).join(','), status: 1,
    }).returning();
    await server.runtime.db.update(user).set({ groupId: readers!.id }).where(eq(user.id, member.id));
    await server.runtime.sessions.forgetUser(member.id);
    const reader = await loginAs(server.url, server.runtime, 'kate', 'katepass1');
    const limited = await raw(server.url, '/user/account/balance', { headers: { cookie: reader.cookie } });
    expect(limited.status).toBe(200);
    expect(limited.text).not.toContain('balanceExport');
    expect((await raw(server.url, '/api/account/balanceExport', { headers: { 'ba-user-token': reader.token } })).json().code).toBe(401);
  });
});

describe('outbox notice', () => {
  it('tells administrators, and only them, that codes go to the outbox folder under DATA_DIR without SMTP', async () => {
    const plain = await startInProcess();
    try {
      await createUser(plain.runtime.db, { username: 'boss', password: 'bosspass1', groupId: ADMIN_GROUP });
      await createUser(plain.runtime.db, { username: 'staff', password: 'staffpass1' });
      const boss = await loginAs(plain.url, plain.runtime, 'boss', 'bosspass1');
      const staff = await loginAs(plain.url, plain.runtime, 'staff', 'staffpass1');
      const text = (cookie: string) => raw(plain.url, '/user/account/overview', { headers: { cookie } }).then((r) => r.text);
      // The banner names the real folder (DATA_DIR/outbox), not a default the site may not use.
      const dir = plain.runtime.mailer.outboxDir;
      expect(dir).toMatch(/outbox$/);
      expect(dir).not.toBe('data/outbox');
      expect(await text(boss.cookie)).toContain(dir);
      expect(await text(staff.cookie)).not.toContain(dir);
      expect((await raw(plain.url, '/user/login')).text).not.toContain(dir);
    } finally {
      await plain.stop();
    }
  });
});

describe('invoices', () => {
  it('invoices only what the member paid, once, and shows only their own requests', async () => {
    const payer = await createUser(server.runtime.db, { username: 'leo', password: 'leopass11', email: 'leo@example.com' });
    await adjustMoney(server.runtime.db, payer.id, 10_000, 'top-up');
    await adjustMoney(server.runtime.db, payer.id, -3_000, 'module purchase');
    const leo = await loginAs(server.url, server.runtime, 'leo', 'leopass11');
    const auth = { 'ba-user-token': leo.token, 'think-lang': 'en' };
    const before = (await raw(server.url, '/api/account/invoice', { headers: auth })).json<{ code: number; data: { available: string; list: unknown[] } }>();
    expect(before.data).toMatchObject({ available: '30.00', list: [] });

    const bad = await postJson(server.url, '/api/account/invoice', { amount: '1.234', title: 'x', tax_id: 'bad id', email: 'nope' }, auth);
    expect(bad.json().data).toEqual({ fields: {
      amount: 'Please enter a correct amount with at most two decimals',
      title: 'Please enter the invoice title (2 to 120 characters)',
      tax_id: 'The tax id may contain only digits and capital letters',
      email: 'Please enter a correct e-mail address',
    } });
    const zh = await postJson(server.url, '/api/account/invoice', { amount: 'x', title: 'Acme', email: 'leo@example.com' }, { 'ba-user-token': leo.token });
    // Not a number at all: the spec's "Floating point number" (§5).
    expect(zh.json().data).toEqual({ fields: { amount: '浮点数' } });

    // Two requests at once for 20.00 each out of 30.00: exactly one succeeds.
    const both = await Promise.all([1, 2].map(() => postJson(server.url, '/api/account/invoice', { amount: '20', title: 'Acme Ltd', tax_id: '91310000MA1', email: 'leo@example.com' }, auth)));
    expect(both.map((r) => r.json().code).sort()).toEqual([0, 1]);
    expect(both.map((r) => r.json().msg)).toContain('The amount exceeds what can be invoiced: at most 10.00');
    const after = (await raw(server.url, '/api/account/invoice', { headers: auth })).json<{ data: { available: string; list: { status: string; amount: string }[] } }>();
    expect(after.data.available).toBe('10.00');
    expect(after.data.list).toMatchObject([{ status: 'pending', amount: '20.00' }]);

    // Someone else sees none of it.
    const alice = await loginAs(server.url, server.runtime, 'alice', 'secret123');
    expect((await raw(server.url, '/api/account/invoice', { headers: { 'ba-user-token': alice.token } })).json<{ data: { list: unknown[] } }>().data.list).toEqual([]);
    const page = await raw(server.url, '/user/account/invoice', { headers: { cookie: leo.cookie } });
    expect(page.text).toContain('Acme Ltd');
  });
});

describe('one clock', () => {
  it('shows times in the site zone, or in the zone the member chose in the profile, and names it', async () => {
    const member = await createUser(server.runtime.db, { username: 'tz_member', password: 'tzpass123' });
    // 2026-01-01 00:30 UTC: 08:30 in Shanghai, 19:30 the day before in New York.
    await server.runtime.db.insert(userMoneyLog).values({ userId: member.id, money: 100, before: 0, after: 100, memo: 'clock', createTime: 1767227400 });
    await server.runtime.db.update(user).set({ money: 100 }).where(eq(user.id, member.id));
    const me = await loginAs(server.url, server.runtime, 'tz_member', 'tzpass123');
    const balance = () => raw(server.url, '/user/account/balance', { headers: { cookie: me.cookie } }).then((r) => r.text);
    let html = await balance();
    expect(html).toContain('2026-01-01 08:30');
    expect(html).toContain('Asia/Shanghai (UTC+8)');

    const refused = await postJson(server.url, '/api/account/profile', { nickname: 'tz', time_zone: 'Nowhere/Land' }, { 'ba-user-token': me.token });
    expect(refused.json<{ code: number; data: { fields: Record<string, string> } }>().data.fields.time_zone).toBeTruthy();
    const saved = await postJson(server.url, '/api/account/profile', { nickname: 'tz', time_zone: 'America/New_York' }, { 'ba-user-token': me.token });
    expect(saved.json().code).toBe(1);
    html = await balance();
    expect(html).toContain('2025-12-31 19:30');
    expect(html).toContain('America/New_York (UTC-5)');
    expect(html).not.toContain('2026-01-01 08:30');
  });
});
