// The module market's cache tags (see cache-tags.ts).

declare module '../cache-tags' {
  interface CacheTagKinds {
    modules: 'modules';
    module: `module:${string}`;
  }
}

/** Everything built from the market: its lists and facets, every module's page, the home feed. */
export const marketArea = 'modules';

/**
 * One module's detail page. Downloads and sales drop only this: list pages keep their counts until
 * the next catalogue change, so traffic on one module never empties the whole market's cache.
 */
export function marketModule(uid: string): `module:${string}` {
  return `module:${uid}`;
}
