import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError, request, setApiEnvironment, statusMessage } from '../../src/lib/client/api';
import type { NotifyOptions } from '../../src/lib/client/notify';

const g = globalThis as Record<string, unknown>;
let notes: NotifyOptions[];
let navigations: string[];
let path: string;
let online: boolean;

function memoryStorage(): Storage {
  const m = new Map<string, string>();
  return {
    getItem: (k) => m.get(k) ?? null, setItem: (k, v) => void m.set(k, String(v)), removeItem: (k) => void m.delete(k),
    clear: () => m.clear(), key: (i) => [...m.keys()][i] ?? null, get length() { return m.size; },
  };
}

const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
const env = (code: number, msg = '', data: unknown = null) => ({ code, msg, data, time: 1 });

function useFetch(...replies: (Response | Error | ((url: string, init: RequestInit) => Response | Promise<Response>))[]) {
  const calls: { url: string; init: RequestInit }[] = [];
  const fetchFn = vi.fn(async (url: string, init: RequestInit) => {
    calls.push({ url, init });
    const next = replies.shift();
    if (!next) throw new Error(`unexpected call ${url}`);
    if (next instanceof Error) throw next;
    return typeof next === 'function' ? next(url, init) : next;
  });
  setApiEnvironment({
    fetch: fetchFn as unknown as typeof fetch,
    notify: (o) => notes.push(o),
    navigate: (p, note) => { navigations.push(p); if (note) notes.push(note); },
    currentPath: () => path,
    online: () => online,
  });
  return calls;
}

beforeEach(() => {
  notes = [];
  navigations = [];
  path = '/ask';
  online = true;
  g.document = { documentElement: { lang: 'en' } };
  g.localStorage = memoryStorage();
});
afterEach(() => {
  delete g.document;
  delete g.localStorage;
});

describe('request layer', () => {
  it('sends the language header, lets the HttpOnly cookie carry the session, and returns the envelope', async () => {
    // A token an older release left in localStorage is not sent: the page never handles tokens.
    localStorage.setItem('ba-user-token', 'tok');
    const calls = useFetch(json(env(1, '', { a: 1 })));
    const reply = await request('/api/index/index', { params: { requiredLogin: 0, skip: undefined } });
    expect(reply.data).toEqual({ a: 1 });
    expect(calls[0]?.url).toBe('/api/index/index?requiredLogin=0');
    const headers = calls[0]?.init.headers as Record<string, string>;
    expect(headers['think-lang']).toBe('en');
    expect(headers['ba-user-token']).toBeUndefined();
    expect(calls[0]?.init.credentials).toBe('same-origin');
    expect(notes).toEqual([]);
  });

  it("shows 'Operation successful' when asked and the reply has no msg", async () => {
    useFetch(json(env(1)));
    await request('/api/x', { data: {}, showSuccessMessage: true });
    expect(notes).toEqual([{ type: 'success', message: 'Operation successful' }]);
  });

  it('shows msg of a business error once and throws', async () => {
    useFetch(json(env(0, 'Name taken', { fields: { name: 'Name taken' } })));
    const err = await request('/api/x', { data: {} }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).data).toEqual({ fields: { name: 'Name taken' } });
    expect(notes).toEqual([{ type: 'error', message: 'Name taken' }]);
  });

  it('shows the message of a limit answered with 429 (the per-address login limit), once and without a retry', async () => {
    const calls = useFetch(json(env(0, 'Too many login attempts from your network; please try again in 15 minutes'), 429));
    const err = await request('/api/user/checkIn', { data: {} }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(429);
    expect(calls).toHaveLength(1);
    expect(notes).toEqual([{ type: 'error', message: 'Too many login attempts from your network; please try again in 15 minutes' }]);
  });

  it('retries once on a 5xx and then reports it', async () => {
    const calls = useFetch(new Response('x', { status: 502 }), new Response('x', { status: 502 }));
    await expect(request('/api/x')).rejects.toBeInstanceOf(ApiError);
    expect(calls).toHaveLength(2);
    expect(notes[0]?.message).toBe('Gateway error!');
  });

  it('succeeds when the retry succeeds', async () => {
    useFetch(new Response('x', { status: 503 }), json(env(1, '', 5)));
    expect((await request('/api/x')).data).toBe(5);
    expect(notes).toEqual([]);
  });

  it('maps HTTP statuses to the spec messages', () => {
    expect(statusMessage(404, '/api/nope')).toBe('Error requesting address:/api/nope');
    expect(statusMessage(401, '')).toBe('You do not have permission to operate!');
    expect(statusMessage(418, '')).toBe('Abnormal problem, please contact the website administrator!');
    g.document = { documentElement: { lang: 'zh-cn' } };
    expect(statusMessage(500, '')).toBe('服务器内部错误！');
  });

  it('says so when offline, on network failure and on timeout', async () => {
    online = false;
    useFetch(new TypeError('fetch failed'));
    await expect(request('/api/x')).rejects.toThrow('You are disconnected!');
    online = true;
    useFetch(new TypeError('fetch failed'));
    await expect(request('/api/x')).rejects.toThrow('Server exception!');
    useFetch((_url, init) => new Promise((_, reject) => init.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')))));
    await expect(request('/api/x', { timeout: 20 })).rejects.toThrow('Network request timeout!');
  });

  it("sends 'need login' to the login page", async () => {
    useFetch(json(env(303, 'Please log in first', { type: 'need login' })));
    await expect(request('/api/x')).rejects.toBeInstanceOf(ApiError);
    expect(navigations).toEqual(['/user/login?to=%2Fask']);
    expect(notes[0]?.message).toBe('Please log in first');
  });

  it("sends 'logged in' to the member center, silently when already there", async () => {
    useFetch(json(env(303, 'You are already logged in', { type: 'logged in' })));
    await expect(request('/api/x')).rejects.toBeInstanceOf(ApiError);
    expect(navigations).toEqual(['/user']);
    path = '/user';
    notes = [];
    useFetch(json(env(303, 'You are already logged in', { type: 'logged in' })));
    await expect(request('/api/x')).rejects.toBeInstanceOf(ApiError);
    expect(navigations).toEqual(['/user']);
    expect(notes).toEqual([]);
  });

  it('refreshes an expired token once, by the refresh cookie, and replays the call', async () => {
    const calls = useFetch(
      json(env(409, 'Token expiration', [])),
      json(env(1, '', { type: 'user-refresh', token: 'new' })),
      json(env(1, '', 'ok')),
    );
    expect((await request('/api/x')).data).toBe('ok');
    expect(calls[1]?.url).toBe('/api/common/refreshToken');
    // No token in the body: the server reads the HttpOnly refresh cookie and sets the new ones.
    expect(JSON.parse(String(calls[1]?.init.body))).toEqual({});
    expect(calls[1]?.init.credentials).toBe('same-origin');
    expect((calls[2]?.init.headers as Record<string, string>)['ba-user-token']).toBeUndefined();
  });

  it('goes to login when the refresh fails', async () => {
    useFetch(json(env(409, 'Token expiration', [])), json(env(0, 'Login expired, please login again.')));
    await expect(request('/api/x')).rejects.toBeInstanceOf(ApiError);
    expect(navigations).toEqual(['/user/login?to=%2Fask']);
  });
});
