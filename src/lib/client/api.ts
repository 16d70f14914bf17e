// The request layer: the only place the browser calls fetch. Every reply is `{code, msg, data, time}`;
// HTTP statuses, envelope codes and network failures are turned into one message in the page's
// language (spec §4, §8) and shown once. The session travels in HttpOnly cookies (same-site
// strict, on the site's parent domain): no token header, nothing for a script to read.
import { tc, pageLocale, type ClientKey } from '../i18n/client';
import type { Envelope } from '../shared/codes';
import { carryNote } from './carried-note';
import { hideLoading, showLoading } from './loading';
import type { NotifyOptions } from './notify';

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Query parameters; undefined values are left out. */
  params?: Record<string, string | number | boolean | undefined | null>;
  /** JSON body. */
  data?: unknown;
  /** Multipart body (uploads). */
  form?: FormData;
  /** Show `msg` (or 'Operation successful') on code 1. Default false. */
  showSuccessMessage?: boolean;
  /** Show errors. Default true. */
  showErrorMessage?: boolean;
  /** Show the loading overlay while the call runs. */
  loading?: boolean;
  /** Milliseconds before 'Network request timeout!'. Default 15000. */
  timeout?: number;
  signal?: AbortSignal;
}

/** A call that did not end with code 1: the message was already shown unless the caller opted out. */
export class ApiError extends Error {
  constructor(message: string, readonly code: number, readonly data: unknown, readonly status: number) {
    super(message);
  }
}

/** What the request layer does to the page; replaced in tests. */
export interface ApiEnvironment {
  notify(options: NotifyOptions): void;
  /** A full-page navigation; `note` is shown on the page it leads to. */
  navigate(path: string, note?: NotifyOptions): void;
  currentPath(): string;
  online(): boolean;
  fetch: typeof fetch;
}

const browserEnv: ApiEnvironment = {
  notify: (options) => { void import('./notify').then((m) => m.notify(options)); },
  navigate: (path, note) => {
    if (note) carryNote(note);
    location.assign(path);
  },
  currentPath: () => location.pathname,
  online: () => navigator.onLine,
  fetch: (...args) => fetch(...args),
};
let env: ApiEnvironment = browserEnv;

export function setApiEnvironment(next: Partial<ApiEnvironment>): void {
  env = { ...browserEnv, ...next };
}

const LOGIN_PATH = '/user/login';
const USER_PATH = '/user';

/** The message for an HTTP status (spec §8). */
export function statusMessage(status: number, url: string): string {
  if (status === 404) return `${tc('http.404')}${url}`;
  const key = `http.${status}` as ClientKey;
  return [302, 400, 401, 403, 408, 409, 413, 429, 500, 501, 502, 503, 504, 505].includes(status) ? tc(key) : tc('http.other');
}

function buildUrl(path: string, params: RequestOptions['params']): string {
  if (!params) return path;
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null) search.set(k, String(v));
  const qs = search.toString();
  return qs ? `${path}${path.includes('?') ? '&' : '?'}${qs}` : path;
}

let refreshing: Promise<boolean> | null = null;

/**
 * One refresh for every request that met code 409 at the same time. The refresh token is the
 * HttpOnly cookie's (the server reads it and sets the new cookies), so this works on every subdomain.
 */
function refreshToken(): Promise<boolean> {
  refreshing ??= (async () => {
    try {
      await send('/api/common/refreshToken', { method: 'POST', data: {}, showErrorMessage: false }, false);
      return true;
    } catch {
      return false;
    } finally {
      // Runs after the first await, so every request that met 409 meanwhile shared this refresh.
      refreshing = null;
    }
  })();
  return refreshing;
}

function fail(message: string, code: number, data: unknown, status: number, show: boolean): never {
  if (show && message) env.notify({ type: 'error', message });
  throw new ApiError(message, code, data, status);
}

async function send<T>(path: string, opts: RequestOptions, allowRefresh: boolean, attempt = 0): Promise<Envelope<T>> {
  const show = opts.showErrorMessage !== false;
  const url = buildUrl(path, opts.params);
  const headers: Record<string, string> = { 'think-lang': pageLocale(), server: 'true', accept: 'application/json' };
  let body: BodyInit | undefined;
  if (opts.form) body = opts.form;
  else if (opts.data !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(opts.data);
  }
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException('timeout', 'TimeoutError')), opts.timeout ?? 15_000);
  opts.signal?.addEventListener('abort', () => controller.abort(opts.signal?.reason));
  let response: Response;
  try {
    response = await env.fetch(url, { method: opts.method ?? (body ? 'POST' : 'GET'), headers, body, signal: controller.signal, credentials: 'same-origin' });
  } catch (err) {
    if (opts.signal?.aborted) throw err;
    const timedOut = controller.signal.reason instanceof DOMException && controller.signal.reason.name === 'TimeoutError';
    return fail(tc(timedOut ? 'net.timeout' : env.online() ? 'net.error' : 'net.offline'), 0, null, 0, show);
  } finally {
    clearTimeout(timer);
  }
  if (response.status >= 500 && attempt === 0) return send<T>(path, opts, allowRefresh, 1);

  let reply: Envelope<T> | null = null;
  if ((response.headers.get('content-type') ?? '').includes('json')) {
    reply = (await response.json().catch(() => null)) as Envelope<T> | null;
  }
  if (!reply || typeof reply.code !== 'number') {
    return fail(statusMessage(response.ok ? 500 : response.status, url), 0, null, response.status, show);
  }
  if (reply.code === 1) {
    if (opts.showSuccessMessage) env.notify({ type: 'success', message: reply.msg || tc('op.success') });
    return reply;
  }
  if (reply.code === 409 && allowRefresh) {
    if (await refreshToken()) return send<T>(path, opts, false, attempt);
    return redirect(LOGIN_PATH, reply, response.status, show);
  }
  if (reply.code === 301 || reply.code === 303 || reply.code === 408 || reply.code === 409) {
    const needLogin = (reply.data as { type?: string } | null)?.type === 'need login' || reply.code === 408 || reply.code === 409;
    return redirect(needLogin ? LOGIN_PATH : USER_PATH, reply, response.status, show);
  }
  // Field errors belong beside their fields: forms read them from ApiError.data.fields.
  return fail(reply.msg || statusMessage(response.status >= 400 ? response.status : 500, url), reply.code, reply.data, response.status, show);
}

function redirect(target: string, reply: Envelope<unknown>, status: number, show: boolean): never {
  const here = env.currentPath().replace(/\/+$/, '') || '/';
  if (here !== target) {
    const to = target === LOGIN_PATH ? `${LOGIN_PATH}?to=${encodeURIComponent(env.currentPath())}` : target;
    // Shown on the target page: this one is about to go away with anything shown on it.
    env.navigate(to, show && reply.msg ? { type: 'error', message: reply.msg } : undefined);
  }
  throw new ApiError(reply.msg, reply.code, reply.data, status);
}

/** Calls an Atrium API and returns its envelope; throws ApiError (already shown) unless code is 1. */
export async function request<T = unknown>(path: string, opts: RequestOptions = {}): Promise<Envelope<T>> {
  if (opts.loading) showLoading();
  try {
    return await send<T>(path, opts, true);
  } finally {
    if (opts.loading) hideLoading();
  }
}
