// Message-center constants shared by the API, the pages and the islands.

/** Tabs of the message center; every message type belongs to exactly one besides `all`. */
export const MESSAGE_TABS = ['all', 'reply', 'mention', 'like', 'system', 'market', 'private'] as const;
export type MessageTab = (typeof MESSAGE_TABS)[number];
/** The kinds a member can choose to receive by e-mail (every tab but `all`). */
export const MAIL_KINDS = ['reply', 'mention', 'like', 'system', 'market', 'private'] as const;
export type MailKind = (typeof MAIL_KINDS)[number];
/** Mailed unless the member chose otherwise. */
export const DEFAULT_MAIL_KINDS: readonly MailKind[] = ['private', 'reply'];

export const TAB_TYPES: Record<Exclude<MessageTab, 'all'>, readonly string[]> = {
  reply: ['ask_reply', 'ask_comment', 'ask_accept'],
  mention: ['ask_mention'],
  like: ['ask_vote'],
  system: ['ask_moderation', 'ask_report', 'market_developer', 'market_module', 'market_withdrawal', 'system'],
  market: ['market_sale', 'market_review', 'market_review_reply'],
  private: ['private'],
};

/** The tab a message type is listed under (unknown types: system). */
export function tabOfType(type: string): Exclude<MessageTab, 'all'> {
  for (const [tab, types] of Object.entries(TAB_TYPES)) if (types.includes(type)) return tab as Exclude<MessageTab, 'all'>;
  return 'system';
}

/** The badge's text: nothing at 0, `9+` above nine (spec §2, §9). */
export function badgeText(count: number): string {
  return count <= 0 ? '' : count > 9 ? '9+' : String(count);
}

/** Longest private message (characters). */
export const MAX_PRIVATE = 2000;
/** Messages a page of the list holds. */
export const MESSAGE_PAGE_SIZE = 20;
/** Polling interval (seconds) while the push stream is connected / without it (site settings override). */
export const POLL_CONNECTED = 60;
export const POLL_FALLBACK = 15;
/** Comment heartbeat on the stream (seconds): below nginx's 60 s proxy_read_timeout. */
export const STREAM_HEARTBEAT = 15;
/** Badge retries (spec §4, §9). */
export const BADGE_RETRIES = 3;
export const BADGE_RETRY_MS = 1000;
export const ROUTE_DEBOUNCE_MS = 500;

const URL_RE = /\bhttps?:\/\/[^\s<>"']+[^\s<>"'.,;:!?)\]}]/g;

/** Splits plain text into text and link pieces, so it can be rendered escaped with clickable links. */
export function linkify(text: string): { text: string; href?: string }[] {
  const out: { text: string; href?: string }[] = [];
  let last = 0;
  for (const m of text.matchAll(URL_RE)) {
    if (m.index > last) out.push({ text: text.slice(last, m.index) });
    out.push({ text: m[0], href: m[0] });
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push({ text: text.slice(last) });
  return out;
}
