// The AI chat's cache tags (see cache-tags.ts).

declare module '../cache-tags' {
  interface CacheTagKinds {
    chat: 'chat';
  }
}

/** The visitor's chat page (its models and greeting). */
export const chatArea = 'chat';
