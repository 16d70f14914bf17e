// The request-thread side of PGlite in a worker thread: an object with the part of PGlite's API that
// drizzle-orm/pglite calls (query, exec, transaction with a tx that has query and exec), each call
// a message to pglite-worker.ts. PGlite's locks live in the worker, so queries are serialised
// there exactly as in-process; results and errors arrive as structured clones, which keep Date,
// bigint, Uint8Array, arrays and parsed json as PGlite returned them. Queries outside a
// transaction are awaited; statements inside one block for their answer (see transaction()).
import { existsSync } from 'node:fs';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { messages, TransactionAbortedError, type QueryOptions, type Results, type Transaction } from '@electric-sql/pglite';
import type { WorkerError, WorkerReply, WorkerRequest, WorkerStart } from './pglite-worker';
import { PGLITE_SETTINGS, pgliteTemplate } from './pglite-options';

/** A request before it gets its id (Omit distributed over the union). */
type Payload = WorkerRequest extends infer R ? (R extends WorkerRequest ? Omit<R, 'id'> : never) : never;

/** Slot 0 of the shared signal (see WorkerStart in pglite-worker.ts). */
const SIGNAL_WAITING = 0;
const SIGNAL_ENDED = 2;

interface Pending {
  resolve(value: unknown): void;
  reject(err: unknown): void;
  options: QueryOptions | undefined;
}

/** Built next to dist/atrium.mjs by scripts/build.mjs; the sources' .ts runs as it is (vitest, astro dev). */
function findWorkerFile(): URL {
  for (const name of ['./pglite-worker.mjs', './pglite-worker.ts']) {
    const url = new URL(name, import.meta.url);
    if (existsSync(fileURLToPath(url))) return url;
  }
  throw new Error(`pglite-worker.mjs is missing beside ${fileURLToPath(import.meta.url)}: rebuild, or set PGLITE_WORKER=0`);
}

function toError(e: WorkerError, options: QueryOptions | undefined): Error {
  let err: Error;
  if (e.kind === 'Error') {
    err = new Error(e.message);
    if (e.name !== 'Error') err.name = e.name;
  } else {
    const length = typeof e.props.length === 'number' ? e.props.length : 0;
    err = e.kind === 'TransactionAbortedError' ? new TransactionAbortedError() : new messages.DatabaseError(e.message, length, e.name as messages.MessageName);
    err.message = e.message;
  }
  Object.assign(err, e.props);
  // Where PGlite raised it, as in-process (the request's own frames are in the drizzle error around it).
  if (e.stack) err.stack = e.stack;
  if (options && 'query' in e.props) Object.assign(err, { queryOptions: options });
  return err;
}

export class PgliteWorkerClient {
  readonly #worker: Worker;
  readonly #signal: Int32Array;
  readonly #syncPort: MessagePort;
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;
  #dead: Error | null = null;
  #exited: Promise<void>;

