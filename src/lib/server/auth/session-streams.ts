// The long-lived replies a session holds open on this instance (message streams, chat reply
// streams), so that ending the session ends them: logout, a password change, an operator blocking
// the member, a stolen refresh token or the access token's expiry. Sessions end in the database
// first, then session-cache.ts publishes the end on the bus and every instance's registry closes
// the matching streams. Message streams are also capped per member and per address, oldest first.
import { MESSAGE_STREAMS_PER_ADDRESS, MESSAGE_STREAMS_PER_MEMBER, type StreamCaps } from '../env';

/** What a resolved access token tells a stream about its session. */
export interface SessionRef {
  userId: number;
  /** The session's token family (one login); every access and refresh token of it shares it. */
  family: string;
  /** HMAC of the access token (a session without a family is known by it). */
  tokenHash: string;
  /** When the access token expires (unix seconds): the stream ends then. */
  expireTime: number;
  /** The registry's epoch just before the token was read: an end that came after it still applies. */
  seen: number;
}

/** Which sessions of a member ended: some families, or every one but `except` (null: all). */
export type EndedScope = { families: string[] } | { except: string | null };

/** Why a stream was closed; the message stream tells its client, which then stops reconnecting. */
export type CloseReason = 'session' | 'expired' | 'limit';

// The default caps live with the settings read from the environment (env.ts).
export { MESSAGE_STREAMS_PER_ADDRESS, MESSAGE_STREAMS_PER_MEMBER, type StreamCaps };

export interface OpenStream {
  ref: SessionRef;
  /** Message streams count against the caps; chat reply streams do not. */
  capped: boolean;
  /** The client address (for the per-address cap). */
  address: string;
  /** Ends the reply; called once. */
  close(reason: CloseReason): void;
}

interface Entry extends OpenStream { key: string; timer: NodeJS.Timeout | null }
interface Ended { epoch: number; userId: number; scope: EndedScope; at: number }

/** How long ends are remembered for streams whose token was read before them (a slow open). */
const REMEMBER_MS = 5 * 60_000;
const REMEMBER_MAX = 10_000;
/** setTimeout's longest delay; a later expiry is checked again then. */
const MAX_DELAY = 2 ** 31 - 1;

const keyOf = (ref: Pick<SessionRef, 'family' | 'tokenHash'>): string => ref.family || `token:${ref.tokenHash}`;

function matches(ended: Pick<Ended, 'userId' | 'scope'>, userId: number, key: string): boolean {
  if (ended.userId !== userId) return false;
  return 'families' in ended.scope ? ended.scope.families.includes(key) : ended.scope.except !== key;
}

export class SessionStreams {
  readonly #byUser = new Map<number, Set<Entry>>();
  readonly #byAddress = new Map<string, Set<Entry>>();
  readonly #ended: Ended[] = [];
  #epoch = 0;
  /** Ends up to this epoch are forgotten: a stream that read its token before then is closed. */
  #forgotten = 0;

  constructor(private readonly caps: StreamCaps = { perMember: MESSAGE_STREAMS_PER_MEMBER, perAddress: MESSAGE_STREAMS_PER_ADDRESS }) {}

