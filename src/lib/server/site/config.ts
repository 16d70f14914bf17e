import { eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { config } from '../db/schema';
import type { Invalidation } from '../invalidation';
import { siteConfig, siteWide } from './cache-tags';

/**
 * Site configuration read once and kept in memory: every page needs it. A change goes through
 * `set`, which drops the copy here at once and, once the change's unit of work ends (write-scope.ts),
 * on every other instance, with the pages built from it.
 */
export class ConfigStore {
  #values: Promise<ReadonlyMap<string, string>> | null = null;
  readonly #unsubscribe: () => void;

  constructor(private readonly db: Db, private readonly invalidation: Invalidation) {
    this.#unsubscribe = invalidation.listen((tags) => { if (tags.includes(siteConfig)) this.#values = null; });
  }

  async all(): Promise<ReadonlyMap<string, string>> {
    this.#values ??= this.db.select({ name: config.name, value: config.value }).from(config)
      .then((rows) => new Map(rows.map((r) => [r.name, r.value])))
      .catch((err: unknown) => { this.#values = null; throw err; });
    return this.#values;
  }

  async get(name: string, fallback = ''): Promise<string> {
    return (await this.all()).get(name) ?? fallback;
  }

  /** Writes one value; unknown names are refused so a typo never creates a row nobody reads. */
  async set(name: string, value: string): Promise<void> {
    const updated = await this.db.update(config).set({ value, updateTime: Math.floor(Date.now() / 1000) })
      .where(eq(config.name, name)).returning({ id: config.id });
    if (updated.length === 0) throw new Error(`Unknown configuration name "${name}"`);
    // The row has committed: this instance reads it from now on, the others when the tags go out.
    this.#values = null;
    await this.invalidation.touched(siteConfig, siteWide);
  }

  close(): void {
    this.#unsubscribe();
  }
}

/** `10mb`, `512kb`, `2gb` or a plain byte count → bytes (1024-based, as BuildAdmin). */
export function parseSize(value: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|k|mb|m|gb|g)?\s*$/i.exec(value);
  if (!m) return 0;
  const unit = (m[2] ?? 'b').toLowerCase()[0];
  const factor = unit === 'k' ? 1024 : unit === 'm' ? 1024 ** 2 : unit === 'g' ? 1024 ** 3 : 1;
  return Math.round(Number(m[1]) * factor);
}
