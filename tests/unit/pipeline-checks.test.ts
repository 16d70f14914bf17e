// The checks the Astro middleware and the Node server's raw routes share (lib/server/pipeline/checks.ts).
import { describe, expect, it } from 'vitest';
import { crossSite, envelopeText, headerToken, holdsDeclaredRule, needLogin, noPermission } from '../../src/lib/server/pipeline/checks';
import { MEMBERS, routeAccess } from '../../src/lib/shared/access';
import type { Runtime } from '../../src/lib/server/runtime';

const headers = (h: Record<string, string>) => (name: string): string | null => h[name] ?? null;

describe('the shared request checks', () => {
  it('read the session token from either header spelling, the standard one first', () => {
    expect(headerToken(headers({ 'ba-user-token': 'a', bausertoken: 'b' }))).toBe('a');
    expect(headerToken(headers({ bausertoken: 'b' }))).toBe('b');
    expect(headerToken(headers({ 'ba-user-token': '', bausertoken: 'b' }))).toBe('b');
    expect(headerToken(headers({}))).toBe('');
  });

  it('refuse a state change from another site when the session came by cookie or the body is a form', () => {
    const other = { origin: 'https://evil.example', host: 'site.test', 'content-type': 'application/json' };
    expect(crossSite(headers(other), 'POST', true, null)).toBe(true);
    expect(crossSite(headers(other), 'POST', false, null)).toBe(false);
    expect(crossSite(headers({ ...other, 'content-type': 'text/plain' }), 'POST', false, null)).toBe(true);
    // Uploads are multipart by nature: only the cookie counts there.
    expect(crossSite(headers({ ...other, 'content-type': 'multipart/form-data; boundary=x' }), 'POST', false, null, false)).toBe(false);
    expect(crossSite(headers(other), 'GET', true, null)).toBe(false);
    expect(crossSite(headers({ ...other, origin: 'http://site.test' }), 'POST', true, null)).toBe(false);
    expect(crossSite(headers({ ...other, origin: 'https://a.example.org' }), 'POST', true, 'example.org')).toBe(false);
  });

  it("refuse a member whose group holds none of a route's declared rules, and nobody else", async () => {
    const runtime = { rules: { forGroup: async (groupId: number) => (groupId === 2 ? [{ name: 'admin', children: [{ name: 'admin/reports' }] }] : []) } } as unknown as Runtime;
    const open = routeAccess({ GET: { ...MEMBERS } });
    const ruled = routeAccess({ GET: { ...MEMBERS }, rule: 'admin/reports' });
    const either = routeAccess({ GET: { ...MEMBERS }, rule: ['admin/members', 'admin/reports'] });
    expect(await holdsDeclaredRule(runtime, open, 1, 'en')).toBe(true);
    expect(await holdsDeclaredRule(runtime, ruled, 1, 'en')).toBe(false);
    expect(await holdsDeclaredRule(runtime, ruled, 2, 'en')).toBe(true);
    expect(await holdsDeclaredRule(runtime, either, 2, 'en')).toBe(true);
    expect(await holdsDeclaredRule(runtime, ruled, null, 'en')).toBe(true);
    expect(await holdsDeclaredRule(runtime, undefined, 1, 'en')).toBe(true);
  });

  it('word refusals as the envelope, in the order code, msg, data, time', () => {
    expect(noPermission('en')).toEqual({ status: 200, body: { code: 401, msg: 'You do not have permission to operate!', data: null } });
    expect(needLogin('en', false).body).toMatchObject({ code: 303, data: { type: 'need login' } });
    expect(needLogin('en', true, []).body).toMatchObject({ code: 409, data: [] });
    expect(Object.keys(JSON.parse(envelopeText({ code: 1, msg: '', data: { a: 1 } })))).toEqual(['code', 'msg', 'data', 'time']);
  });
});
