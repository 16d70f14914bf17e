// What makes the message center live: every change to a member's messages is recorded as an event
// (kept a day for `Last-Event-ID` replay), published through the bus once the request that made it
// has finished (so the transaction has committed), and on every instance drops the member's cached
// unread count and reaches the member's open streams.
import { AsyncLocalStorage } from 'node:async_hooks';
import { and, count, eq, gt, lt, max } from 'drizzle-orm';
import type { Db } from '../db/client';
import type { Bus } from '../bus';
import { messageEvent, messages } from '../db/schema';
import { processWide } from '../process-wide';

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

export type LiveKind = 'message' | 'sent' | 'read' | 'delete';

export interface LiveEvent {
  /** message_event id: the stream's `id:`. */
  id: number;
  userId: number;
  kind: LiveKind;
  data: Record<string, unknown>;
}

/** What an open stream is handed: the event and the member's unread count after it. */
export interface Delivery { id: number; kind: LiveKind | 'count'; data: Record<string, unknown>; count: number }

export const LIVE_CHANNEL = 'messages:event';
/** A cached count is trusted this long even if a drop were lost (a CLI without Redis, a crash). */
const COUNT_TTL_MS = 10 * 60_000;
const MAX_CACHED = 200_000;
/** How long events are kept for replay. */
export const EVENT_KEEP_SECONDS = 86_400;
const REPLAY_LIMIT = 200;

// Shared by the server's bundle and Astro's bundle, which each carry this module.
interface Shared { outbox: AsyncLocalStorage<LiveEvent[]>; hubs: Map<Bus, MessageHub> }
const shared: Shared = processWide('messages-live', () => ({ outbox: new AsyncLocalStorage<LiveEvent[]>(), hubs: new Map() }));

const now = (): number => Math.floor(Date.now() / 1000);

/** Records events in the caller's transaction; they are published when the request finishes. */
export async function recordEvents(db: Db | Tx, events: readonly Omit<LiveEvent, 'id'>[]): Promise<void> {
  if (!events.length) return;
  const rows = await db.insert(messageEvent)
    .values(events.map((e) => ({ userId: e.userId, kind: e.kind, data: JSON.stringify(e.data), createTime: now() })))
    .returning({ id: messageEvent.id });
  const live = rows.map((r, i) => ({ ...events[i]!, id: r.id }));
  const queue = shared.outbox.getStore();
  if (queue) { queue.push(...live); return; }
  // Outside a request (operator commands, jobs, tests calling services): counts here are dropped
  // now and again, with the events, through every bus of this process once the caller's
  // transaction has had time to commit.
  for (const hub of shared.hubs.values()) for (const e of live) hub.drop(e.userId);
  setTimeout(() => { for (const hub of shared.hubs.values()) hub.publish(live).catch(() => undefined); }, 50).unref();
}

/**
 * Runs one request's work, then publishes the events it recorded. Nothing is published when it
 * throws: its transaction rolled back.
 */
export async function withOutbox<T>(bus: Bus, fn: () => Promise<T>): Promise<T> {
  const queue: LiveEvent[] = [];
  const result = await shared.outbox.run(queue, fn);
  // The change is committed: a bus that fails now must not turn it into an error reply. Open
  // pages then learn of it from their next poll or reconnect (the events are in the table).
  if (queue.length) await hubFor(bus, null).publish(queue).catch(() => undefined);
  return result;
}

type Sink = (delivery: Delivery) => void;

/** One per bus (so per runtime): unread counts kept in memory and the open streams of this instance. */
export class MessageHub {
  readonly #counts = new Map<number, { n: number; at: number }>();
  readonly #streams = new Map<number, Set<Sink>>();
  #epoch = 0;
  #db: Db | null;
  readonly #unsubscribe: () => void;

  constructor(private readonly bus: Bus, db: Db | null) {
    this.#db = db;
    this.#unsubscribe = bus.subscribe(LIVE_CHANNEL, (message) => { void this.#deliver(message as LiveEvent[]); });
  }

