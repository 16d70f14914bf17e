// Running replies: each is a resumable stream (resumable-stream, with Redis when REDIS_URL is set so
// another instance can resume it, in this process otherwise) and an abort controller that a stop
// on any instance reaches through the bus.
import { EventEmitter } from 'node:events';
import { createResumableStreamContext, type Publisher, type ResumableStreamContext, type Subscriber } from 'resumable-stream/generic';
import type { Runtime } from '../runtime';
import { serverHighlight } from '../../markdown/highlight.server';
import { RetrievalCache } from './retrieve';
import { allModels, type ChatModelConfig } from './models';
import { processWide } from '../process-wide';

const STOP_CHANNEL = 'chat:stop';
/** How long a visitor's finished reply stays recoverable (the resumable stream's own lifetime). */
const FINISHED_SECONDS = 24 * 60 * 60;
/** Finished replies kept in this process without Redis. */
const FINISHED_MAX = 2000;
/**
 * Models are read again at least this often: the CLI's changes drop them through the bus, but a
 * CLI process beside a PostgreSQL site without Redis (or a change made in SQL) is not on it.
 */
const MODELS_TTL_MS = 2_000;

/**
 * Who a running reply belongs to (a member, or the hash of a visitor's key), to find it by its chat
 * without the database; `turn` is the page's name for the send that started it (a stop names it).
 */
export interface RunningReply { replyId: string; chatId: string; userId: number; ownerKey: string; turn?: string }

/** How long a stop that came before its reply started waits for it. */
const STOP_WAIT_SECONDS = 120;

/** A visitor's finished reply, kept so a reload after its end shows it (their chats live in the browser). */
export interface FinishedReply { replyId: string; chatId: string; userId: number; ownerKey: string; parentId: string; text: string; metadata: Record<string, unknown> }

export interface ChatStreams {
  context: ResumableStreamContext;
  /** Passages per question, dropped when docs, forum or site settings change (here and, through the bus, everywhere). */
  retrieval: RetrievalCache;
  /** The connected models (the environment's and the stored ones), cached until they change. */
  models(): Promise<ChatModelConfig[]>;
  /** Registers a running reply; the returned function unregisters it. */
  track(reply: RunningReply, controller: AbortController): () => void;
  /** The reply this instance is writing in a chat, if any. */
  runningIn(chatId: string): RunningReply | null;
  /** Keeps a visitor's finished reply for a day (in Redis when there is one). */
  remember(reply: FinishedReply): Promise<void>;
  /** The last finished reply kept for a chat. */
  recall(chatId: string): Promise<FinishedReply | null>;
  /** Stops a reply wherever it runs. */
  stop(replyId: string): Promise<void>;
  /**
   * Stops the reply a page's send (`turn`, in a chat, by an owner) started, wherever it runs, and
   * if it has not started yet, as it starts: a stop can reach the server before its question does.
   */
  stopTurn(chatId: string, turn: string, owner: string): Promise<void>;
  /** Whether a stop for this send came before its reply started. */
  stopWanted(chatId: string, turn: string, owner: string): Promise<boolean>;
  /** How many replies this instance is generating. */
  running(): number;
  close(): Promise<void>;
}

/** Redis-like publisher and subscriber kept in this process, with key expiry. */
function memoryPubSub(): { publisher: Publisher; subscriber: Subscriber } {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  const values = new Map<string, { value: string; expires: number }>();
  const read = (key: string): string | null => {
    const entry = values.get(key);
    if (!entry) return null;
    if (entry.expires && entry.expires < Date.now()) { values.delete(key); return null; }
    return entry.value;
  };
  const sweep = setInterval(() => { for (const key of values.keys()) read(key); }, 60_000);
  sweep.unref();
  const listeners = new Map<string, (message: string) => void>();
  return {
    publisher: {
      connect: async () => undefined,
      publish: async (channel, message) => { const n = emitter.listenerCount(channel); emitter.emit(channel, message); return n; },
      set: async (key, value, options) => { values.set(key, { value, expires: options?.EX ? Date.now() + options.EX * 1000 : 0 }); return 'OK'; },
      get: async (key) => read(key),
      incr: async (key) => {
        const next = Number(read(key) ?? 0) + 1;
        const old = values.get(key);
        values.set(key, { value: String(next), expires: old?.expires ?? 0 });
        return next;
      },
    },
    subscriber: {
      connect: async () => undefined,
      subscribe: async (channel, callback) => { listeners.set(channel, callback); emitter.on(channel, callback); },
      unsubscribe: async (channel) => {
        const callback = listeners.get(channel);
        if (callback) emitter.off(channel, callback);
        listeners.delete(channel);
      },
    },
  };
}

// One per process, whichever copy of this module asks: the server's bundle answers POST
// /api/chat/send itself (src/server/chat-send.ts) and Astro's bundle the other chat routes, and a
// reply one starts the other must find, stop and resume.
const contexts = processWide('chat-streams', () => new WeakMap<Runtime, Promise<ChatStreams>>());

/** The chat streams of this runtime, made on first use. */
export function chatStreams(runtime: Runtime): Promise<ChatStreams> {
  let made = contexts.get(runtime);
  if (!made) {
    made = createChatStreams(runtime);
    contexts.set(runtime, made);
    // The runtime closes what it made; these are made later, so they join its close.
    const close = runtime.close.bind(runtime);
    runtime.close = async () => { await closeChatStreams(runtime); await close(); };
  }
  return made;
}

