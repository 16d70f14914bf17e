// The route table's declaration is what refuses (issue 25, item 1): a test that changes the rule a
// route declares sees the route close to a member whose group lacks it and open again when the
// rule goes, through the server's own checks (src/server/raw-routes.ts answerRaw and
// lib/server/pipeline/checks.ts holdsDeclaredRule, the function the Astro middleware calls too).
// The server runs in this process, so the declarations changed here are the ones it reads.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInProcess, type InProcessServer } from '../helpers/in-process';
import { loginAs } from '../helpers/members';
import { raw } from '../helpers/server';
import { multipart, png } from '../helpers/files';
import { createUser } from '../../src/lib/server/account/users';
import { ADMIN_GROUP } from '../../src/lib/server/site/seed';
import { RAW_ROUTES } from '../../src/server/raw-routes';
import { access as countAccess } from '../../src/pages/api/interaction/count';
import type { RouteAccess } from '../../src/lib/shared/access';
import { scaled } from '../helpers/time-scale.mjs';

let srv: InProcessServer;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  srv = await startInProcess();
  for (const [name, groupId] of [['ann', 1], ['boss', ADMIN_GROUP]] as const) {
    await createUser(srv.runtime.db, { username: name, password: 'secret-pass1', groupId });
    tokens[name] = (await loginAs(srv.url, srv.runtime, name, 'secret-pass1')).token;
  }
}, scaled(120_000));
afterAll(async () => { await srv?.stop(); });

const headers = (who?: string): Record<string, string> => ({ 'think-lang': 'en', ...(who ? { 'ba-user-token': tokens[who]! } : {}) });
const count = async (who?: string) => (await raw(srv.url, '/api/interaction/count', { headers: headers(who) })).json<{ code: number; msg: string }>();
let seed = 0;
const upload = async (who?: string) => {
  const form = multipart({ field: 'file', name: 'a.png', type: 'image/png', data: png(3, 3, ++seed) });
  const res = await raw(srv.url, '/api/ajax/upload?topic=table', { method: 'POST', headers: { ...headers(who), 'content-type': form.type }, body: form.body });
  return res.json<{ code: number; msg: string }>();
};

/** Runs `fn` with `rule` declared on `access`, then restores the declaration. */
async function withRule(access: RouteAccess, rule: RouteAccess['rule'], fn: () => Promise<void>): Promise<void> {
  const before = access.rule;
  access.rule = rule;
  try { await fn(); } finally { if (before === undefined) delete access.rule; else access.rule = before; }
}

describe('the route table', () => {
  it("closes a route file's path the Node server answers when its declared rule changes, and opens it again", async () => {
    expect(RAW_ROUTES.get('/api/interaction/count')!.access).toBe(countAccess);
    expect((await count('ann')).code).toBe(1);
    await withRule(countAccess, 'admin/reports', async () => {
      const refused = await count('ann');
      expect(refused).toMatchObject({ code: 401, msg: 'You do not have permission to operate!' });
      // A group holding the rule, and a visitor (asked to log in by the route), are not refused by it.
      expect((await count('boss')).code).toBe(1);
      expect((await count()).code).toBe(303);
    });
    expect((await count('ann')).code).toBe(1);
  });

  it('closes an upload path when its declared rule changes, and opens it again', async () => {
    const access = RAW_ROUTES.get('/api/ajax/upload')!.access;
    expect((await upload('ann')).code).toBe(1);
    await withRule(access, ['admin/reports', 'admin/members'], async () => {
      expect(await upload('ann')).toMatchObject({ code: 401, msg: 'You do not have permission to operate!' });
      expect((await upload('boss')).code).toBe(1);
      expect((await upload()).code).toBe(303);
    });
    expect((await upload('ann')).code).toBe(1);
  });

  it("refuses through a raw route's declared checks, in one order: login, origin, rate limit", async () => {
    const route = RAW_ROUTES.get('/api/ajax/upload')!;
    const checks = route.checks!;
    const cookieUpload = async (origin: string, token = tokens.ann!) => {
      const form = multipart({ field: 'file', name: 'a.png', type: 'image/png', data: png(3, 3, ++seed) });
      const res = await raw(srv.url, '/api/ajax/upload?topic=table', { method: 'POST', headers: { 'think-lang': 'en', cookie: `ba-user-token=${token}`, origin, 'content-type': form.type }, body: form.body });
      return res.json<{ code: number; msg: string }>();
    };
    // A session by cookie from another site is refused, and passes once the route no longer declares the origin check.
    expect(await cookieUpload('https://evil.example')).toMatchObject({ code: 0, msg: expect.stringMatching(/origin|site/i) });
    expect((await cookieUpload(srv.url)).code).toBe(1);
    (route as { checks?: unknown }).checks = { ...checks, origin: undefined };
    try {
      expect((await cookieUpload('https://evil.example')).code).toBe(1);
    } finally {
      (route as { checks?: unknown }).checks = checks;
    }
    // Login comes first: a visitor from another site is asked to log in, not refused for the origin.
    expect((await cookieUpload('https://evil.example', 'not-a-token')).code).toBe(303);
    // The limit comes last and counts only calls that passed the others: a cross-site call costs no upload.
    const key = `table-test:${Date.now()}`;
    (route as { checks?: unknown }).checks = { ...checks, limit: () => ({ key, perMinute: 1 }) };
    try {
      expect((await cookieUpload('https://evil.example')).code).toBe(0);
      expect((await cookieUpload(srv.url)).code).toBe(1);
      const limited = await raw(srv.url, '/api/ajax/upload?topic=table', { method: 'POST', headers: { ...headers('ann'), 'content-type': 'multipart/form-data; boundary=x' }, body: '--x--\r\n' });
      expect(limited.status).toBe(429);
      expect(limited.headers['x-content-type-options']).toBe('nosniff');
    } finally {
      (route as { checks?: unknown }).checks = checks;
    }
  });
});
