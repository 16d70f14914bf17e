// PGlite in a worker thread (PGLITE_WORKER) answers like PGlite in-process: the same values and
// types, the same locking, errors and rollbacks, and close() ends the thread.
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { bigint, customType, date, doublePrecision, integer, jsonb, numeric, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { messages, TransactionAbortedError } from '@electric-sql/pglite';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database, type Db } from '../../src/lib/server/db/client';
import type { PgliteWorkerClient } from '../../src/lib/server/db/pglite-worker-client';
import { user } from '../../src/lib/server/db/schema';
import { ROOT, TEMPLATE_DIR, TMP } from '../helpers/paths';

const bytea = customType<{ data: Uint8Array }>({ dataType: () => 'bytea' });
const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });
const sample = pgTable('pw_sample', {
  id: serial('id').primaryKey(),
  name: text('name').notNull(),
  at: timestamp('at', { mode: 'date', withTimezone: true }),
  atText: timestamp('at_text', { mode: 'string' }),
  day: date('day'),
  big: bigint('big', { mode: 'bigint' }),
  bigNumber: bigint('big_number', { mode: 'number' }),
  amount: numeric('amount'),
  ratio: doublePrecision('ratio'),
  data: jsonb('data').$type<unknown>(),
  ints: integer('ints').array(),
  tags: text('tags').array(),
  bin: bytea('bin'),
  vector: tsvector('vector'),
}, (t) => [uniqueIndex('pw_sample_name').on(t.name)]);
const counter = pgTable('pw_counter', { id: integer('id').primaryKey(), n: integer('n').notNull() });

const SETUP = [
  `create table pw_sample (id serial primary key, name text not null, at timestamptz, at_text timestamp, day date, big bigint, big_number bigint,
    amount numeric, ratio double precision, data jsonb, ints integer[], tags text[], bin bytea, vector tsvector)`,
  'create unique index pw_sample_name on pw_sample (name)',
  'create table pw_counter (id integer primary key, n integer not null)',
  'insert into pw_counter values (1, 0)',
];

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => { for (const c of cleanups.splice(0).reverse()) await c(); });

async function open(worker: boolean, template = true): Promise<Database> {
  const dir = mkdtempSync(join(TMP, worker ? 'pgw-worker-' : 'pgw-inproc-'));
  if (template) cpSync(TEMPLATE_DIR, dir, { recursive: true });
  const database = await openDatabase({ databaseUrl: null, dataDir: dir, pgliteWorker: worker });
  cleanups.push(async () => { await database.close(); rmSync(dir, { recursive: true, force: true }); });
  for (const statement of SETUP) await database.db.execute(sql.raw(statement));
  return database;
}

const clientOf = (db: Db): PgliteWorkerClient => (db as unknown as { $client: PgliteWorkerClient }).$client;

/** Everything a caller can observe of a value: its class as well as its contents. */
function shape(value: unknown): unknown {
  if (value instanceof Error) return { class: value.constructor.name, ...Object.fromEntries(Object.entries(value).filter(([k]) => k !== 'queryOptions')), message: value.message, cause: shape(value.cause) };
  if (value instanceof Date) return { class: 'Date', value: value.toISOString() };
  if (Array.isArray(value)) return value.map(shape);
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).map(([k, v]) => [k, shape(v)]);
    return { class: value.constructor?.name ?? null, ...Object.fromEntries(entries) };
  }
  return value;
}

/** `db.execute` answers PGlite's result, typed unknown on the shared Db type. */
const result = (r: unknown): { rows: unknown[]; affectedRows?: number } => r as { rows: unknown[]; affectedRows?: number };

