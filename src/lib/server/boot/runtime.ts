import { createMemoryBus, createRedisBus, type Bus } from '../bus';
import { openDatabase } from '../db/client';
import type { ServerConfig } from '../env';
import { aroundApi } from '../http';
import { createLogger } from '../log';
import { Invalidation } from '../invalidation';
import { PageCache } from '../page-cache';
import { TaggedMemo } from '../tagged-memo';
import { createMemoryLimiter, createRedisLimiter, type RateLimiter } from '../rate-limit';
import { readBuildId, type Runtime } from '../runtime';
import { seedDefaults } from '../site/seed';
import { areaSeeds } from '../seeds';
import './areas';
import { ConfigStore } from '../site/config';
import { RulesCache } from '../site/rules';
import { SessionCache } from '../auth/session-cache';
import { createMailer } from '../mail/mailer';
import { SiteModules } from '../modules/site-modules';
import { rerenderInBackground } from '../modules/rerender';
import { tokenSecret } from '../auth/secret';
import { withOutbox } from '../messages/live';

// The composition root: the only folder of lib/server that imports every area (eslint.config.js
// keeps the others from importing it).

export async function createRuntime(config: ServerConfig, opts: { migrate?: boolean; seed?: boolean; background?: boolean } = {}): Promise<Runtime> {
  // The cache tags an API handler's writes touched and the message events it recorded are
  // published once it has finished.
  aroundApi((rt, fn) => rt.invalidation.unit(() => withOutbox(rt.bus, fn)));
  const log = createLogger(config.logLevel);
  const database = await openDatabase(config);
  const closers: (() => Promise<unknown>)[] = [() => database.close()];
  try {
    const seed = async (): Promise<void> => {
      if (opts.seed === false) return;
      for (const line of await seedDefaults(database.db)) log.info(`first start: ${line}`);
      for (const area of areaSeeds()) {
        const line = await area.run(database.db, { root: config.root, config });
        if (line) log.info(`first start: ${line}`);
      }
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
    const invalidation = new Invalidation(bus, (err) => log.error('cache invalidation not published', { err: String(err) }));
    const pageCache = new PageCache(config.pageCacheBytes, invalidation);
    const memo = new TaggedMemo(invalidation);
    const site = new ConfigStore(database.db, invalidation);
    const rules = new RulesCache(database.db, invalidation);
    const sessions = new SessionCache(bus, config.streamCaps);
    closers.unshift(async () => { site.close(); memo.close(); pageCache.close(); rules.close(); sessions.close(); invalidation.close(); });
    const mailer = await createMailer(config.mail, log);
    closers.unshift(async () => mailer.close());
    const secret = await tokenSecret(database.db, config.tokenSecret ?? undefined);
    const modules = new SiteModules({ db: database.db, config, site, log, bus, pageCache }, config.safeMode ?? false, opts.background !== false);
    closers.unshift(() => modules.close());
    // A short-lived process (the CLI) leaves the background re-render to the servers.
    if (opts.background !== false) modules.onRenderSetChange = () => rerenderInBackground({ db: database.db, log, pageCache, modules });
    await modules.start();
    let closing: Promise<void> | null = null;
    return {
      config, database, db: database.db, bus, limiter, invalidation, pageCache, memo, site, rules, sessions, mailer, modules, tokenSecret: secret, log,
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
