// One value per process: the server's bundle (dist/atrium-main.mjs) and Astro's bundle
// (dist/server/entry.mjs) each carry their own copy of a module, so state both must see (the
// request's locals, the message hubs, running chat replies, the chat worker, the highlighter) is
// kept on a global symbol instead of in a module variable.

/** The value under `atrium.<name>`, made by whichever copy asks first. */
export function processWide<T>(name: string, make: () => T): T {
  const holder = globalThis as unknown as Record<symbol, T | undefined>;
  return holder[Symbol.for(`atrium.${name}`)] ??= make();
}
