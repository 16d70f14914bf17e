import { createHash } from 'node:crypto';
import type { Bus } from './bus';
import { compressAll } from './compress';

export interface CachedPage {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  br: Buffer;
  gzip: Buffer;
  etag: string;
  tags: readonly string[];
}

const CHANNEL = 'page-cache:invalidate';

/**
 * Whole anonymous pages kept in memory, keyed by host, path, locale and theme. Entries carry tags
 * (`site`, `ask`, `md`, …); the code that changes data calls `invalidate(tags)`, which drops the
 * entries here and, through the bus, on every other instance.
 */
export class PageCache {
  readonly #entries = new Map<string, CachedPage & { bytes: number }>();
  #bytes = 0;
  /** Bumped by every invalidation: a render that began before one must not store its result. */
  #generation = 0;
  /** The last key of #entries (most recently used): a hit on it needs no reordering. */
  #newest: string | null = null;
  readonly #listeners = new Set<(tags: readonly string[]) => void>();
  readonly #unsubscribe: () => void;

  constructor(private readonly maxBytes: number, private readonly bus: Bus) {
    this.#unsubscribe = bus.subscribe(CHANNEL, (message, fromSelf) => {
      if (!fromSelf) this.#drop((message as { tags: string[] }).tags);
    });
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
  async set(key: string, page: { status: number; headers: Record<string, string>; body: Buffer; tags: readonly string[] }, generation: number): Promise<CachedPage | null> {
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

  /** Drops every page carrying one of the tags, here and on the other instances. */
  async invalidate(tags: readonly string[]): Promise<void> {
    this.#drop(tags);
    await this.bus.publish(CHANNEL, { tags });
  }

  close(): void {
    this.#unsubscribe();
    this.#entries.clear();
  }

  /** Calls `listener` with the tags of every invalidation, local or from another instance. */
  onInvalidate(listener: (tags: readonly string[]) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #drop(tags: readonly string[]): void {
    this.#generation++;
    for (const listener of this.#listeners) listener(tags);
    for (const [k, e] of this.#entries) if (e.tags.some((t) => tags.includes(t))) this.#remove(k, e);
  }

  #remove(key: string, entry: { bytes: number }): void {
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
  }
}
