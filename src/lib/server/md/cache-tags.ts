// The docs' cache tags (see cache-tags.ts).

declare module '../cache-tags' {
  interface CacheTagKinds {
    md: 'md';
  }
}

/** Everything built from the docs: the books, their pages and search, the home feed. */
export const mdArea = 'md';
