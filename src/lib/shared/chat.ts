// What the chat server and the chat page agree on: message metadata and citation links.

/**
 * A visitor's replies are theirs by a key their browser keeps and sends in this header with a
 * question, a stop and a resume (visitors behind one address are otherwise alike). Members' go by
 * their account. A send without a key gets one from the server in the same header.
 */
export const CHAT_KEY_HEADER = 'x-chat-key';
/** What a key looks like: 22 to 64 base64url characters (the page makes 32 from 24 random bytes). */
export const CHAT_KEY = /^[A-Za-z0-9_-]{22,64}$/;

/** Longest conversation title. */
export const MAX_CHAT_TITLE = 100;

/**
 * Whether a conversation's new title may be saved: something besides spaces, at most
 * MAX_CHAT_TITLE characters, no control characters (tab aside). Anything else is the spec's
 * dialog input error, "Illegal input" (§8), on the page and from the API alike.
 */
export function legalChatTitle(title: string): boolean {
  const t = title.trim();
  return t.length > 0 && Array.from(t).length <= MAX_CHAT_TITLE && !/[\u0000-\u0008\u000a-\u001f\u007f]/.test(t);
}

export interface SourceMeta {
  n: number;
  kind: 'doc' | 'post' | 'answer';
  title: string;
  heading: string;
  url: string;
  /** The passage, shortened, for the hover preview. */
  excerpt: string;
}

export interface ChatMetadata {
  model?: string;
  sources?: SourceMeta[];
  /** The finished answer through the shared markdown pipeline, code highlighted. */
  html?: string;
  status?: 'done' | 'stopped' | 'failed';
  points?: number;
  tokens?: number;
  createTime?: number;
}

/**
 * Turns `[1]` citations into markdown links to their sources (titled with the source's name), so
 * the markdown pipeline renders them as links; `[1](…)` links and `[1]: …` definitions stay.
 */
export function linkCitations(text: string, sources: readonly Pick<SourceMeta, 'n' | 'url' | 'title' | 'heading'>[]): string {
  if (!sources.length) return text;
  let fence = false;
  return text.split('\n').map((line) => {
    if (/^ {0,3}(```|~~~)/.test(line)) { fence = !fence; return line; }
    if (fence) return line;
    return line.replace(/(?<![\\!])\[(\d{1,2})\](?![(:[])/g, (whole, digits: string) => {
      const s = sources.find((x) => x.n === Number(digits));
      if (!s) return whole;
      const label = (s.heading && s.heading !== s.title ? `${s.title} › ${s.heading}` : s.title).replace(/["\\]/g, '');
      return `[\\[${s.n}\\]](${s.url.replace(/[()\s]/g, encodeURIComponent)} "${label}")`;
    });
  }).join('\n');
}

/** The text of a UI message: its text parts joined. */
export function textOfParts(parts: readonly { type: string; text?: string }[]): string {
  return parts.filter((p) => p.type === 'text' && typeof p.text === 'string').map((p) => p.text).join('');
}
