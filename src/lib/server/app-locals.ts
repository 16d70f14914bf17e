import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * What the Atrium server hands Astro for one request (the runtime, locale, host…), also kept in an
 * async context: @astrojs/node renders a URL that matches no route (the 404 page) without the
 * `locals` it was given, and the middleware must still find the runtime instead of opening another.
 * Keyed on a global symbol because the server (dist/atrium.mjs) and Astro's bundle
 * (dist/server/entry.mjs) each carry their own copy of this module.
 */
const KEY = Symbol.for('atrium.app-locals');
type Store = AsyncLocalStorage<Record<string, unknown>>;
const holder = globalThis as unknown as Record<symbol, Store | undefined>;

export const appLocals: Store = holder[KEY] ??= new AsyncLocalStorage<Record<string, unknown>>();