  /** Read before resolving a token (see SessionRef.seen). */
  get epoch(): number { return this.#epoch; }

  /**
   * Holds a stream until its session ends or its token expires; returns its removal (call it when
   * the reply ends on its own). A session that ended while the stream was being opened closes it at once.
   */
  register(stream: OpenStream): () => void {
    const key = keyOf(stream.ref);
    const { ref } = stream;
    const endedMeanwhile = ref.seen < this.#forgotten || this.#ended.some((e) => e.epoch > ref.seen && matches(e, ref.userId, key));
    if (endedMeanwhile || ref.expireTime * 1000 <= Date.now()) {
      stream.close(endedMeanwhile ? 'session' : 'expired');
      return () => undefined;
    }
    const entry: Entry = { ...stream, key, timer: null };
    add(this.#byUser, ref.userId, entry);
    if (stream.capped) add(this.#byAddress, stream.address, entry);
    this.#armExpiry(entry);
    if (stream.capped) {
      this.#evict([...this.#byUser.get(ref.userId)!], this.caps.perMember);
      this.#evict([...(this.#byAddress.get(stream.address) ?? [])], this.caps.perAddress);
    }
    return () => this.#remove(entry);
  }

  /** Closes this instance's streams of the ended sessions, and remembers the end for streams being opened. */
  end(userId: number, scope: EndedScope): number {
    this.#epoch++;
    this.#ended.push({ epoch: this.#epoch, userId, scope, at: Date.now() });
    while (this.#ended.length > REMEMBER_MAX || (this.#ended.length && Date.now() - this.#ended[0]!.at > REMEMBER_MS)) {
      this.#forgotten = this.#ended.shift()!.epoch;
    }
    let closed = 0;
    for (const entry of [...(this.#byUser.get(userId) ?? [])]) {
      if (!matches({ userId, scope }, userId, entry.key)) continue;
      this.#closeEntry(entry, 'session');
      closed++;
    }
    return closed;
  }

  /** Open streams on this instance, of one member or in all. */
  count(userId?: number): number {
    if (userId !== undefined) return this.#byUser.get(userId)?.size ?? 0;
    let n = 0;
    for (const set of this.#byUser.values()) n += set.size;
    return n;
  }

  /**
   * A body that ends with the session: the chat reply streams. Canceling it (the client went away)
   * releases it; the reply it reads keeps running, as it does on any disconnect.
   */
  tieStream<T>(ref: SessionRef, address: string, body: ReadableStream<T>): ReadableStream<T> {
    const reader = body.getReader();
    let release: () => void = () => undefined;
    let done = false;
    return new ReadableStream<T>({
      start: (controller) => {
        release = this.register({
          ref, address, capped: false,
          close: () => {
            if (done) return;
            done = true;
            reader.cancel().catch(() => undefined);
            controller.close();
          },
        });
      },
      pull: async (controller) => {
        const chunk = await reader.read().catch(() => ({ done: true as const, value: undefined }));
        if (done) return;
        if (chunk.done) {
          done = true;
          release();
          controller.close();
        } else {
          controller.enqueue(chunk.value);
        }
      },
      cancel: async (reason) => {
        done = true;
        release();
        await reader.cancel(reason).catch(() => undefined);
      },
    });
  }

  /** A web Response whose body ends with the session (tieStream). */
  tieResponse(ref: SessionRef, address: string, response: Response): Response {
    if (!response.body) return response;
    return new Response(this.tieStream(ref, address, response.body), { status: response.status, statusText: response.statusText, headers: response.headers });
  }

  #armExpiry(entry: Entry): void {
    const ms = entry.ref.expireTime * 1000 - Date.now();
    entry.timer = setTimeout(() => {
      if (ms > MAX_DELAY) this.#armExpiry(entry);
      else this.#closeEntry(entry, 'expired');
    }, Math.min(Math.max(ms, 0), MAX_DELAY));
    entry.timer.unref();
  }

  /** Closes the oldest of `entries` (in opening order) past `cap`. */
  #evict(entries: Entry[], cap: number): void {
    if (cap <= 0) return;
    const capped = entries.filter((e) => e.capped);
    for (const entry of capped.slice(0, Math.max(0, capped.length - cap))) this.#closeEntry(entry, 'limit');
  }

  #closeEntry(entry: Entry, reason: CloseReason): void {
    if (!this.#remove(entry)) return;
    try { entry.close(reason); } catch { /* already closed by its client */ }
  }

  /** False when it was already gone. */
  #remove(entry: Entry): boolean {
    const users = this.#byUser.get(entry.ref.userId);
    if (!users?.delete(entry)) return false;
    if (!users.size) this.#byUser.delete(entry.ref.userId);
    const addresses = this.#byAddress.get(entry.address);
    if (addresses?.delete(entry) && !addresses.size) this.#byAddress.delete(entry.address);
    if (entry.timer) clearTimeout(entry.timer);
    return true;
  }
}

function add<K>(map: Map<K, Set<Entry>>, key: K, entry: Entry): void {
  let set = map.get(key);
  if (!set) map.set(key, set = new Set());
  set.add(entry);
}
