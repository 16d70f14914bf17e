import type { PageCache } from './page-cache';

/**
 * Small query results shared by many pages (forum categories, popular tags, active members), kept
 * until the data behind them changes: entries carry the page-cache tags of that data and are
 * dropped by the same invalidations, here and, through the bus, on every other instance.
 */
export class TaggedMemo {
  readonly #entries = new Map<string, { tags: readonly string[]; value: Promise<unknown> }>();
  readonly #off: () => void;

  constructor(pages: PageCache) {
    this.#off = pages.onInvalidate((tags) => {
      for (const [key, entry] of this.#entries) if (entry.tags.some((t) => tags.includes(t))) this.#entries.delete(key);
    });
  }

  get<T>(key: string, tags: readonly string[], load: () => Promise<T>): Promise<T> {
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
