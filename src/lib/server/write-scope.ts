// Cache invalidation travels with the write. The function that changes data declares the cache tags
// of what it changed, where it changes it (`touched(askArea)`), and the unit of work around it (an
// API request: http.ts api(); an operator command: commands.ts runCommand) publishes them once, when
// it ends: after its transactions have committed, so another instance cannot refill a cache from the
// old rows, and never for a transaction that rolled back. A write in the CLI, a module or an API
// handler therefore drops the same caches, and a new write path cannot forget to.
import { AsyncLocalStorage } from 'node:async_hooks';
import { uniqueTags, type CacheTag } from './cache-tags';
import { processWide } from './process-wide';

type Publish = (tags: readonly CacheTag[]) => Promise<void>;

/** The tags one unit of work (or one of its transactions) has touched so far. */
export class WriteScope {
  readonly #tags = new Set<CacheTag>();
  #ended = false;

  /** `publish` is the unit's; a transaction's scope has none and hands its tags up when it commits. */
  constructor(private readonly publish: Publish | null) {}

  touched(tags: readonly CacheTag[]): void {
    // Work the unit started and left running (a background job) touches after the unit ended:
    // its write has committed on its own, so its tags go out at once.
    if (this.#ended) {
      if (this.publish) void this.publish(uniqueTags(tags)).catch(() => undefined);
      return;
    }
    for (const tag of tags) this.#tags.add(tag);
  }

  get tags(): CacheTag[] {
    return [...this.#tags];
  }

  /** Closes the scope; returns what it collected. */
  end(): CacheTag[] {
    this.#ended = true;
    return this.tags;
  }
}

// Process-wide: the server's bundle opens scopes (the CLI) and Astro's bundle runs the services.
const current = processWide('write-scope', () => new AsyncLocalStorage<WriteScope>());

/**
 * Declares that the caller's write changed what these tags cover: published once the unit of work
 * around it ends. Call it after the write (or inside `inTransaction`, which keeps the tags only if
 * the transaction commits). Outside a unit of work (a test building data before any page is
 * cached) there is nothing to tell and the tags are dropped; a caller holding the runtime and no
 * unit uses `Invalidation.touched`, which then publishes at once. Returns whether a unit took them.
 */
export function touched(...tags: CacheTag[]): boolean {
  const scope = current.getStore();
  if (!scope) return false;
  scope.touched(tags);
  return true;
}

/**
 * Runs `fn` as one unit of work and publishes the tags its writes touched, de-duplicated, in one
 * call once it ends. It publishes even when `fn` throws: what was touched outside a transaction has
 * committed, and a transaction's tags were only handed over if it committed (`inTransaction`). A
 * unit inside another unit is part of it: the outer one publishes.
 */
export async function withWrites<T>(publish: Publish, fn: () => Promise<T>): Promise<T> {
  if (current.getStore()) return fn();
  const scope = new WriteScope(publish);
  try {
    return await current.run(scope, fn);
  } finally {
    const tags = scope.end();
    if (tags.length) await publish(tags);
  }
}

/** What `inTransaction` needs of a database handle: drizzle's `db.transaction` (or a transaction's, for a savepoint). */
export interface Transactional<Tx> {
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
}

/**
 * `db.transaction(fn)` whose `touched` tags count only if it commits: on commit they join the
 * enclosing scope (a caller's transaction, which commits later, or the unit of work); on rollback
 * they are forgotten.
 */
export async function inTransaction<Tx, T>(db: Transactional<Tx>, fn: (tx: Tx) => Promise<T>): Promise<T> {
  const outer = current.getStore();
  if (!outer) return db.transaction(fn);
  const scope = new WriteScope(null);
  const result = await current.run(scope, () => db.transaction(fn));
  outer.touched(scope.end());
  return result;
}
