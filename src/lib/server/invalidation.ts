import type { Bus } from './bus';
import { uniqueTags, type CacheTag } from './cache-tags';
import { touched, withWrites } from './write-scope';

const CHANNEL = 'cache:invalidate';

type Listener = (tags: readonly CacheTag[]) => void;

/**
 * The one way every in-memory cache of an instance learns that data changed: the page cache, the
 * tagged memo, the configuration and the rule trees listen here for the tags they hold, and
 * `publish` tells them here at once and, through the bus, on every other instance. Writes do not
 * call it themselves: they declare the tags they touch (write-scope.ts), and the scope publishes
 * once its transactions have committed.
 */
export class Invalidation {
  readonly #listeners = new Set<Listener>();
  readonly #unsubscribe: () => void;

  /** `onError` hears a publication the bus failed: the change has committed, so it is not the caller's error. */
  constructor(private readonly bus: Bus, private readonly onError: (err: unknown) => void = () => undefined) {
    this.#unsubscribe = bus.subscribe(CHANNEL, (message, fromSelf) => {
      const tags = (message as { tags?: unknown } | null)?.tags;
      if (!fromSelf && Array.isArray(tags)) this.#tell(tags.filter((t): t is CacheTag => typeof t === 'string'));
    });
  }

  /** Calls `listener` with the tags of every invalidation, local or from another instance; returns its removal. */
  listen(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Drops what carries one of the tags, here at once and then on the other instances. */
  async publish(tags: readonly CacheTag[]): Promise<void> {
    const unique = uniqueTags(tags);
    if (!unique.length) return;
    this.#tell(unique);
    await this.bus.publish(CHANNEL, { tags: unique });
  }

  /**
   * Declares tags a committed write of the caller changed, as write-scope.ts `touched` does; with
   * no unit of work around the caller (a job, a test, a bus handler), published at once.
   */
  async touched(...tags: CacheTag[]): Promise<void> {
    if (!touched(...tags)) await this.publish(tags);
  }

  /**
   * Runs `fn` as one unit of work (a request, a command): the tags its writes touched are published
   * once it ends, after its transactions have committed (write-scope.ts `withWrites`).
   */
  unit<T>(fn: () => Promise<T>): Promise<T> {
    return withWrites((tags) => this.publish(tags).catch(this.onError), fn);
  }

  close(): void {
    this.#unsubscribe();
    this.#listeners.clear();
  }

  #tell(tags: readonly CacheTag[]): void {
    for (const listener of this.#listeners) listener(tags);
  }
}
