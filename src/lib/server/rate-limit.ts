import type { Redis } from 'ioredis';

export interface RateResult {
  allowed: boolean;
  remaining: number;
  /** Seconds until the window resets. */
  retryAfter: number;
}

/** Fixed-window counters: in memory for one process, in Redis when instances share the limit. */
export interface RateLimiter {
  /** Counts `amount` (1 by default: one request; bytes for a byte budget) and says whether the window stays within `limit`. */
  hit(key: string, limit: number, windowSeconds: number, amount?: number): Promise<RateResult>;
  /** Hits so far in the current window (0 when none). */
  count(key: string): Promise<number>;
  reset(key: string): Promise<void>;
  close(): Promise<void>;
}

export function createMemoryLimiter(): RateLimiter {
  const windows = new Map<string, { count: number; resetAt: number }>();
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const [key, w] of windows) if (w.resetAt <= now) windows.delete(key);
  }, 60_000);
  sweep.unref();
  return {
    async hit(key, limit, windowSeconds, amount = 1) {
      const now = Date.now();
      let w = windows.get(key);
      if (!w || w.resetAt <= now) {
        w = { count: 0, resetAt: now + windowSeconds * 1000 };
        windows.set(key, w);
      }
      w.count += amount;
      return { allowed: w.count <= limit, remaining: Math.max(0, limit - w.count), retryAfter: Math.ceil((w.resetAt - now) / 1000) };
    },
    async count(key) {
      const w = windows.get(key);
      return w && w.resetAt > Date.now() ? w.count : 0;
    },
    async reset(key) { windows.delete(key); },
    close: async () => clearInterval(sweep),
  };
}

export function createRedisLimiter(redis: Redis, prefix = 'atrium:'): RateLimiter {
  return {
    async hit(key, limit, windowSeconds, amount = 1) {
      const k = `${prefix}rl:${key}`;
      const [[, count], [, ttl]] = (await redis.multi().incrby(k, amount).pttl(k).exec()) as [[null, number], [null, number]];
      if (ttl < 0) await redis.pexpire(k, windowSeconds * 1000);
      const left = ttl < 0 ? windowSeconds * 1000 : ttl;
      return { allowed: count <= limit, remaining: Math.max(0, limit - count), retryAfter: Math.ceil(left / 1000) };
    },
    async count(key) { return Number((await redis.get(`${prefix}rl:${key}`)) ?? 0); },
    async reset(key) { await redis.del(`${prefix}rl:${key}`); },
    close: async () => undefined,
  };
}
