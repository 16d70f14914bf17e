import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

/**
 * Cross-instance events (cache invalidation now; unread counts and chat later). In one process it is
 * an EventEmitter; with Redis every instance receives every message, including its own.
 */
export interface Bus {
  readonly instanceId: string;
  publish(channel: string, message: unknown): Promise<void>;
  subscribe(channel: string, handler: (message: unknown, fromSelf: boolean) => void): () => void;
  /**
   * Called each time the bus is connected again after losing its connection: the bus delivers at
   * most once, so whoever keeps state from its messages reads the state again (never for memory).
   */
  onReconnect(handler: () => void): () => void;
  close(): Promise<void>;
}

interface Wire { from: string; message: unknown }

const RECONNECTED = Symbol('reconnected');

export function createMemoryBus(): Bus {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  const instanceId = randomUUID();
  return {
    instanceId,
    publish: async (channel, message) => { emitter.emit(channel, message); },
    subscribe(channel, handler) {
      const listener = (message: unknown): void => handler(message, true);
      emitter.on(channel, listener);
      return () => emitter.off(channel, listener);
    },
    onReconnect: () => () => undefined,
    close: async () => { emitter.removeAllListeners(); },
  };
}

export async function createRedisBus(pub: Redis, prefix = 'atrium:'): Promise<Bus> {
  const PREFIX = `${prefix}bus:`;
  const sub = pub.duplicate();
  // Connected (ready) before the first SUBSCRIBE: ioredis sends SUBSCRIBE while it still waits for
  // its handshake, then its ready check (INFO) fails in subscriber mode and the connection never
  // becomes ready, so this instance would silently miss every other instance's events.
  if (sub.status === 'wait') await sub.connect();
  else if (sub.status !== 'ready') await new Promise<void>((resolve, reject) => { sub.once('ready', resolve); sub.once('error', reject); });
  const instanceId = randomUUID();
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  sub.on('message', (channel: string, raw: string) => {
    try {
      const wire = JSON.parse(raw) as Wire;
      emitter.emit(channel.slice(PREFIX.length), wire.message, wire.from === instanceId);
    } catch { /* a foreign message on our prefix: ignore */ }
  });
  const subscribed = new Set<string>();
  // `ready` again after the first time is a reconnect: messages sent meanwhile are lost.
  sub.on('ready', () => emitter.emit(RECONNECTED));
  return {
    instanceId,
    async publish(channel, message) {
      await pub.publish(PREFIX + channel, JSON.stringify({ from: instanceId, message } satisfies Wire));
    },
    subscribe(channel, handler) {
      if (!subscribed.has(channel)) {
        subscribed.add(channel);
        // While reconnecting, the same race: ioredis resubscribes every channel once ready.
        if (sub.status === 'ready') void sub.subscribe(PREFIX + channel);
        else sub.once('ready', () => void sub.subscribe(PREFIX + channel));
      }
      emitter.on(channel, handler);
      return () => emitter.off(channel, handler);
    },
    onReconnect(handler) {
      emitter.on(RECONNECTED, handler);
      return () => emitter.off(RECONNECTED, handler);
    },
    async close() {
      emitter.removeAllListeners();
      sub.disconnect();
    },
  };
}
