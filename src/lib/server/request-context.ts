import { randomBytes } from 'node:crypto';
import { DEFAULT_LOCALE, isLocale, type Locale } from '../i18n';
import { areaOfHost, type HostContext } from '../shared/hosts';
import { forwardedClientIp, type ProxyTrust } from './proxy';
import { LRUCache } from 'lru-cache';
import { HOT_GET } from './lru-hot';

export type Theme = 'dark' | 'light' | 'auto';

/** The member behind a request, filled by the session layer. */
export interface SessionUser {
  id: number;
  username: string;
  nickname: string;
  avatar: string;
}

/** HttpOnly cookie holding the access token: pages and the site's own API calls authenticate with it. */
export const SESSION_COOKIE = 'ba-user-token';
/** HttpOnly cookie with the refresh token of a "keep me logged in" session. */
export const REFRESH_COOKIE = 'ba-user-refresh';
/** The spec's user-info cookie (§3 key, §9: 30 days, strict same-site): what scripts may read, no token. */
export const USER_INFO_COOKIE = 'userInfo-v5';
export const LANG_COOKIE = 'ba-lang';
export const THEME_COOKIE = 'ba-is-dark';

/** Reads one cookie from a Cookie header without parsing the rest. */
export function readCookie(header: string | null | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      try { return decodeURIComponent(part.slice(eq + 1).trim()); } catch { return undefined; }
    }
  }
  return undefined;
}

/** Cookie `ba-lang`, else the first supported Accept-Language, else zh-cn. */
export function negotiateLocale(cookieHeader: string | null | undefined, acceptLanguage: string | null | undefined): Locale {
  const fromCookie = readCookie(cookieHeader, LANG_COOKIE)?.toLowerCase();
  if (isLocale(fromCookie)) return fromCookie;
  const header = acceptLanguage ?? '';
  const known = byAcceptLanguage.get(header, HOT_GET);
  if (known) return known;
  const locale = fromAcceptLanguage(header);
  // Browsers send a handful of distinct headers: remembering them keeps parsing off the hot path.
  byAcceptLanguage.set(header, locale);
  return locale;
}

const byAcceptLanguage = new LRUCache<string, Locale>({ max: 500 });

function fromAcceptLanguage(acceptLanguage: string): Locale {
  const ranked = (acceptLanguage ?? '')
    .split(',')
    .map((part, i) => {
      const [tag = '', ...params] = part.trim().toLowerCase().split(';');
      const q = Number(params.find((p) => p.trim().startsWith('q='))?.trim().slice(2) ?? 1);
      return { tag, q: Number.isFinite(q) ? q : 0, i };
    })
    .filter((x) => x.tag && x.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i);
  for (const { tag } of ranked) {
    if (tag === 'zh' || tag.startsWith('zh-')) return 'zh-cn';
    if (tag === 'en' || tag.startsWith('en-')) return 'en';
  }
  return DEFAULT_LOCALE;
}

export function negotiateTheme(cookieHeader: string | null | undefined): Theme {
  const v = readCookie(cookieHeader, THEME_COOKIE);
  return v === 'true' || v === '1' ? 'dark' : v === 'false' || v === '0' ? 'light' : 'auto';
}

// Request ids only need to be unique per log, not secret: a random process prefix and a counter
// cost nothing, where crypto.randomBytes on every request was a tenth of a cached page's CPU time.
const ID_PREFIX = randomBytes(3).toString('hex');
let idCounter = 0;

export function newRequestId(): string {
  idCounter = (idCounter + 1) % Number.MAX_SAFE_INTEGER;
  return `${ID_PREFIX}-${idCounter.toString(36)}`;
}

/** What the HTTP server works out before Astro runs; the middleware recomputes it under `astro dev`. */
export interface RequestBasics {
  requestId: string;
  locale: Locale;
  theme: Theme;
  host: HostContext;
}

/** areaOfHost per Host header, remembered (bounded: the header is the client's to choose). */
const areas = new LRUCache<string, { area: HostContext['area']; port: string }>({ max: 256 });
let areasDomain: string | null | undefined;
export function areaOfHostCached(host: string | undefined, siteDomain: string | null): { area: HostContext['area']; port: string } {
  if (areasDomain !== siteDomain) { areas.clear(); areasDomain = siteDomain; }
  const key = host ?? '';
  let found = areas.get(key, HOT_GET);
  if (!found) {
    found = areaOfHost(host, siteDomain);
    areas.set(key, found);
  }
  return found;
}

export function requestBasics(headers: { cookie?: string | null; acceptLanguage?: string | null; host?: string | null }, siteDomain: string | null): RequestBasics {
  const { area, port } = areaOfHostCached(headers.host ?? undefined, siteDomain);
  return {
    requestId: newRequestId(),
    locale: negotiateLocale(headers.cookie, headers.acceptLanguage),
    theme: negotiateTheme(headers.cookie),
    host: { area, port, siteDomain },
  };
}

/**
 * The client address; behind trusted proxies the entry of X-Forwarded-For the nearest of them added
 * (counted from the right: whatever the client put on the left is its own claim). `header` reads
 * one request header (web `Headers.get`, or the Node server's reader), `peer` is the socket's address.
 */
export function clientAddress(header: (name: string) => string | null | undefined, peer: string, config: { proxy?: ProxyTrust | null; trustProxy?: boolean }): string {
  return forwardedClientIp(header('x-forwarded-for'), peer, config.proxy ?? config.trustProxy ?? null);
}

/**
 * True when a request's Origin (or, failing that, Referer) is its own host or another host of the
 * same site: state-changing requests authenticated by cookie must come from our own pages.
 */
export function fromOwnSite(source: string | null | undefined, host: string | null | undefined, siteDomain: string | null): boolean {
  if (!source) return false;
  let origin: string;
  try { origin = new URL(source).host.toLowerCase(); } catch { return false; }
  if (origin === (host ?? '').toLowerCase()) return true;
  const bare = origin.split(':')[0] ?? '';
  return !!siteDomain && (bare === siteDomain || bare.endsWith(`.${siteDomain}`));
}

/**
 * Whether a request's Content-Type is one an HTML form (or a no-cors fetch) can send from any site,
 * or absent: such a request must come from our own pages (the middleware, src/server/chat-send.ts).
 */
export function isFormLike(contentType: string | null | undefined): boolean {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  return type === '' || type === 'application/x-www-form-urlencoded' || type === 'multipart/form-data' || type === 'text/plain';
}
