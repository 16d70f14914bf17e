import { join, resolve } from 'node:path';
import { parseTrustProxy, type ProxyTrust } from './proxy';
import { readChatEnv, type ChatEnv } from './chat-env';

/** Everything Atrium reads from the environment; docs/operators/configuration.md lists the same (tests/unit/docs-links.test.ts). */
export interface ServerConfig {
  port: number;
  host: string;
  /** Project root: migrations, built client files and docs are found from here. */
  root: string;
  dataDir: string;
  databaseUrl: string | null;
  /** Run embedded PGlite in a worker thread (PGLITE_WORKER=1) instead of on the request thread. */
  pgliteWorker: boolean;
  redisUrl: string | null;
  /** Prefix of every Redis key and channel, so several sites can share one Redis. */
  redisPrefix: string;
  siteDomain: string | null;
  /** Trust X-Forwarded-For / X-Forwarded-Proto from a reverse proxy. */
  trustProxy: boolean;
  /** Which proxies to believe (TRUST_PROXY): null when trustProxy is off. */
  proxy?: ProxyTrust | null;
  /** The public origin (`https://example.com`) absolute URLs and cookie flags follow (SITE_URL). */
  siteUrl?: string | null;
  /** Hosts absolute URLs may name when SITE_URL and SITE_DOMAIN are unset (ALLOWED_HOSTS). */
  allowedHosts?: readonly string[];
  maxBodyBytes: number;
  pageCacheBytes: number;
  /** Requests per minute one IP may send to /api/*. */
  apiRateLimit: number;
  /** Login attempts one IP may make in 15 minutes, whatever the account. */
  loginIpLimit: number;
  /** Open message streams per member and per client address on one instance, oldest closed first (0: no cap). */
  streamCaps?: StreamCaps;
  /** Seconds the browser waits between checks of the build manifest. */
  deployPollSeconds: number;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  /** Start with every module disabled, whatever the wanted state says (ATRIUM_SAFE_MODE=1). */
  safeMode?: boolean;
  /** SMTP and SMS provider settings; unset means the outbox folder. */
  mail: MailSettings;
  /** Overrides the token HMAC key kept in the database. */
  tokenSecret: string | null;
  /** The AI chat model configured by environment (CHAT_*), if any. */
  chat: ChatEnv;
}

function int(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative whole number, got "${value}"`);
  return n;
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  const root = resolve(env.ATRIUM_ROOT ?? process.cwd());
  const level = env.LOG_LEVEL ?? 'info';
  if (!['debug', 'info', 'warn', 'error'].includes(level)) throw new Error(`LOG_LEVEL must be debug, info, warn or error, got "${level}"`);
  const domain = env.SITE_DOMAIN?.trim().toLowerCase().replace(/^\.+|\.+$/g, '') || null;
  if (domain && !/^[a-z0-9-]+(\.[a-z0-9-]+)*$/.test(domain)) throw new Error(`SITE_DOMAIN must be a bare domain like example.com, got "${env.SITE_DOMAIN}"`);
  const proxy = parseTrustProxy(env.TRUST_PROXY);
  return {
    port: int(env.PORT, 4321, 'PORT'),
    host: env.HOST || '0.0.0.0',
    root,
    dataDir: resolve(root, env.DATA_DIR || 'data'),
    databaseUrl: env.DATABASE_URL || null,
    pgliteWorker: !(env.PGLITE_WORKER === '0' || env.PGLITE_WORKER === 'false'),
    redisUrl: env.REDIS_URL || null,
    redisPrefix: env.REDIS_PREFIX || 'atrium:',
    siteDomain: domain,
    trustProxy: proxy !== null,
    proxy,
    siteUrl: readSiteUrl(env.SITE_URL),
    allowedHosts: (env.ALLOWED_HOSTS ?? '').split(',').map((h) => h.trim().toLowerCase()).filter(Boolean),
    maxBodyBytes: int(env.MAX_BODY_BYTES, 16 * 1024 * 1024, 'MAX_BODY_BYTES'),
    pageCacheBytes: int(env.PAGE_CACHE_MB, 64, 'PAGE_CACHE_MB') * 1024 * 1024,
    apiRateLimit: int(env.API_RATE_LIMIT, 600, 'API_RATE_LIMIT'),
    loginIpLimit: int(env.LOGIN_IP_LIMIT, 50, 'LOGIN_IP_LIMIT'),
    streamCaps: {
      perMember: int(env.MESSAGE_STREAMS_PER_MEMBER, MESSAGE_STREAMS_PER_MEMBER, 'MESSAGE_STREAMS_PER_MEMBER'),
      perAddress: int(env.MESSAGE_STREAMS_PER_ADDRESS, MESSAGE_STREAMS_PER_ADDRESS, 'MESSAGE_STREAMS_PER_ADDRESS'),
    },
    deployPollSeconds: int(env.DEPLOY_POLL_SECONDS, 60, 'DEPLOY_POLL_SECONDS'),
    logLevel: level as ServerConfig['logLevel'],
    safeMode: env.ATRIUM_SAFE_MODE === '1' || env.ATRIUM_SAFE_MODE === 'true',
    mail: readMailSettings(env, resolve(root, env.DATA_DIR || 'data')),
    tokenSecret: env.TOKEN_SECRET || null,
    chat: readChatEnv(env),
  };
}

/** `SITE_URL` → its origin (`https://example.com[:port]`); a path or another scheme stops the start. */
function readSiteUrl(value: string | undefined): string | null {
  const v = value?.trim();
  if (!v) return null;
  let url: URL;
  try { url = new URL(v); } catch { throw new Error(`SITE_URL must be an absolute URL like https://example.com, got "${value}"`); }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`SITE_URL must start with https:// or http://, got "${value}"`);
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash || url.username) throw new Error(`SITE_URL is an origin only (no path, query or credentials), got "${value}"`);
  return url.origin;
}

/** Default caps of open message streams (a browser holds one for all its tabs). */
export const MESSAGE_STREAMS_PER_MEMBER = 8;
export const MESSAGE_STREAMS_PER_ADDRESS = 32;

export interface StreamCaps {
  /** Open message streams per member on one instance (0: no cap). */
  perMember: number;
  /** Open message streams per client address on one instance (0: no cap). */
  perAddress: number;
}

export interface MailSettings {
  smtpHost: string | null;
  smtpPort: number;
  smtpSecure: boolean;
  smtpUser: string | null;
  smtpPass: string | null;
  smtpFrom: string;
  smsUrl: string | null;
  smsToken: string | null;
  outboxDir: string;
}

export function readMailSettings(env: NodeJS.ProcessEnv, dataDir: string): MailSettings {
  return {
    smtpHost: env.SMTP_HOST || null,
    smtpPort: Number(env.SMTP_PORT || 587),
    smtpSecure: env.SMTP_SECURE === '1' || env.SMTP_SECURE === 'true',
    smtpUser: env.SMTP_USER || null,
    smtpPass: env.SMTP_PASS || null,
    smtpFrom: env.SMTP_FROM || 'Atrium <no-reply@localhost>',
    smsUrl: env.SMS_HTTP_URL || null,
    smsToken: env.SMS_HTTP_TOKEN || null,
    outboxDir: join(dataDir, 'outbox'),
  };
}
