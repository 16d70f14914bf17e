// Talking to an OpenAI-compatible model, and what its failures mean to the asker.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ChatModelConfig } from './models';
import { complete, type CompletionEnd, type CompletionRequest, type Usage } from './completion';
import type { WorkerIn, WorkerOut } from './completion-worker';
import { processWide } from '../process-wide';

export type { Usage } from './completion';

export type ProviderFailure = 'auth' | 'rateLimit' | 'timeout' | 'context' | 'unreachable' | 'server' | 'cut';

/** Which failure an error from the provider call is (the chat.error.* message key). */
export function failureOf(error: unknown, timedOut: boolean): ProviderFailure {
  if (timedOut) return 'timeout';
  const err = error as { statusCode?: number; responseBody?: string; message?: string; cause?: { code?: string } } | null;
  // Refusals and cut streams come as plain data with the HTTP status (completion.ts).
  if (typeof err?.statusCode === 'number') {
    const status = err?.statusCode ?? 0;
    const body = `${err?.responseBody ?? ''} ${err?.message ?? ''}`;
    // A stream that began (200) and then broke off.
    if (status >= 200 && status < 300) return 'cut';
    if (status === 401 || status === 403) return 'auth';
    if (status === 429) return 'rateLimit';
    if (status === 408 || status === 504) return 'timeout';
    if ((status === 400 || status === 413) && /context|too long|maximum.*tokens|token limit/i.test(body)) return 'context';
    if (!status) return 'unreachable';
    return 'server';
  }
  const text = `${err?.message ?? ''} ${err?.cause?.code ?? ''}`;
  if (/ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|fetch failed|Cannot connect/i.test(text)) return 'unreachable';
  if (/terminated|ECONNRESET|socket|premature|aborted/i.test(text)) return 'cut';
  return 'server';
}

export interface Generation {
  /** Text as it arrives, gathered into frames of up to FLUSH_MS (completion.ts). */
  deltas: AsyncIterable<string>;
  /** Usage reported by the provider, once the stream ended (null when it did not say). */
  usage(): Usage | null;
  /** The error that ended the stream, if any. */
  error(): unknown;
}

/** A reply's text as it comes, read once by the reply (a small queue between the producer and `for await`). */
function generation(): { gen: Generation; text(t: string): void; end(e: CompletionEnd): void } {
  const queue: string[] = [];
  let ended: CompletionEnd | null = null;
  let wake: (() => void) | null = null;
  const poke = (): void => { const w = wake; wake = null; w?.(); };
  async function* deltas(): AsyncIterable<string> {
    for (;;) {
      if (queue.length) { yield queue.splice(0).join(''); continue; }
      if (ended) return;
      await new Promise<void>((resolve) => { wake = resolve; });
    }
  }
  return {
    gen: { deltas: deltas(), usage: () => ended?.usage ?? null, error: () => ended?.error ?? null },
    text(t) { queue.push(t); poke(); },
    end(e) { ended = e; poke(); },
  };
}

/** The chat worker (dist/chat-worker.mjs beside the server), started on the first model reply. */
class CompletionWorker {
  static #file: URL | null | undefined;
  #worker: Worker;
  #next = 1;
  #replies = new Map<number, ReturnType<typeof generation>>();

  /**
   * The built worker file beside this module, else the one the server named (useBuiltChatWorker),
   * or null where there is none (astro dev, unit tests): then replies run in process.
   */
  static file(): URL | null {
    if (CompletionWorker.#file === undefined) {
      CompletionWorker.#file = ['./chat-worker.mjs', '../chat-worker.mjs', '../../chat-worker.mjs']
        .map((name) => new URL(name, import.meta.url)).find((url) => url.protocol === 'file:' && existsSync(fileURLToPath(url))) ?? null;
    }
    return CompletionWorker.#file ?? shared.file;
  }

  constructor(file: URL) {
    this.#worker = new Worker(file, { name: 'chat' });
    this.#worker.on('message', (batch: WorkerOut) => {
      for (const [id, kind, value] of batch) {
        const reply = this.#replies.get(id);
        if (!reply) continue;
        if (kind === 't') reply.text(value);
        else { this.#replies.delete(id); reply.end(value); }
      }
    });
    const fail = (err: unknown): void => {
      if (shared.worker === this) shared.worker = null;
      const end: CompletionEnd = { usage: null, error: { name: 'Error', message: `the chat worker stopped: ${String((err as Error)?.message ?? err)}` } };
      for (const reply of this.#replies.values()) reply.end(end);
      this.#replies.clear();
    };
    this.#worker.on('error', fail);
    this.#worker.on('exit', (code) => fail(new Error(`exit code ${code}`)));
    this.#worker.unref();
  }

  start(req: CompletionRequest, signal: AbortSignal): Generation {
    const id = this.#next++;
    const reply = generation();
    this.#replies.set(id, reply);
    const post = (msg: WorkerIn): void => this.#worker.postMessage(msg);
    post({ op: 'start', id, req });
    const abort = (): void => { if (this.#replies.has(id)) post({ op: 'abort', id, reason: String(signal.reason ?? 'aborted') }); };
    if (signal.aborted) abort(); else signal.addEventListener('abort', abort, { once: true });
    return reply.gen;
  }
}

// One worker per process, whichever copy of this module starts it (the server's bundle answers
// POST /api/chat/send, Astro's bundle the other chat routes: see streams.ts).
const shared = processWide<{ worker: CompletionWorker | null; file: URL | null }>('chat-worker', () => ({ worker: null, file: null }));

/**
 * Names the built worker file for a copy of this module that is not beside it: the server's
 * source run by the integration tests (src/server/app.ts) beside the built site.
 */
export function useBuiltChatWorker(file: string): void {
  if (!shared.file && existsSync(file)) shared.file = pathToFileURL(file);
}

/**
 * Starts a streamed completion of at most `maxOutputTokens`; the signal aborts the upstream request. It runs in the chat worker
 * thread where that is built, so 100 replies streaming at once do not take the request thread.
 */
export async function generate(model: ChatModelConfig, instructions: string, messages: { role: 'user' | 'assistant'; text: string }[], maxOutputTokens: number, signal: AbortSignal): Promise<Generation> {
  const req: CompletionRequest = { baseUrl: model.baseUrl, apiKey: model.apiKey, modelId: model.modelId, instructions, messages, maxOutputTokens };
  const file = CompletionWorker.file();
  if (file) {
    shared.worker ??= new CompletionWorker(file);
    return shared.worker.start(req, signal);
  }
  const reply = generation();
  void complete(req, signal, reply.text).then(reply.end);
  return reply.gen;
}
