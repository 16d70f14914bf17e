import { tagsMeet, type CacheTag } from './cache-tags';
import type { Invalidation } from './invalidation';

/**
 * Small query results shared by many pages (forum categories, popular tags, active members), kept
 * until the data behind them changes: entries carry the cache tags of that data and are dropped by
 * the same invalidations as the pages (invalidation.ts), here and on every other instance.
 */
export class TaggedMemo {
  readonly #entries = new Map<string, { tags: readonly CacheTag[]; value: Promise<unknown> }>();
  readonly #off: () => void;

  constructor(invalidation: Invalidation) {
    this.#off = invalidation.listen((tags) => {
      for (const [key, entry] of this.#entries) if (tagsMeet(entry.tags, tags)) this.#entries.delete(key);
    });
  }

  get<T>(key: string, tags: readonly CacheTag[], load: () => Promise<T>): Promise<T> {
    const hit = this.#entries.get(key);
    if (hit) return hit.value as Promise<T>;
    const value = load();
    this.#entries.set(key, { tags, value });
    // A failed load is not remembered.
    value.catch(() => { if (this.#entries.get(key)?.value === value) this.#entries.delete(key); });
    return value;
  }

  close(): void {
    this.#off();
    this.#entries.clear();
  }
}
