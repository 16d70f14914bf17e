// What the browser knows of the session (issue 29 item 12): the user-info cookie, read by scripts on
// every subdomain; tokens an older release kept in localStorage are removed.
import { afterEach, describe, expect, it } from 'vitest';
import { clearLegacyTokens, readUser } from '../../src/lib/client/auth-token';

const g = globalThis as Record<string, unknown>;
afterEach(() => { delete g.localStorage; });

describe('user-info cookie', () => {
  it('reads the member from the cookie the server set', () => {
    const value = encodeURIComponent(JSON.stringify({ id: 7, username: 'carol', nickname: '卡萝 Carol', avatar: '', show_open_source_star_time: 0 }));
    expect(readUser(`ba-lang=en; userInfo-v5=${value}; ba-is-dark=false`)).toEqual({ id: 7, username: 'carol', nickname: '卡萝 Carol', avatar: '', show_open_source_star_time: 0 });
  });

  it('is a visitor without the cookie, or with one that does not parse or names no member', () => {
    expect(readUser('')).toEqual({});
    expect(readUser('ba-lang=en')).toEqual({});
    expect(readUser('userInfo-v5=%7Bnot json')).toEqual({});
    expect(readUser(`userInfo-v5=${encodeURIComponent('{"username":"x"}')}`)).toEqual({});
    expect(readUser('userInfo-v5=%E0%A4%A')).toEqual({});
  });

  it('removes the tokens older releases kept in localStorage, and nothing else', () => {
    const m = new Map<string, string>([['ba-user-token', 'tok'], ['userInfo-v5', '{"id":1,"token":"tok","refresh_token":"r"}'], ['ba-is-dark', 'true']]);
    g.localStorage = { removeItem: (k: string) => void m.delete(k), getItem: (k: string) => m.get(k) ?? null };
    clearLegacyTokens();
    expect([...m.keys()]).toEqual(['ba-is-dark']);
  });

  it('does nothing where storage is blocked', () => {
    g.localStorage = { removeItem: () => { throw new Error('SecurityError'); } };
    expect(() => clearLegacyTokens()).not.toThrow();
  });
});
