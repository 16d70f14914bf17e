// lru-cache's `get(key, options = {})` makes a new options object on every call and then adds a
// `status` property to it: an allocation and a shape change per lookup. The lookups every request
// makes (the page cache, the host's area, the Accept-Language header) pass this one object, which
// already has the property. lru-cache writes `status` back into it, and that stays undefined while
// nothing subscribes to lru-cache's diagnostics channel (nothing in Atrium does).
export const HOT_GET: { status?: undefined } = { status: undefined };
