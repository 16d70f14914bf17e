// What a cached thing depends on, named by a tag: a cached page or memo carries the tags of the data
// it was built from, and a write declares the tags of the data it changed (write-scope.ts), so both
// sides use the same words. The kinds are a registry open to every area: an area (or a module) adds
// its kinds to `CacheTagKinds` from its own `cache-tags.ts`, by module augmentation, with the
// functions that build them; a free string is not a tag and does not type-check.

/**
 * Every tag kind, one property per kind, added by the areas (`site/cache-tags.ts`,
 * `ask/cache-tags.ts`, …): the property's type is the shape of its tags, e.g. `ask:post:${number}`.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by module augmentation
export interface CacheTagKinds {}

/** A tag of one of the registered kinds. */
export type CacheTag = CacheTagKinds[keyof CacheTagKinds];

/** The tags of `tags` without repeats, in first-seen order. */
export function uniqueTags(tags: Iterable<CacheTag>): CacheTag[] {
  return [...new Set(tags)];
}

/** Whether an entry carrying `held` is dropped by an invalidation of `dropped`. */
export function tagsMeet(held: readonly CacheTag[], dropped: readonly CacheTag[]): boolean {
  return held.some((t) => dropped.includes(t));
}
