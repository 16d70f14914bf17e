// The worker-thread side of PGlite (PGLITE_WORKER, see pglite-worker-client.ts): it owns the PGlite
// instance, so the WASM engine and the protocol parsing run beside the request thread, not on it.
// Node loads this file as it is (type stripping) from the sources and as dist/pglite-worker.mjs
// from the build: it may import only node built-ins and packages, and use only erasable syntax.
import { existsSync, openAsBlob } from 'node:fs';
import { join } from 'node:path';
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { PGlite, messages, TransactionAbortedError, type QueryOptions, type Transaction } from '@electric-sql/pglite';

/**
 * `tx` is 0 outside a transaction, else the id `begin` answered. `sync` requests (inside an open
 * transaction) are answered on the sync port and signalled through `signal`.
 */
export type WorkerRequest = { id: number; sync?: boolean } & (
  | { op: 'query'; tx: number; sql: string; params: unknown[]; rowMode: 'array' | 'object'; rawTypes: number[] }
  | { op: 'exec'; tx: number; sql: string }
  | { op: 'begin' }
  | { op: 'commit' | 'rollback'; tx: number }
  | { op: 'close' }
);

/** Answers carry the request's id; id 0 answers the start. */
export type WorkerReply = { id: number; value: unknown } | { id: number; error: WorkerError };

/** An error as structured clone can carry it: PGlite's own fields (`code`, `detail`, …) kept. */
export interface WorkerError {
  kind: 'DatabaseError' | 'TransactionAbortedError' | 'Error';
  name: string;
  message: string;
  stack: string | undefined;
  props: Record<string, unknown>;
}

export interface WorkerStart {
  dataDir: string;
  /** Int32 slot 0: the client waits while it is 0; 1 = a sync answer is on syncPort, 2 = the worker ended. */
  signal: SharedArrayBuffer;
  syncPort: MessagePort;
  /** `name=value` PostgreSQL settings (PGLITE_SETTINGS of pglite-options.ts, which this file may not import). */
  settings: readonly string[];
  /** dist/pglite-template.tar.gz when the build made it: loaded instead of running initdb on a new database. */
  template: string | null;
}

// The same numbers in pglite-worker-client.ts (a value import would run this file on the request thread).
const SIGNAL_ANSWERED = 1;
const SIGNAL_ENDED = 2;

const port = parentPort!;
const { dataDir, signal: signalBuffer, syncPort, settings, template } = workerData as WorkerStart;
const signal = new Int32Array(signalBuffer);
const wake = (state: number): void => {
  Atomics.store(signal, 0, state);
  Atomics.notify(signal, 0);
};
// Also on an uncaught error: a client blocked on a sync answer must not wait forever.
process.on('exit', () => wake(SIGNAL_ENDED));

function send(reply: WorkerReply, sync = false): void {
  if (!sync) return port.postMessage(reply);
  syncPort.postMessage(reply);
  wake(SIGNAL_ANSWERED);
}
const fail = (id: number, err: unknown, sync = false): void => send({ id, error: toWorkerError(err) }, sync);

function toWorkerError(err: unknown): WorkerError {
  if (!(err instanceof Error)) return { kind: 'Error', name: 'Error', message: String(err), stack: undefined, props: {} };
  const props: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(err)) {
    // queryOptions holds parser functions (the caller re-attaches its own); params came from the caller.
    if (key === 'queryOptions') continue;
    if (key === 'params' || value === null || ['string', 'number', 'boolean', 'bigint', 'undefined'].includes(typeof value)) props[key] = value;
  }
  const kind = err instanceof TransactionAbortedError ? 'TransactionAbortedError' : err instanceof messages.DatabaseError ? 'DatabaseError' : 'Error';
  return { kind, name: err.name, message: err.message, stack: err.stack, props };
}

// drizzle passes parsers that keep some types as text (timestamps, dates, intervals, numeric[]):
// functions cannot cross threads, so the client sends their type ids and they are rebuilt here.
const keepText = (value: string): string => value;
const parserSets = new Map<string, Record<number, (value: string) => string>>();
function parsersFor(rawTypes: number[]): Record<number, (value: string) => string> | undefined {
  if (!rawTypes.length) return undefined;
  const key = rawTypes.join(',');
  let parsers = parserSets.get(key);
  if (!parsers) {
    parsers = Object.fromEntries(rawTypes.map((oid) => [oid, keepText]));
    parserSets.set(key, parsers);
  }
  return parsers;
}

