import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createMemoryBus, createRedisBus, type Bus } from './bus';
import { openDatabase, type Database, type Db } from './db/client';
import { seedDefaults } from './db/seed';
import { seedGuide } from './md/transfer';
import { seedMarket } from './market/seed';
import type { ServerConfig } from './env';
import { createLogger, type Logger } from './log';
import { PageCache } from './page-cache';
import { TaggedMemo } from './tagged-memo';
import { createMemoryLimiter, createRedisLimiter, type RateLimiter } from './rate-limit';
import { ConfigStore } from './site/config';
import { RulesCache } from './site/rules';
import { SessionCache } from './auth/session-cache';
import { createMailer, type Mailer } from './mail/mailer';
import { tokenSecret } from './auth/secret';

/**
 * Everything a request needs that outlives it, created once per process and handed to Astro
 * through `locals.runtime`: no module-level state, so two instances only share what lives in
 * PostgreSQL and Redis.
 */
export interface Runtime {
  config: ServerConfig;
  database: Database;
  db: Db;
  bus: Bus;
  limiter: RateLimiter;
  pageCache: PageCache;
  /** Shared query results dropped with the page cache's tags (see tagged-memo.ts). */
  memo: TaggedMemo;
  site: ConfigStore;
  rules: RulesCache;
  sessions: SessionCache;
  mailer: Mailer;
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

export async function createRuntime(config: ServerConfig, opts: { migrate?: boolean; seed?: boolean } = {}): Promise<Runtime> {
  const log = createLogger(config.logLevel);
  const database = await openDatabase(config);
  const closers: (() => Promise<unknown>)[] = [() => database.close()];
  try {
    const seed = async (): Promise<void> => {
      if (opts.seed === false) return;
      for (const line of await seedDefaults(database.db)) log.info(`first start: ${line}`);
      const guide = await seedGuide(database.db, config.root);
      if (guide) log.info(`first start: ${guide}`);
      const market = await seedMarket(database.db);
      if (market) log.info(`first start: ${market}`);
    };
    if (opts.migrate !== false) await database.migrate(config.root, seed);
    else await seed();
    let bus: Bus;
    let limiter: RateLimiter;
    let pingRedis: Runtime['pingRedis'];
    if (config.redisUrl) {
      const { Redis } = await import('ioredis');
      const redis = new Redis(config.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 2 });
      await redis.connect();
      closers.unshift(async () => redis.disconnect());
      bus = await createRedisBus(redis, config.redisPrefix);
      limiter = createRedisLimiter(redis, config.redisPrefix);
      // A lost connection shows at once in the client's status; a Redis that hangs, by the timeout.
      pingRedis = async () => {
        if (redis.status !== 'ready') return false;
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<boolean>((resolve) => { timer = setTimeout(() => resolve(false), 1000); });
        try {
          return await Promise.race([redis.ping().then((r) => r === 'PONG', () => false), late]);
        } finally {
          clearTimeout(timer);
        }
      };
    } else {
      bus = createMemoryBus();
      limiter = createMemoryLimiter();
    }
    closers.unshift(() => bus.close(), () => limiter.close());
    const pageCache = new PageCache(config.pageCacheBytes, bus);
    const memo = new TaggedMemo(pageCache);
    const site = new ConfigStore(database.db, bus, pageCache);
    const rules = new RulesCache(database.db, bus);
    const sessions = new SessionCache(bus, config.streamCaps);
    closers.unshift(async () => { site.close(); memo.close(); pageCache.close(); rules.close(); sessions.close(); });
    const mailer = await createMailer(config.mail, log);
    closers.unshift(async () => mailer.close());
    const secret = await tokenSecret(database.db, config.tokenSecret ?? undefined);
    let closing: Promise<void> | null = null;
    return {
      config, database, db: database.db, bus, limiter, pageCache, memo, site, rules, sessions, mailer, tokenSecret: secret, log,
      ...(pingRedis ? { pingRedis } : {}),
      buildId: readBuildId(config.root),
      close: () => (closing ??= (async () => {
        for (const close of closers) await close().catch((err: unknown) => log.error('close failed', { err: String(err) }));
      })()),
    };
  } catch (err) {
    for (const close of closers) await close().catch(() => undefined);
    throw err;
  }
}
