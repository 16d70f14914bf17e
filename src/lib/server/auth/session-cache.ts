import type { Bus } from '../bus';
import type { UserRow } from '../account/users';

const CHANNEL = 'sessions:forget';
/** How long a looked-up session may be reused: a safety net; changes invalidate at once. */
const TTL_MS = 10_000;
const MAX_ENTRIES = 20_000;

export interface CachedSession {
  userId: number;
  family: string;
  expireTime: number;
  row: UserRow;
}

/**
 * Recently resolved access tokens, so an authenticated request costs a map lookup instead of a
 * database round trip. Everything that changes a member or ends a session calls `forgetUser`,
 * which drops their entries here and, through the bus, on every other instance.
 */
export class SessionCache {
  readonly #entries = new Map<string, CachedSession & { at: number }>();
  readonly #unsubscribe: () => void;

  constructor(private readonly bus: Bus) {
    this.#unsubscribe = bus.subscribe(CHANNEL, (message, fromSelf) => {
      if (!fromSelf) this.#drop((message as { userId: number }).userId);
    });
  }

  get(hash: string): CachedSession | null {
    const entry = this.#entries.get(hash);
    if (!entry) return null;
    if (Date.now() - entry.at > TTL_MS) {
      this.#entries.delete(hash);
      return null;
    }
    return entry;
  }

  set(hash: string, session: CachedSession): void {
    if (this.#entries.size >= MAX_ENTRIES) this.#entries.clear();
    this.#entries.set(hash, { ...session, at: Date.now() });
  }

  /** Call after changing a member's row or tokens. */
  async forgetUser(userId: number): Promise<void> {
    this.#drop(userId);
    await this.bus.publish(CHANNEL, { userId });
  }

  close(): void {
    this.#unsubscribe();
    this.#entries.clear();
  }

  #drop(userId: number): void {
    for (const [hash, entry] of this.#entries) if (entry.userId === userId) this.#entries.delete(hash);
  }
}
