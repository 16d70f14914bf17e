import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { HOT_GET } from './lru-hot';
import { tagsMeet, type CacheTag } from './cache-tags';
import { compressAll } from './compress';
import type { Invalidation } from './invalidation';

export interface CachedPage {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  br: Buffer;
  gzip: Buffer;
  etag: string;
  tags: readonly CacheTag[];
}

/**
 * Whole anonymous pages kept in memory, keyed by host, path, locale and theme. Entries carry cache
 * tags (cache-tags.ts: `site`, `ask`, `md`, …); they are dropped by every invalidation of one of
 * them (invalidation.ts), which the code that changes data causes by declaring what it touched
 * (write-scope.ts).
 */
export class PageCache {
  /** Least recently used first out once the bytes would pass `maxBytes`. */
  readonly #entries: LRUCache<string, CachedPage & { bytes: number }>;
  /** Bumped by every invalidation: a render that began before one must not store its result. */
  #generation = 0;
  readonly #unsubscribe: () => void;

  constructor(private readonly maxBytes: number, private readonly invalidation: Invalidation) {
    this.#entries = new LRUCache({ maxSize: Math.max(1, maxBytes), sizeCalculation: (entry) => Math.max(1, entry.bytes) });
    this.#unsubscribe = invalidation.listen((tags) => this.#drop(tags));
  }

  static key(host: string, url: string, locale: string, theme: string): string {
    return `${host}\n${url}\n${locale}\n${theme}`;
  }

  get generation(): number {
    return this.#generation;
  }

  /** Bytes held: each page's body with its brotli and gzip copies (at most PAGE_CACHE_MB). */
  get bytes(): number {
    return this.#entries.calculatedSize;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: string): CachedPage | undefined {
    return this.#entries.get(key, HOT_GET);
  }

  /** Stores a rendered page unless the cache was invalidated since `generation` was read. */
  async set(key: string, page: { status: number; headers: Record<string, string>; body: Buffer; tags: readonly CacheTag[] }, generation: number): Promise<CachedPage | null> {
    if (generation !== this.#generation || !this.maxBytes || page.body.length > this.maxBytes / 4) return null;
    const { br, gzip } = await compressAll(page.body);
    if (generation !== this.#generation) return null;
    const etag = `"${createHash('sha1').update(page.body).digest('base64url').slice(0, 22)}"`;
    const entry = { ...page, br, gzip, etag, bytes: page.body.length + br.length + gzip.length };
    this.#entries.set(key, entry);
    return entry;
  }

  /**
   * Drops every cached thing carrying one of the tags, here and on the other instances, now: for a
   * change that is not a write of this process (a module started or stopped). A write declares its
   * tags instead (write-scope.ts `touched`), published after it commits.
   */
  async invalidate(tags: readonly CacheTag[]): Promise<void> {
    await this.invalidation.publish(tags);
  }

  close(): void {
    this.#unsubscribe();
    this.#entries.clear();
  }

  #drop(tags: readonly CacheTag[]): void {
    this.#generation++;
    const dropped: string[] = [];
    for (const [key, entry] of this.#entries.entries()) if (tagsMeet(entry.tags, tags)) dropped.push(key);
    for (const key of dropped) this.#entries.delete(key);
  }
}
