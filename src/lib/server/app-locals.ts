import { AsyncLocalStorage } from 'node:async_hooks';
import { processWide } from './process-wide';

/**
 * What the Atrium server hands Astro for one request (the runtime, locale, host…), also kept in an
 * async context: @astrojs/node renders a URL that matches no route (the 404 page) without the
 * `locals` it was given, and the middleware must still find the runtime instead of opening another.
 * Kept process-wide (process-wide.ts) because the server (dist/atrium-main.mjs) and Astro's bundle
 * (dist/server/entry.mjs) each carry their own copy of this module.
 */
export const appLocals: AsyncLocalStorage<Record<string, unknown>> = processWide('app-locals', () => new AsyncLocalStorage<Record<string, unknown>>());
