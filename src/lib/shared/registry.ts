// What areas (and, later, modules) add to the site by registering instead of editing a central
// list: CLI commands, member-center pages, admin sections, settings, seeds. A registry is kept on a
// global symbol, not in a module variable, because the server's bundle (dist/atrium-main.mjs, the
// CLI's dist/cli.mjs) and Astro's bundle (dist/server/entry.mjs) each carry their own copy of this
// module: both must see one list, and a module registering at run time adds to that same list.

export interface Registry<T> {
  /**
   * Adds an entry, or replaces the one of the same key in its place (a module may override an
   * entry on purpose; a dev reload registers its file again). Order is first registration's.
   */
  add(entry: T): void;
  /** Removes the entry of that key; false when there was none. */
  remove(key: string): boolean;
  get(key: string): T | undefined;
  /** Every entry, in registration order. */
  list(): T[];
}

/** The registry `atrium.registry.<name>`, the same one whichever bundle asks. */
export function registry<T>(name: string, keyOf: (entry: T) => string): Registry<T> {
  const holder = globalThis as unknown as Record<symbol, Map<string, unknown> | undefined>;
  const entries = (holder[Symbol.for(`atrium.registry.${name}`)] ??= new Map()) as Map<string, T>;
  return {
    add: (entry) => void entries.set(keyOf(entry), entry),
    remove: (key) => entries.delete(key),
    get: (key) => entries.get(key),
    list: () => [...entries.values()],
  };
}
