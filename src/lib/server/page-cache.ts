import { createHash } from 'node:crypto';
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
  readonly #entries = new Map<string, CachedPage & { bytes: number }>();
  #bytes = 0;
  /** Bumped by every invalidation: a render that began before one must not store its result. */
  #generation = 0;
  /** The last key of #entries (most recently used): a hit on it needs no reordering. */
  #newest: string | null = null;
  readonly #unsubscribe: () => void;

  constructor(private readonly maxBytes: number, private readonly invalidation: Invalidation) {
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
    return this.#bytes;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: string): CachedPage | undefined {
    const entry = this.#entries.get(key);
    if (entry && key !== this.#newest) {
      // Map keeps insertion order: re-inserting marks the entry as recently used.
      this.#entries.delete(key);
      this.#entries.set(key, entry);
      this.#newest = key;
    }
    return entry;
  }

  /** Stores a rendered page unless the cache was invalidated since `generation` was read. */
  async set(key: string, page: { status: number; headers: Record<string, string>; body: Buffer; tags: readonly CacheTag[] }, generation: number): Promise<CachedPage | null> {
    if (generation !== this.#generation || page.body.length > this.maxBytes / 4) return null;
    const { br, gzip } = await compressAll(page.body);
    if (generation !== this.#generation) return null;
    const etag = `"${createHash('sha1').update(page.body).digest('base64url').slice(0, 22)}"`;
    const entry = { ...page, br, gzip, etag, bytes: page.body.length + br.length + gzip.length };
    const old = this.#entries.get(key);
    if (old) this.#remove(key, old);
    this.#entries.set(key, entry);
    this.#newest = key;
    this.#bytes += entry.bytes;
    for (const [k, e] of this.#entries) {
      if (this.#bytes <= this.maxBytes) break;
      this.#remove(k, e);
    }
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
    for (const [k, e] of this.#entries) if (tagsMeet(e.tags, tags)) this.#remove(k, e);
  }

  #remove(key: string, entry: { bytes: number }): void {
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
  }
}