  attachDb(db: Db): void { this.#db ??= db; }

  /** The member's unread count, from memory when it is known. */
  async count(userId: number): Promise<number> {
    const hit = this.#counts.get(userId);
    if (hit && Date.now() - hit.at < COUNT_TTL_MS) return hit.n;
    const epoch = this.#epoch;
    const db = this.#need();
    const [row] = await db.select({ n: count() }).from(messages).where(and(eq(messages.recipientId, userId), eq(messages.readTime, 0)));
    const n = row?.n ?? 0;
    // A drop that arrived while counting means the number may already be old: do not keep it.
    if (epoch === this.#epoch) {
      if (this.#counts.size >= MAX_CACHED) this.#counts.delete(this.#counts.keys().next().value!);
      this.#counts.set(userId, { n, at: Date.now() });
    }
    return n;
  }

  drop(userId: number): void {
    this.#epoch++;
    this.#counts.delete(userId);
  }

  /** Drops the counts here at once (so this instance's next read is right), then tells every instance. */
  async publish(events: LiveEvent[]): Promise<void> {
    for (const e of events) this.drop(e.userId);
    await this.bus.publish(LIVE_CHANNEL, events);
  }

  /** Registers an open stream; returns its removal. */
  subscribe(userId: number, sink: Sink): () => void {
    let set = this.#streams.get(userId);
    if (!set) this.#streams.set(userId, set = new Set());
    set.add(sink);
    return () => {
      set.delete(sink);
      if (!set.size && this.#streams.get(userId) === set) this.#streams.delete(userId);
    };
  }

  /** Streams open on this instance. */
  get streamCount(): number {
    let n = 0;
    for (const set of this.#streams.values()) n += set.size;
    return n;
  }

  /** Events after `lastId` for a reconnecting stream, and the id to resume from. */
  async replay(userId: number, lastId: number | null): Promise<{ events: LiveEvent[]; lastId: number }> {
    const db = this.#need();
    if (lastId === null) {
      const [row] = await db.select({ id: max(messageEvent.id) }).from(messageEvent).where(eq(messageEvent.userId, userId));
      return { events: [], lastId: row?.id ?? 0 };
    }
    const rows = await db.select().from(messageEvent)
      .where(and(eq(messageEvent.userId, userId), gt(messageEvent.id, lastId))).orderBy(messageEvent.id).limit(REPLAY_LIMIT);
    const events = rows.map((r) => ({ id: r.id, userId: r.userId, kind: r.kind as LiveKind, data: JSON.parse(r.data) as Record<string, unknown> }));
    return { events, lastId: events.at(-1)?.id ?? lastId };
  }

  async #deliver(events: LiveEvent[]): Promise<void> {
    if (!Array.isArray(events)) return;
    const byUser = new Map<number, LiveEvent[]>();
    for (const e of events) {
      this.drop(e.userId);
      if (!this.#streams.has(e.userId)) continue;
      const list = byUser.get(e.userId) ?? [];
      list.push(e);
      byUser.set(e.userId, list);
    }
    for (const [userId, list] of byUser) {
      let n: number;
      try { n = await this.count(userId); } catch { continue; }
      for (const sink of this.#streams.get(userId) ?? []) for (const e of list) sink({ id: e.id, kind: e.kind, data: e.data, count: n });
    }
  }

  #need(): Db {
    if (!this.#db) throw new Error('message hub has no database');
    return this.#db;
  }

  close(): void {
    this.#unsubscribe();
    this.#streams.clear();
    this.#counts.clear();
    for (const [bus, hub] of shared.hubs) if (hub === this) shared.hubs.delete(bus);
  }
}

/** The hub of a runtime's bus, made on first use. */
export function hubFor(bus: Bus, db: Db | null): MessageHub {
  let hub = shared.hubs.get(bus);
  if (!hub) {
    hub = new MessageHub(bus, db);
    shared.hubs.set(bus, hub);
  } else if (db) hub.attachDb(db);
  return hub;
}

/** Deletes events older than a day; returns how many. */
export async function pruneEvents(db: Db): Promise<number> {
  const gone = await db.delete(messageEvent).where(lt(messageEvent.createTime, now() - EVENT_KEEP_SECONDS)).returning({ id: messageEvent.id });
  return gone.length;
}
