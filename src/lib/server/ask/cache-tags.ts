// The forum's cache tags (see cache-tags.ts).

declare module '../cache-tags' {
  interface CacheTagKinds {
    ask: 'ask';
    askPost: `ask:post:${number}`;
  }
}

/** Everything built from the forum: its lists, posts, feeds, sidebars, the home feed. */
export const askArea = 'ask';

/** One post's page. */
export function askPost(id: number): `ask:post:${number}` {
  return `ask:post:${id}`;
}
