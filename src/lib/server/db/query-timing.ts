// Times every statement drizzle sends, inside transactions too, whatever the driver: PGlite (in
// process or in its worker thread) hands a transaction's statements to the `tx` object its
// callback gets, and node-postgres runs them on a client checked out of the pool; both are wrapped
// for the transaction's length. Statements outside transactions go through the client's `query`.

type QueryFn = (...args: unknown[]) => Promise<unknown>;
interface Queryable { query?: QueryFn }

/** Called after each statement with its duration, its text and whether it ran in a transaction. */
export type QueryObserver = (ms: number, sql: string, inTransaction: boolean) => void;

const TIMED = Symbol.for('atrium.timed-query');

function sqlText(first: unknown): string {
  return typeof first === 'string' ? first : (first as { text?: string } | undefined)?.text ?? '';
}

/** Replaces `target.query` with a timed one (once); returns the original to put back. */
function wrap(target: Queryable, observe: QueryObserver, inTransaction: boolean): QueryFn | undefined {
  const original = target.query;
  if (!original || (original as { [TIMED]?: boolean })[TIMED]) return undefined;
  const timed = async (...args: unknown[]): Promise<unknown> => {
    const started = performance.now();
    try {
      return await original.apply(target, args);
    } finally {
      observe(performance.now() - started, sqlText(args[0]), inTransaction);
    }
  };
  target.query = Object.assign(timed, { [TIMED]: true });
  return original;
}

/** Wraps a drizzle client (`db.$client`): PGlite, the PGlite worker client, or a pg.Pool. Idempotent. */
export function timeQueries(client: unknown, observe: QueryObserver): void {
  const c = client as Queryable & {
    [TIMED]?: boolean;
    transaction?: (fn: (tx: Queryable) => Promise<unknown>, ...rest: unknown[]) => Promise<unknown>;
    connect?: (...args: unknown[]) => Promise<Queryable & { release: (...a: unknown[]) => unknown }> | undefined;
    totalCount?: number;
  } | null | undefined;
  if (!c || c[TIMED]) return;
  c[TIMED] = true;
  wrap(c, observe, false);
  if (typeof c.transaction === 'function') {
    const transaction = c.transaction.bind(c);
    c.transaction = (fn, ...rest) => transaction((tx) => {
      wrap(tx, observe, true);
      return fn(tx);
    }, ...rest);
  }
  // pg.Pool: drizzle checks a client out with connect() for a transaction; pool.query uses
  // connect(callback) and is already timed above, so only the promise form is wrapped, until release.
  if (typeof c.connect === 'function' && typeof c.totalCount === 'number') {
    const connect = c.connect.bind(c);
    c.connect = (...args: unknown[]) => {
      if (args.length) return connect(...args);
      return connect()!.then((pooled) => {
        const original = wrap(pooled, observe, true);
        if (original) {
          const release = pooled.release;
          pooled.release = (...a: unknown[]) => {
            pooled.query = original;
            pooled.release = release;
            return release.apply(pooled, a);
          };
        }
        return pooled;
      });
    };
  }
}