interface OpenTransaction {
  tx: Transaction;
  /** Settles PGlite's transaction callback: true commits, false rolls back. */
  end(commit: boolean, request: { id: number; sync?: boolean }): void;
}

let pg: PGlite;
try {
  // As pgliteCreateOptions() in pglite-options.ts builds them for the in-process PGlite.
  pg = await PGlite.create(dataDir, {
    startParams: [...PGlite.defaultStartParams, ...settings.flatMap((s) => ['-c', s])],
    initDbStartParams: settings.flatMap((s) => ['--set', s]),
    loadDataDir: template && !existsSync(join(dataDir, 'PG_VERSION')) ? await openAsBlob(template) : undefined,
  });
  // Opening (and on a new database, unpacking the template) leaves tens of MB of garbage that an
  // idle server would otherwise keep resident until the next full collection (--expose-gc).
  collectAndShrink();
} catch (err) {
  fail(0, err);
  throw err;
}
const open = new Map<number, OpenTransaction>();
let nextTx = 1;

function target(tx: number): PGlite | Transaction {
  if (!tx) return pg;
  const entry = open.get(tx);
  if (!entry) throw new Error('Transaction is closed');
  return entry.tx;
}

// PGlite's own transaction() holds its lock for the whole callback, so queries from outside the
// transaction wait exactly as they do in-process; the callback lasts until commit or rollback arrives.
function begin(id: number): void {
  const txId = nextTx++;
  let started = false;
  let ender: { id: number; sync?: boolean } = { id: 0 };
  const rollback = new Error('rollback requested');
  pg.transaction(async (tx) => {
    started = true;
    const commit = await new Promise<boolean>((resolve) => {
      open.set(txId, { tx, end: (yes, request) => { ender = request; open.delete(txId); resolve(yes); } });
      send({ id, value: txId });
    });
    if (!commit) throw rollback;
  }).then(
    () => send({ id: ender.id, value: null }, ender.sync),
    (err: unknown) => {
      open.delete(txId);
      if (!started) fail(id, err);
      else if (err === rollback) send({ id: ender.id, value: null }, ender.sync);
      else fail(ender.id, err, ender.sync);
    },
  );
}

async function run(req: WorkerRequest): Promise<unknown> {
  switch (req.op) {
    case 'query': {
      const options: QueryOptions = { rowMode: req.rowMode };
      const parsers = parsersFor(req.rawTypes);
      if (parsers) options.parsers = parsers;
      return target(req.tx).query(req.sql, req.params, options);
    }
    case 'exec':
      return target(req.tx).exec(req.sql);
    case 'close':
      await pg.close();
      return null;
    default:
      throw new Error(`unknown request ${(req as { op: string }).op}`);
  }
}

/**
 * V8's memory-reducing full collection, as src/lib/server/gc.ts runs it (repeated here: the worker
 * imports no module of ours, so vitest and `astro dev` can run this file from source).
 */
function collectAndShrink(): void {
  (globalThis as { gc?: (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void }).gc?.({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}

// A full collection of this thread's heap once it has been quiet for a 2 s tick after serving
// requests (as the request thread does, src/server/idle-gc.ts): query results and PGlite's protocol
// buffers of a busy spell would otherwise stay resident while the server idles. Needs --expose-gc.
// As there, it is the memory-reducing collection (src/lib/server/gc.ts) after 10 s or more of
// queries, else at most once a minute.
let served = 0;
let servedAtTick = 0;
let collectWhenQuiet = false;
let shrunkAt = -Infinity;
let busySince = 0;
setInterval(() => {
  if (served !== servedAtTick) {
    servedAtTick = served;
    if (!collectWhenQuiet) busySince = Date.now() - 2000;
    collectWhenQuiet = true;
  } else if (collectWhenQuiet) {
    collectWhenQuiet = false;
    if (Date.now() - 2000 - busySince >= 10_000 || Date.now() - shrunkAt >= 60_000) {
      shrunkAt = Date.now();
      collectAndShrink();
    } else (globalThis as { gc?: () => void }).gc?.();
  }
}, 2000).unref();

port.on('message', (req: WorkerRequest) => {
  served++;
  if (req.op === 'begin') return begin(req.id);
  if (req.op === 'commit' || req.op === 'rollback') {
    const entry = open.get(req.tx);
    if (!entry) return fail(req.id, new Error('Transaction is closed'), req.sync);
    return entry.end(req.op === 'commit', req);
  }
  run(req).then((value) => send({ id: req.id, value }, req.sync), (err: unknown) => fail(req.id, err, req.sync));
});
send({ id: 0, value: null });
