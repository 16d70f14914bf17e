// One push connection per browser, not per tab: tabs elect a leader with the Web Locks API; the
// leader holds the server-sent-events stream and relays every event to the other tabs over a
// BroadcastChannel. When the leader tab closes its lock is released and a waiting tab takes over
// at once. Where the stream cannot be held (no EventSource or Web Locks, a proxy that cuts it),
// the count is polled at the interval the server names.
import { request } from './api';
import { pushEvent, setUnread, type MessageEvent } from './stores/messages';
import { BADGE_RETRIES, BADGE_RETRY_MS, POLL_FALLBACK, ROUTE_DEBOUNCE_MS } from '../shared/messages';

const LOCK = 'atrium-messages-stream';
const CHANNEL = 'atrium-messages';
const STREAM = '/api/interaction/stream';
/** Stream errors in a row after which polling takes over until the page reloads. */
const MAX_STREAM_ERRORS = 5;

let started = false;
let channel: BroadcastChannel | null = null;
let connected = false;
let pollTimer: ReturnType<typeof setTimeout> | null = null;
let debounce: ReturnType<typeof setTimeout> | null = null;

/** Whether this tab holds the stream (for tests and the e2e check). */
export const liveState = { leader: false, streaming: false, polling: false };

/** Asks the server for the count, retried up to 3 times at 1 s (spec §4); returns the next poll interval. */
export async function refreshCount(): Promise<number> {
  for (let attempt = 0; attempt <= BADGE_RETRIES; attempt++) {
    try {
      const reply = await request<{ count: number; pollingInterval: number }>('/api/interaction/count', { params: { push: connected ? 1 : undefined }, showErrorMessage: false });
      setUnread(reply.data.count);
      channel?.postMessage({ kind: 'count', id: 0, count: reply.data.count } satisfies MessageEvent);
      return reply.data.pollingInterval;
    } catch (err) {
      const code = (err as { code?: number }).code;
      if (code === 303 || code === 409) return 0;
      if (attempt < BADGE_RETRIES) await new Promise((r) => setTimeout(r, BADGE_RETRY_MS));
    }
  }
  return POLL_FALLBACK;
}

function schedulePoll(seconds: number): void {
  if (pollTimer) clearTimeout(pollTimer);
  if (seconds <= 0) return;
  pollTimer = setTimeout(() => { void refreshCount().then(schedulePoll); }, seconds * 1000);
}

function deliver(event: MessageEvent): void {
  pushEvent(event);
  channel?.postMessage(event);
}

/** The leader's part: hold the stream until the tab goes away. Resolves never (the lock is held). */
function holdStream(): Promise<void> {
  liveState.leader = true;
  return new Promise<void>(() => {
    let errors = 0;
    const source = new EventSource(STREAM);
    const onEvent = (kind: MessageEvent['kind']) => (e: Event): void => {
      const me = e as globalThis.MessageEvent<string>;
      try {
        const data = JSON.parse(me.data) as Omit<MessageEvent, 'kind' | 'id'>;
        deliver({ ...data, kind, id: Number(me.lastEventId) || 0 });
      } catch { /* a malformed event: ignore */ }
    };
    for (const kind of ['count', 'message', 'sent', 'read', 'delete'] as const) source.addEventListener(kind, onEvent(kind));
    source.addEventListener('open', () => {
      errors = 0;
      connected = true;
      liveState.streaming = true;
      liveState.polling = false;
      // While the stream is there the count is only re-checked rarely.
      void refreshCount().then(schedulePoll);
    });
    const poll = (): void => {
      source.close();
      connected = false;
      liveState.streaming = false;
      liveState.polling = true;
      void refreshCount().then(schedulePoll);
    };
    source.addEventListener('error', () => {
      connected = false;
      liveState.streaming = false;
      errors++;
      if (source.readyState === EventSource.CLOSED || errors >= MAX_STREAM_ERRORS) poll();
    });
    // The server ended the stream: the session ended (the count then says to log in again), the
    // token expired, or newer streams of this member or address took its place. Reconnecting
    // would only push another one out, so the count is polled instead.
    source.addEventListener('end', poll);
    addEventListener('pagehide', () => source.close(), { once: true });
  });
}

/** Starts the live count once per tab: the leader streams, the others listen. */
export function startLive(): void {
  if (started || typeof window === 'undefined') return;
  started = true;
  document.addEventListener('astro:page-load', () => {
    // In-app navigation re-reads the count, debounced (spec §4).
    if (debounce) clearTimeout(debounce);
    debounce = setTimeout(() => { void refreshCount(); }, ROUTE_DEBOUNCE_MS);
  });
  const locks = (navigator as Navigator & { locks?: LockManager }).locks;
  if (typeof BroadcastChannel === 'undefined' || !locks || typeof EventSource === 'undefined') {
    liveState.polling = true;
    void refreshCount().then(schedulePoll);
    return;
  }
  channel = new BroadcastChannel(CHANNEL);
  channel.onmessage = (e: globalThis.MessageEvent<MessageEvent>) => pushEvent(e.data);
  void locks.request(LOCK, () => holdStream());
}