async function caught(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

async function scenario(db: Db): Promise<unknown[]> {
  const out: unknown[] = [];
  await db.insert(sample).values([
    {
      name: 'a', at: new Date('2024-02-29T12:34:56.789Z'), atText: '2024-01-02 03:04:05.123456', day: '2024-01-02', big: 9007199254740993n,
      bigNumber: 1_700_000_000_000, amount: '12345678901234567890.0123', ratio: 0.1, data: { zh: '模块', n: [1, 2.5, null], ok: true },
      ints: [1, 2, 3], tags: ['x', 'y z', '"q"'], bin: new Uint8Array([0, 1, 254, 255]), vector: 'hello:1 world:2',
    },
    { name: 'b' },
  ]);
  out.push(await db.select().from(sample).orderBy(sample.id));
  out.push(await db.select({ id: sample.id, n: sql<number>`count(*) over ()`, len: sql<number>`length(${sample.bin})` }).from(sample));
  out.push(result(await db.execute(sql`select * from pw_sample order by id`)).rows);
  out.push(result(await db.execute(sql`
    select 1::int2 as i2, 2::int4 as i4, 9007199254740993::int8 as i8, 12.5::numeric as num, 1.5::float4 as f4, 0.1::float8 as f8, true as b,
      'x'::text as t, '2024-01-02 03:04:05'::timestamp as ts, '2024-01-02 03:04:05+08'::timestamptz as tstz, '2024-01-02'::date as d,
      '1 day 02:03:04'::interval as iv, '12:30'::time as tm, '{"a":[1,{"b":null}]}'::json as j, '{"a":1}'::jsonb as jb, '\\x0102ff'::bytea as by,
      array[1,2,3]::int[] as ia, array[array[1,2],array[3,4]] as ia2, array['a',null,'c d']::text[] as ta, array[1.5, 2]::numeric[] as na,
      array['2024-01-02'::date] as da, array['2024-01-02 03:04:05'::timestamp] as tsa, array['{"k":1}'::jsonb] as jba,
      to_tsvector('simple', 'Hello hello world') as tv, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid as u, null::text as n,
      ${'param'}::text as p, ${42}::int as pn, ${new Date('2024-05-06T07:08:09.010Z')}::timestamptz as pd`)).rows);
  // Without drizzle's text parsers, PGlite builds Date objects itself: they must cross the thread too.
  const client = (db as unknown as { $client: { query(q: string, p?: unknown[]): Promise<unknown> } }).$client;
  out.push(await client.query(`select '2024-01-02 03:04:05+00'::timestamptz as tstz, '2024-01-02'::date as d, $1::bytea as b`, [new Uint8Array([7, 8])]));
  out.push(await db.update(sample).set({ ratio: 2 }).where(eq(sample.name, 'b')).returning({ id: sample.id, ratio: sample.ratio }));
  out.push(result(await db.execute(sql`update pw_sample set ratio = 3`)).affectedRows);
  out.push(await db.select({ n: user.username }).from(user).orderBy(user.id).limit(3));
  out.push(await caught(db.insert(sample).values({ name: 'a' })));
  out.push(await caught(db.execute(sql`select * from no_such_table`)));
  out.push(await caught(db.execute(sql`select 1/0`)));
  return out.map(shape);
}

describe('PGlite in a worker thread', () => {
  it('returns the same values, types and errors as PGlite in-process', async () => {
    const [inproc, worker] = await Promise.all([open(false), open(true)]);
    expect(clientOf(worker.db).constructor.name).toBe('PgliteWorkerClient');
    const expected = await scenario(inproc.db);
    const actual = await scenario(worker.db);
    expect(actual).toStrictEqual(expected);
    // A few of the types spelled out, so the comparison cannot pass by both sides being wrong alike.
    const [rows, , , types, plain] = actual as [Record<string, unknown>[], unknown, unknown, Record<string, unknown>[], { rows: Record<string, unknown>[] }];
    expect(rows[0]).toMatchObject({ big: 9007199254740993n, bin: { class: 'Uint8Array' }, at: { class: 'Date' }, atText: '2024-01-02 03:04:05.123456', vector: "'hello':1 'world':2" });
    expect(types[0]).toMatchObject({ i8: 9007199254740993n, by: { class: 'Uint8Array' }, jb: { class: 'Object', a: 1 }, ia2: [[1, 2], [3, 4]], tstz: expect.any(String) });
    expect(plain.rows[0]).toMatchObject({ tstz: { class: 'Date' }, b: { class: 'Uint8Array', 0: 7, 1: 8 } });
  });

  it('keeps a unique violation as code 23505 on the error drizzle wraps', async () => {
    const { db } = await open(true);
    await db.insert(sample).values({ name: 'dup' });
    const err = (await caught(db.insert(sample).values({ name: 'dup' }))) as Error & { cause: Error & { code: string; constraint: string; detail: string } };
    expect(err.cause.code).toBe('23505');
    expect(err.cause.constraint).toBe('pw_sample_name');
    expect(err.cause.detail).toContain('(name)=(dup)');
    expect(err.cause).toBeInstanceOf(messages.DatabaseError);
  });

  it('keeps 50 concurrent read-modify-write transactions with for update exact, other queries waiting their turn', async () => {
    const { db } = await open(true);
    const bump = (): Promise<void> => db.transaction(async (tx) => {
      const [row] = await tx.select().from(counter).where(eq(counter.id, 1)).for('update');
      await new Promise((resolve) => setImmediate(resolve));
      await tx.update(counter).set({ n: row!.n + 1 }).where(eq(counter.id, 1));
    });
    const reads = Array.from({ length: 50 }, () => db.select().from(counter));
    await Promise.all([...Array.from({ length: 50 }, bump), ...reads]);
    // The reads queued among the transactions all came back, each with a committed value.
    for (const [row] of await Promise.all(reads)) expect(row!.n).toBeGreaterThanOrEqual(0);
    expect((await db.select().from(counter))[0]!.n).toBe(50);
  });

  it('holds queries from outside until an open transaction ends, as PGlite does in-process', async () => {
    for (const worker of [false, true]) {
      const { db } = await open(worker);
      let release!: () => void;
      const held = new Promise<void>((resolve) => { release = resolve; });
      const order: string[] = [];
      const tx = db.transaction(async (t) => {
        await t.update(counter).set({ n: 7 });
        await held;
        order.push('commit');
      });
      await new Promise((resolve) => setTimeout(resolve, 20));
      const outside = db.select().from(counter).then(([row]) => order.push(`read ${row!.n}`));
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(order).toEqual([]);
      release();
      await Promise.all([tx, outside]);
      expect(order).toEqual(['commit', 'read 7']);
    }
  });

  it('rolls back a transaction whose callback throws, and only the inner savepoint of a nested one', async () => {
    const { db } = await open(true);
    await expect(db.transaction(async (tx) => {
      await tx.insert(sample).values({ name: 'gone' });
      throw new Error('boom');
    })).rejects.toThrow('boom');
    await db.transaction(async (tx) => {
      await tx.insert(sample).values({ name: 'outer' });
      await expect(tx.transaction(async (inner) => {
        await inner.insert(sample).values({ name: 'inner' });
        throw new Error('inner boom');
      })).rejects.toThrow('inner boom');
      await tx.transaction(async (inner) => { await inner.insert(sample).values({ name: 'inner kept' }); });
    });
    const names = (await db.select({ name: sample.name }).from(sample).orderBy(sample.name)).map((r) => r.name);
    expect(names).toEqual(['inner kept', 'outer']);
    // tx.rollback() (drizzle's) ends the transaction without an error reaching the caller's data.
    await expect(db.transaction(async (tx) => {
      await tx.insert(sample).values({ name: 'rolled' });
      tx.rollback();
    })).rejects.toThrow();
    expect(await db.select().from(sample).where(eq(sample.name, 'rolled'))).toHaveLength(0);
  });

  it('fails the commit of a transaction whose failed statement was caught, like in-process', async () => {
    const outcomes: unknown[] = [];
    for (const worker of [false, true]) {
      const { db } = await open(worker);
      const err = await caught(db.transaction(async (tx) => {
        await tx.insert(sample).values({ name: 'x' });
        await tx.execute(sql`select 1/0`).catch(() => undefined);
      }));
      expect(err).toBeInstanceOf(TransactionAbortedError);
      outcomes.push(shape(err));
      expect(await db.select().from(sample)).toHaveLength(0);
    }
    expect(outcomes[1]).toStrictEqual(outcomes[0]);
  });

  it('migrates an empty directory, closes (ending the thread) and reopens with the data kept', async () => {
    const dir = mkdtempSync(join(TMP, 'pgw-migrate-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const first = await openDatabase({ databaseUrl: null, dataDir: dir, pgliteWorker: true });
    await first.migrate(ROOT);
    await first.db.execute(sql`create table pw_kept (v text)`);
    await first.db.execute(sql`insert into pw_kept values ('kept')`);
    expect(await first.ping()).toBe(true);
    const client = clientOf(first.db);
    expect(client.closed).toBe(false);
    await first.close();
    expect(client.closed).toBe(true);
    expect(existsSync(join(dir, 'atrium.lock'))).toBe(false);
    expect(await first.ping()).toBe(false);
    await expect(first.db.execute(sql`select 1`)).rejects.toThrow();

    const second = await openDatabase({ databaseUrl: null, dataDir: dir, pgliteWorker: true });
    try {
      expect(result(await second.db.execute(sql`select v from pw_kept`)).rows).toEqual([{ v: 'kept' }]);
      expect((await second.db.select().from(user).limit(1))).toBeDefined();
    } finally {
      await second.close();
    }
  });
});
