import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Bus } from './bus';
import type { Database, Db } from './db/client';
import type { ServerConfig } from './env';
import type { Logger } from './log';
import type { Invalidation } from './invalidation';
import type { PageCache } from './page-cache';
import type { TaggedMemo } from './tagged-memo';
import type { RateLimiter } from './rate-limit';
import type { ConfigStore } from './site/config';
import type { RulesCache } from './site/rules';
import type { SessionCache } from './auth/session-cache';
import type { Mailer } from './mail/mailer';
import type { RunningModules } from './modules/active';

/**
 * Everything a request needs that outlives it, created once per process and handed to Astro
 * through `locals.runtime`: no module-level state, so two instances only share what lives in
 * PostgreSQL and Redis. Created by boot/runtime.ts, the one place that imports every area; this file
 * holds only the type, so the services that take a runtime import nothing above them.
 */
export interface Runtime {
  config: ServerConfig;
  database: Database;
  db: Db;
  bus: Bus;
  limiter: RateLimiter;
  /** Where the caches below learn that data changed, here and on the other instances (invalidation.ts). */
  invalidation: Invalidation;
  pageCache: PageCache;
  /** Shared query results dropped with the page cache's tags (see tagged-memo.ts). */
  memo: TaggedMemo;
  site: ConfigStore;
  rules: RulesCache;
  sessions: SessionCache;
  mailer: Mailer;
  /** The modules this instance runs, reconciled with the wanted state (modules/site-modules.ts). */
  modules: RunningModules;
  /** HMAC key of stored tokens, the same on every instance. */
  tokenSecret: string;
  log: Logger;
  /** Id of the running build, compared by browsers with /build-manifest.json. */
  buildId: string;
  /** Whether Redis answers a PING within a second; absent without REDIS_URL (/healthz reports it). */
  pingRedis?: () => Promise<boolean>;
  /** Counts a settled AI chat reply in /metrics: set by the HTTP server's metrics, absent in the CLI. */
  countChatReply?: (reply: { model: string; status: string; promptTokens: number; completionTokens: number; points: number }) => void;
  close(): Promise<void>;
}

export function readBuildId(root: string): string {
  try {
    return (JSON.parse(readFileSync(join(root, 'dist', 'client', 'build-manifest.json'), 'utf8')) as { id: string }).id;
  } catch {
    return 'dev';
  }
}