  private constructor(worker: Worker, signal: Int32Array, syncPort: MessagePort) {
    this.#worker = worker;
    this.#signal = signal;
    this.#syncPort = syncPort;
    this.#exited = new Promise((resolve) => worker.once('exit', () => resolve()));
    worker.on('message', (reply: WorkerReply) => this.#settle(reply));
    worker.on('error', (err) => this.#die(err));
    worker.on('exit', (code) => this.#die(new Error(`the PGlite worker exited (code ${code})`)));
    worker.unref();
  }

  /** Starts the worker and waits until PGlite has opened `dataDir`. */
  static async start(dataDir: string): Promise<PgliteWorkerClient> {
    const signal = new SharedArrayBuffer(4);
    const { port1, port2 } = new MessageChannel();
    const file = findWorkerFile();
    const workerData: WorkerStart = { dataDir, signal, syncPort: port2, settings: PGLITE_SETTINGS, template: pgliteTemplate(file) };
    const worker = new Worker(file, { workerData, transferList: [port2], name: 'pglite' });
    const client = new PgliteWorkerClient(worker, new Int32Array(signal), port1);
    try {
      await client.#request(0, null, undefined);
    } catch (err) {
      await worker.terminate();
      throw err;
    }
    return client;
  }

  /** True once the worker thread has ended (after close(), or a crash). */
  get closed(): boolean {
    return this.#dead !== null;
  }

  query<T>(sql: string, params: unknown[] = [], options?: QueryOptions): Promise<Results<T>> {
    return this.#query(0, sql, params, options) as Promise<Results<T>>;
  }

  exec(sql: string): Promise<Results[]> {
    return this.#call({ op: 'exec', tx: 0, sql }) as Promise<Results[]>;
  }

  /**
   * Like PGlite's: commits when `fn` resolves, rolls back when it throws, holds other queries
   * meanwhile. Begin waits like any query; the statements inside wait for their answer with the
   * thread blocked, as in-process PGlite would be, so the lock is not held across other requests'
   * work (a waiting answer would otherwise queue behind it).
   */
  async transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
    const txId = (await this.#call({ op: 'begin' })) as number;
    let closed = false;
    const inTx = (payload: Payload, options?: QueryOptions): unknown => {
      if (closed) throw new Error('Transaction is closed');
      return this.#callSync(payload, options);
    };
    const tx = {
      query: async (sql: string, params?: unknown[], options?: QueryOptions) => inTx(this.#queryPayload(txId, sql, params ?? [], options), options),
      exec: async (sql: string) => inTx({ op: 'exec', tx: txId, sql }),
      rollback: async () => {
        await inTx({ op: 'rollback', tx: txId });
        closed = true;
      },
      get closed() {
        return closed;
      },
    } as unknown as Transaction;
    let result: T;
    try {
      result = await fn(tx);
    } catch (err) {
      if (!closed) {
        await inTx({ op: 'rollback', tx: txId });
        closed = true;
      }
      throw err;
    }
    if (!closed) {
      await inTx({ op: 'commit', tx: txId });
      closed = true;
    }
    return result;
  }

  /** Closes PGlite in the worker (flushing it to disk), then ends the thread. */
  async close(): Promise<void> {
    if (!this.#dead) {
      try {
        await this.#call({ op: 'close' });
      } finally {
        await this.#worker.terminate();
      }
    }
    await this.#exited;
  }

  #query(tx: number, sql: string, params: unknown[], options: QueryOptions | undefined): Promise<unknown> {
    return this.#call(this.#queryPayload(tx, sql, params, options), options);
  }

  #queryPayload(tx: number, sql: string, params: unknown[], options: QueryOptions | undefined): Payload {
    const rawTypes = options?.parsers ? Object.keys(options.parsers).map(Number) : [];
    return { op: 'query', tx, sql, params, rowMode: options?.rowMode ?? 'object', rawTypes };
  }

  /** Sends a request and blocks this thread until the worker answers it on the sync port. */
  #callSync(payload: Payload, options: QueryOptions | undefined): unknown {
    if (this.#dead) throw new Error('PGlite is closed');
    const id = this.#nextId++;
    Atomics.store(this.#signal, 0, SIGNAL_WAITING);
    this.#worker.postMessage({ ...payload, id, sync: true });
    for (;;) {
      const received = receiveMessageOnPort(this.#syncPort) as { message: WorkerReply } | undefined;
      if (received) {
        const reply = received.message;
        if ('error' in reply) throw toError(reply.error, options);
        return reply.value;
      }
      if (Atomics.load(this.#signal, 0) === SIGNAL_ENDED) throw new Error('the PGlite worker ended');
      Atomics.wait(this.#signal, 0, SIGNAL_WAITING);
    }
  }

  #call(payload: Payload, options?: QueryOptions): Promise<unknown> {
    return this.#request(this.#nextId++, payload, options);
  }

  #request(id: number, payload: Payload | null, options: QueryOptions | undefined): Promise<unknown> {
    if (this.#dead) return Promise.reject(new Error('PGlite is closed'));
    return new Promise((resolve, reject) => {
      if (payload) {
        try {
          this.#worker.postMessage({ ...payload, id });
        } catch (err) {
          reject(err);
          return;
        }
      }
      // Referenced only while something waits on it: an idle worker must not keep the process alive.
      if (this.#pending.size === 0) this.#worker.ref();
      this.#pending.set(id, { resolve, reject, options });
    });
  }

  #settle(reply: WorkerReply): void {
    const pending = this.#pending.get(reply.id);
    if (!pending) return;
    this.#pending.delete(reply.id);
    if (this.#pending.size === 0) this.#worker.unref();
    if ('error' in reply) pending.reject(toError(reply.error, pending.options));
    else pending.resolve(reply.value);
  }

  #die(err: Error): void {
    this.#dead ??= err;
    for (const pending of this.#pending.values()) pending.reject(err);
    this.#pending.clear();
  }
}
