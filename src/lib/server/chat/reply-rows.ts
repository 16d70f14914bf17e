// The chat_reply rows of replies that start or end together, written in one statement: when a
// hundred questions arrive at once, a statement (and, on PGlite, a commit in its one worker
// thread) per reply queued every later reply behind the others'. Rows gathered during one turn of
// the event loop go together; a batch the database refuses is retried row by row, so one bad row
// fails only its own reply.
import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/client';
import { chatReply } from '../db/schema';

/** A reply's row as it is first written. */
export interface ReplyRow {
  id: string;
  chatId: string;
  userId: number;
  ip: string;
  /** A visitor's reply: the hash of the key that stops or resumes it (reply.ts). */
  ownerKey: string;
  model: string;
  free: number;
  createTime: number;
  /** Only for a row written as its reply ended (the site assistant's). */
  status?: 'streaming' | 'done' | 'stopped' | 'failed';
  finishTime?: number;
}

/** How a reply ended, for its row. */
export interface ReplyEnd {
  status: 'done' | 'stopped' | 'failed';
  promptTokens: number;
  completionTokens: number;
  finishTime: number;
}

/** Most rows in one statement (PostgreSQL takes up to 65,535 parameters). */
const BATCH_MAX = 200;

interface Waiting<T, R> { item: T; resolve: (value: R) => void; reject: (err: unknown) => void }

/**
 * Gathers items per database until the event loop's check phase, then hands them to `many` (one
 * statement; its results in the items' order). A failed batch goes again one item at a time.
 */
function batcher<T, R>(many: (db: Db, items: T[]) => Promise<R[]>): (db: Db, item: T) => Promise<R> {
  const queues = new Map<Db, Waiting<T, R>[]>();
  const run = async (db: Db, batch: Waiting<T, R>[]): Promise<void> => {
    try {
      const results = await many(db, batch.map((w) => w.item));
      batch.forEach((w, i) => w.resolve(results[i]!));
    } catch (err) {
      if (batch.length === 1) { batch[0]!.reject(err); return; }
      for (const w of batch) await many(db, [w.item]).then(([r]) => w.resolve(r!), w.reject);
    }
  };
  return (db, item) => new Promise<R>((resolve, reject) => {
    let queue = queues.get(db);
    if (!queue) {
      const fresh: Waiting<T, R>[] = [];
      queue = fresh;
      queues.set(db, fresh);
      setImmediate(() => {
        queues.delete(db);
        for (let i = 0; i < fresh.length; i += BATCH_MAX) void run(db, fresh.slice(i, i + BATCH_MAX));
      });
    }
    queue.push({ item, resolve, reject });
  });
}

const rowsOf = <T>(result: unknown): T[] => (result as { rows: T[] }).rows;

/** Writes a reply's row (with the replies that started in the same turn). */
export const insertReplyRow: (db: Db, row: ReplyRow) => Promise<void> = batcher(async (db, rows: ReplyRow[]) => {
  const values = rows.map((r) => sql`(${r.id}, ${r.chatId}, ${r.userId}, ${r.ip}, ${r.ownerKey}, ${r.model}, ${r.status ?? 'streaming'}, ${r.free}, ${r.createTime}, ${r.finishTime ?? 0})`);
  await db.execute(sql`insert into ${chatReply} (id, chat_id, user_id, ip, owner_key, model, status, free, create_time, finish_time) values ${sql.join(values, sql`, `)}`);
  return rows.map(() => undefined);
});

/**
 * Ends a still streaming reply's row (with the replies that ended in the same turn); false when
 * the row was not streaming any more (settled already).
 */
export const endReplyRow: (db: Db, item: { id: string; end: ReplyEnd }) => Promise<boolean> = batcher(async (db, items: { id: string; end: ReplyEnd }[]) => {
  const values: SQL[] = items.map(({ id, end }) =>
    sql`(${id}::varchar, ${end.status}::varchar, ${end.promptTokens}::integer, ${end.completionTokens}::integer, ${end.finishTime}::bigint)`);
  const updated = rowsOf<{ id: string }>(await db.execute(sql`
    update ${chatReply} as r set status = v.status, prompt_tokens = v.prompt_tokens, completion_tokens = v.completion_tokens, finish_time = v.finish_time
    from (values ${sql.join(values, sql`, `)}) as v(id, status, prompt_tokens, completion_tokens, finish_time)
    where r.id = v.id and r.status = 'streaming'
    returning r.id`));
  const ids = new Set(updated.map((u) => u.id));
  return items.map((i) => ids.has(i.id));
});
