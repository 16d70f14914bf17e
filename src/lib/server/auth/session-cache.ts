import type { Bus } from '../bus';
import type { UserRow } from '../db/rows';
import { SessionStreams, type EndedScope, type StreamCaps } from './session-streams';
import { LRUCache } from 'lru-cache';

const CHANNEL = 'sessions:forget';
/** Sessions that ended: every instance drops them from its cache and closes their streams. */
const ENDED_CHANNEL = 'sessions:ended';
/** How long a looked-up session may be reused: a safety net; changes invalidate at once. */
const TTL_MS = 10_000;
const MAX_ENTRIES = 20_000;

export interface CachedSession {
  userId: number;
  family: string;
  expireTime: number;
  row: UserRow;
}

interface EndedMessage { userId: number; scope: EndedScope }

/**
 * Recently resolved access tokens, so an authenticated request costs a map lookup instead of a
 * database round trip. Everything that changes a member or ends a session calls `forgetUser`,
 * which drops their entries here and, through the bus, on every other instance. Ending sessions
 * (`endSessions`) also closes the streams they hold open, on every instance.
 */
export class SessionCache {
  readonly #entries = new LRUCache<string, CachedSession>({ max: MAX_ENTRIES, ttl: TTL_MS });
  readonly #unsubscribe: (() => void)[];
  /** The streams sessions hold open on this instance. */
  readonly streams: SessionStreams;

  constructor(private readonly bus: Bus, caps?: StreamCaps) {
    this.streams = new SessionStreams(caps);
    this.#unsubscribe = [
      bus.subscribe(CHANNEL, (message, fromSelf) => {
        if (!fromSelf) this.#drop((message as { userId: number }).userId);
      }),
      // Our own message too: ending twice is harmless, and a Redis bus delivers it in order.
      bus.subscribe(ENDED_CHANNEL, (message) => {
        const ended = message as EndedMessage;
        if (typeof ended?.userId === 'number' && ended.scope) this.#end(ended.userId, ended.scope);
      }),
    ];
  }

  get(hash: string): CachedSession | null {
    return this.#entries.get(hash) ?? null;
  }

  set(hash: string, session: CachedSession): void {
    this.#entries.set(hash, session);
  }

  /** Call after changing a member's row or tokens. */
  async forgetUser(userId: number): Promise<void> {
    this.#drop(userId);
    await this.bus.publish(CHANNEL, { userId });
  }

  /**
   * Call once sessions' tokens are deleted (committed): drops the member's cached sessions and
   * closes the streams of the ended ones, here at once and on every instance through the bus.
   */
  async endSessions(userId: number, scope: EndedScope): Promise<void> {
    this.#end(userId, scope);
    await this.bus.publish(ENDED_CHANNEL, { userId, scope } satisfies EndedMessage);
  }

  close(): void {
    for (const unsubscribe of this.#unsubscribe) unsubscribe();
    this.#entries.clear();
  }

  // One step: a token read from the cache before this is caught by the streams' epoch after it.
  #end(userId: number, scope: EndedScope): void {
    this.#drop(userId);
    this.streams.end(userId, scope);
  }

  #drop(userId: number): void {
    const hashes: string[] = [];
    for (const [hash, entry] of this.#entries.entries()) if (entry.userId === userId) hashes.push(hash);
    for (const hash of hashes) this.#entries.delete(hash);
  }
}
