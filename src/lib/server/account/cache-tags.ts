// The members' cache tags (see cache-tags.ts).

declare module '../cache-tags' {
  interface CacheTagKinds {
    member: `user:${number}`;
  }
}

/** A member's public card (name, avatar, group, bio). */
export function memberCard(id: number): `user:${number}` {
  return `user:${id}`;
}