async function createChatStreams(runtime: Runtime): Promise<ChatStreams> {
  // Answers end with their highlighted HTML: load the highlighter while the first one streams.
  void serverHighlight().catch(() => undefined);
  const closers: (() => Promise<unknown>)[] = [];
  let context: ResumableStreamContext;
  let redis: import('ioredis').Redis | null = null;
  if (runtime.config.redisUrl) {
    const { Redis } = await import('ioredis');
    const publisher = new Redis(runtime.config.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 2 });
    const subscriber = new Redis(runtime.config.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 2 });
    await Promise.all([publisher.connect(), subscriber.connect()]);
    closers.push(async () => { publisher.disconnect(); subscriber.disconnect(); });
    redis = publisher;
    const { createResumableStreamContext: redisContext } = await import('resumable-stream/ioredis');
    context = redisContext({ waitUntil: null, publisher, subscriber, keyPrefix: `${runtime.config.redisPrefix}chat-stream` });
  } else {
    context = createResumableStreamContext({ waitUntil: null, ...memoryPubSub(), keyPrefix: 'chat-stream' });
  }
  const controllers = new Map<string, AbortController>();
  const running = new Map<string, RunningReply>();
  const retrieval = new RetrievalCache();
  let models: { at: number; value: Promise<ChatModelConfig[]> } | null = null;
  const offInvalidate = runtime.invalidation.listen((tags) => {
    if (tags.some((t) => t === 'ask' || t === 'md' || t === 'site')) retrieval.clear();
    if (tags.some((t) => t === 'chat' || t === 'site')) models = null;
  });
  const finishedKey = (chatId: string): string => `${runtime.config.redisPrefix}chat-finished:${chatId}`;
  const finished = new Map<string, { value: string; expires: number }>();
  let kv: { set(key: string, value: string, seconds?: number): Promise<unknown>; get(key: string): Promise<string | null> };
  if (redis) {
    const client = redis;
    kv = { set: (key, value, seconds = FINISHED_SECONDS) => client.set(key, value, 'EX', seconds), get: (key) => client.get(key) };
  } else {
    kv = {
      async set(key, value, seconds = FINISHED_SECONDS) {
        finished.delete(key);
        finished.set(key, { value, expires: Date.now() + seconds * 1000 });
        while (finished.size > FINISHED_MAX) finished.delete(finished.keys().next().value!);
      },
      async get(key) {
        const hit = finished.get(key);
        if (!hit || hit.expires < Date.now()) { finished.delete(key); return null; }
        return hit.value;
      },
    };
  }
  const stopKey = (chatId: string, turn: string, owner: string): string => `${runtime.config.redisPrefix}chat-stop:${chatId}:${turn}:${owner}`;
  const ownerOf = (reply: RunningReply): string => (reply.userId ? `u${reply.userId}` : `k${reply.ownerKey}`);
  const stopLocalTurn = (chatId: string, turn: string, owner: string): void => {
    const reply = running.get(chatId);
    if (reply && reply.turn === turn && ownerOf(reply) === owner) controllers.get(reply.replyId)?.abort('stop');
  };
  const unsubscribe = runtime.bus.subscribe(STOP_CHANNEL, (message) => {
    const { id, chatId, turn, owner } = message as { id?: string; chatId?: string; turn?: string; owner?: string };
    if (id) controllers.get(id)?.abort('stop');
    if (chatId && turn && owner) stopLocalTurn(chatId, turn, owner);
  });
  const streams: ChatStreams = {
    context,
    retrieval,
    models() {
      if (!models || Date.now() - models.at > MODELS_TTL_MS) {
        const value = allModels(runtime.db, runtime.config.chat.model);
        const entry = { at: Date.now(), value };
        models = entry;
        value.catch(() => { if (models === entry) models = null; });
      }
      return models.value;
    },
    track(reply, controller) {
      controllers.set(reply.replyId, controller);
      running.set(reply.chatId, reply);
      return () => {
        if (controllers.get(reply.replyId) === controller) controllers.delete(reply.replyId);
        if (running.get(reply.chatId) === reply) running.delete(reply.chatId);
      };
    },
    runningIn: (chatId) => running.get(chatId) ?? null,
    async remember(reply) {
      await kv.set(finishedKey(reply.chatId), JSON.stringify(reply));
    },
    async recall(chatId) {
      const raw = await kv.get(finishedKey(chatId));
      if (!raw) return null;
      try { return JSON.parse(raw) as FinishedReply; } catch { return null; }
    },
    async stop(replyId) {
      controllers.get(replyId)?.abort('stop');
      await runtime.bus.publish(STOP_CHANNEL, { id: replyId });
    },
    async stopTurn(chatId, turn, owner) {
      // Noted first, then looked for: a reply that starts in between finds the note (sendReply).
      await kv.set(stopKey(chatId, turn, owner), '1', STOP_WAIT_SECONDS);
      stopLocalTurn(chatId, turn, owner);
      await runtime.bus.publish(STOP_CHANNEL, { chatId, turn, owner });
    },
    async stopWanted(chatId, turn, owner) {
      return (await kv.get(stopKey(chatId, turn, owner))) !== null;
    },
    running: () => controllers.size,
    async close() {
      unsubscribe();
      offInvalidate();
      retrieval.clear();
      finished.clear();
      for (const c of controllers.values()) c.abort('shutdown');
      for (const close of closers) await close();
    },
  };
  return streams;
}

/** Ends this runtime's chat streams (at shutdown). */
export async function closeChatStreams(runtime: Runtime): Promise<void> {
  const made = contexts.get(runtime);
  if (!made) return;
  contexts.delete(runtime);
  await (await made).close();
}
