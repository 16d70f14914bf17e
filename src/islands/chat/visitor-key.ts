// This browser's chat key: a visitor's replies are stopped and resumed with it (visitors behind one
// address are otherwise alike to the server). Made once and kept with the visitor's conversations.
import { CHAT_KEY, CHAT_KEY_HEADER } from '../../lib/shared/chat';

const STORAGE_KEY = 'atrium-chat:key';
let made: string | null = null;

/**
 * 24 random bytes as base64url. `crypto.getRandomValues` exists on every page, plain-HTTP ones on a
 * LAN address too (`crypto.randomUUID` only in secure contexts).
 */
function newKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** The key this browser sends with its questions, stops and resumes; without storage, this page's own. */
export function chatKey(): string {
  if (made) return made;
  let stored: string | null = null;
  try { stored = localStorage.getItem(STORAGE_KEY); } catch { /* no storage: the key lives as long as the page */ }
  if (stored && CHAT_KEY.test(stored)) return (made = stored);
  made = newKey();
  try { localStorage.setItem(STORAGE_KEY, made); } catch { /* as above */ }
  return made;
}

/** The header that carries the key. */
export const chatKeyHeader = (): Record<string, string> => ({ [CHAT_KEY_HEADER]: chatKey() });

/** A new conversation's id: 12 random bytes as base64url (16 characters, what CHAT_ID accepts). */
export function newChatId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_');
}
