// Quotas in points: per model a daily free allowance (replies or tokens) per member and per visitor
// address, then points per reply and per 1,000 tokens, charged once through the points ledger.
// A reply reserves before the provider is called (its free slot, or a hold on the points its
// longest reply costs) and settles to what it used when it ends.
import { and, eq, gte, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { chatReply, user } from '../db/schema';
import { adjustScore, type LedgerMessage } from '../account/ledger';
import type { ChatModelConfig } from './models';
import { endReplyRow, type ReplyRow } from './reply-rows';

export interface Asker {
  userId: number;
  ip: string;
}

/** Unix seconds of the start of today and of tomorrow in the site's time zone. */
const formats = new Map<string, Intl.DateTimeFormat>();

export function dayBounds(timeZone: string, now = Date.now()): { start: number; end: number } {
  // Making a DateTimeFormat costs far more than using one: one per time zone.
  let format = formats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
    if (formats.size < 50) formats.set(timeZone, format);
  }
  const parts = Object.fromEntries(format.formatToParts(now).map((p) => [p.type, p.value]));
  const wall = Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second));
  const offset = wall - Math.floor(now / 1000) * 1000;
  const midnight = Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day)) - offset;
  return { start: Math.floor(midnight / 1000), end: Math.floor(midnight / 1000) + 86_400 };
}

function whoAsked(asker: Asker) {
  return asker.userId ? eq(chatReply.userId, asker.userId) : and(eq(chatReply.userId, 0), eq(chatReply.ip, asker.ip));
}

/**
 * Longest a model reply runs (reply.ts ends it as timed out). A reply still `streaming` after
 * that (its instance crashed) holds no points any more: HOLD_SECONDS leaves a minute for settling.
 */
export const REPLY_MAX_SECONDS = 15 * 60;
const HOLD_SECONDS = REPLY_MAX_SECONDS + 60;
/** Transaction-level advisory locks of visitors' reservations: this class, the address's hash. */
const VISITOR_LOCK = 1_098_150_524;

/** Tokens a reply may write: what the history trimming leaves the answer (the provider is told so). */
export function replyBudget(model: Pick<ChatModelConfig, 'contextWindow'>): number {
  return Math.max(1, Math.min(2048, Math.floor(model.contextWindow / 4)));
}

/**
 * The points a reply holds while it runs: its price, or for a price per 1,000 tokens what the
 * prompt and the longest reply the provider may write cost. 0: the model is free.
 */
export function holdFor(model: Pick<ChatModelConfig, 'pricePer1k' | 'pricePerMessage' | 'contextWindow'>, promptTokens: number): number {
  return replyCost(model, promptTokens, model.pricePer1k ? replyBudget(model) : 0);
}

export interface Usage {
  /** Today's free replies with this model, running ones included (a failure before any output is not one). */
  freeMessages: number;
  /** Today's tokens with this model: what ended replies used, what running ones reserved. */
  tokens: number;
  /** Points held by this member's running replies, any model. */
  held: number;
}

/** What this asker has used today of a model, and holds now. */
async function usageOf(db: Db | Tx, model: string, asker: Asker, since: number, now: number): Promise<Usage> {
  const fresh = now - HOLD_SECONDS;
  const today = sql`${chatReply.model} = ${model} and ${chatReply.createTime} >= ${since}`;
  const [row] = await db.select({
    freeMessages: sql<number>`(count(*) filter (where ${today} and ${chatReply.free} = 1 and not (${chatReply.status} = 'failed' and ${chatReply.completionTokens} = 0)))::int`,
    tokens: sql<number>`coalesce(sum(${chatReply.promptTokens} + ${chatReply.completionTokens}) filter (where ${today}), 0)::int`,
    held: sql<number>`coalesce(sum(${chatReply.points}) filter (where ${chatReply.status} = 'streaming' and ${chatReply.createTime} >= ${fresh}), 0)::int`,
  }).from(chatReply).where(and(whoAsked(asker), gte(chatReply.createTime, Math.min(since, fresh))));
  return row ?? { freeMessages: 0, tokens: 0, held: 0 };
}

export type Reservation =
  /** `reserved`: the reply's row is written, holding its free slot or its points (else the caller writes it). */
  | { ok: true; free: boolean; reserved: boolean }
  | { ok: false; reason: 'points' | 'signIn'; estimate: number; score: number };

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

/**
 * Decides whether a reply is free, paid or refused, before the provider is called, and reserves
 * what it may use in the same transaction: a free reply's row is its slot of the allowance (and, by
 * tokens, the tokens it may use), a paid one's row holds the points its longest reply costs. One
 * asker's reservations queue behind each other (a member's row lock, a visitor address's advisory
 * lock), on PGlite and across instances on PostgreSQL, so parallel questions cannot all pass.
 * A free model (no price) reserves nothing and writes nothing: `row` is the caller's to write.
 * `since` (the start of today) is called only when today's usage is counted.
 */
export async function reserveReply(db: Db, model: ChatModelConfig, asker: Asker, promptTokens: number, since: () => number, row: ReplyRow): Promise<Reservation> {
  const hold = holdFor(model, promptTokens);
  if (hold === 0) return { ok: true, free: true, reserved: false };
  if (!asker.userId && model.freeDaily === 0) return { ok: false, reason: 'signIn', estimate: hold, score: 0 };
  const start = since();
  return db.transaction(async (tx) => {
    let score = 0;
    if (asker.userId) {
      const [member] = await tx.select({ score: user.score }).from(user).where(eq(user.id, asker.userId)).for('update');
      score = member?.score ?? 0;
    } else {
      await tx.execute(sql`select pg_advisory_xact_lock(${VISITOR_LOCK}, hashtext(${asker.ip}))`);
    }
    const used = await usageOf(tx, model.name, asker, start, Math.floor(Date.now() / 1000));
    const left = model.freeUnit === 'messages' ? model.freeDaily - used.freeMessages : model.freeDaily - used.tokens;
    const free = left > 0;
    if (!free) {
      if (!asker.userId) return { ok: false, reason: 'signIn', estimate: hold, score: 0 };
      const available = score - used.held;
      if (available < hold) return { ok: false, reason: 'points', estimate: hold, score: Math.max(0, available) };
    }
    // Until it settles, the row's tokens are what it may use and its points what it holds.
    await tx.insert(chatReply).values({
      ...row, status: 'streaming', free: free ? 1 : 0, points: free ? 0 : hold, promptTokens, completionTokens: replyBudget(model), finishTime: 0,
    });
    return { ok: true, free, reserved: true };
  });
}

/** The points a finished reply costs. */
export function replyCost(model: Pick<ChatModelConfig, 'pricePer1k' | 'pricePerMessage'>, promptTokens: number, completionTokens: number): number {
  const tokens = promptTokens + completionTokens;
  return model.pricePerMessage + (model.pricePer1k && tokens ? Math.ceil((tokens * model.pricePer1k) / 1000) : 0);
}

export interface Settlement {
  status: 'done' | 'stopped' | 'failed';
  promptTokens: number;
  completionTokens: number;
}

/**
 * Records how a reply ended and charges it, once: only the call that moves the row out of
 * `streaming` charges, so a retry, a second stop or a disconnect never charges twice. The hold
 * becomes the charge: what the reply used (a failure before any output nothing), at most the hold
 * plus the points no other running reply holds, and never more than the member has. Returns the
 * points charged (null: already settled).
 */
export async function settleReply(db: Db, replyId: string, model: ChatModelConfig | null, end: Settlement, memo: string, unpaid = false, message?: LedgerMessage): Promise<number | null> {
  const finishTime = Math.floor(Date.now() / 1000);
  const ended = { status: end.status, promptTokens: end.promptTokens, completionTokens: end.completionTokens, finishTime };
  if (unpaid) {
    // Free, a visitor's or the site assistant's: nothing to charge, so one statement, no
    // transaction, shared with the replies that end at the same time.
    return (await endReplyRow(db, { id: replyId, end: ended })) ? 0 : null;
  }
  return db.transaction(async (tx) => {
    const [held] = await tx.select({ userId: chatReply.userId, free: chatReply.free, points: chatReply.points }).from(chatReply)
      .where(and(eq(chatReply.id, replyId), eq(chatReply.status, 'streaming')));
    if (!held) return null;
    // The member first, then the row: the order a reservation takes them in.
    const [member] = held.userId ? await tx.select({ score: user.score }).from(user).where(eq(user.id, held.userId)).for('update') : [];
    const [row] = await tx.update(chatReply).set({ ...ended, points: 0 }).where(and(eq(chatReply.id, replyId), eq(chatReply.status, 'streaming'))).returning({ id: chatReply.id });
    if (!row) return null;
    // A failure before any output used nothing, nor did a stop before the provider was asked.
    const unused = (end.status === 'failed' && end.completionTokens === 0) || (end.status === 'stopped' && end.promptTokens + end.completionTokens === 0);
    if (!model || held.free === 1 || held.userId === 0 || unused) return 0;
    const cost = replyCost(model, end.promptTokens, end.completionTokens);
    if (cost <= 0) return 0;
    const score = member?.score ?? 0;
    let charge = Math.min(cost, score);
    if (charge > held.points) {
      // More than was held (the provider counted more than estimated): only what no other reply holds.
      const [others] = await tx.select({ held: sql<number>`coalesce(sum(${chatReply.points}), 0)::int` }).from(chatReply)
        .where(and(eq(chatReply.userId, held.userId), eq(chatReply.status, 'streaming'), gte(chatReply.createTime, finishTime - HOLD_SECONDS)));
      charge = Math.min(charge, Math.max(held.points, score - (others?.held ?? 0)));
    }
    if (charge > 0) await adjustScore(tx, held.userId, -charge, memo, message);
    await tx.update(chatReply).set({ points: charge }).where(eq(chatReply.id, replyId));
    return charge;
  });
}

/** Usage per day and model, newest first, for the operators' CLI. */
export async function usageByDay(db: Db, days: number, timeZone: string): Promise<{ day: string; model: string; messages: number; tokens: number; points: number }[]> {
  const since = dayBounds(timeZone).start - (days - 1) * 86_400;
  const rows = await db.select({
    day: sql<string>`to_char(to_timestamp(${chatReply.createTime}) at time zone ${timeZone}, 'YYYY-MM-DD')`,
    model: chatReply.model,
    messages: sql<number>`count(*)::int`,
    // A running reply's tokens and points are what it reserved, not what it used.
    tokens: sql<number>`coalesce(sum(${chatReply.promptTokens} + ${chatReply.completionTokens}) filter (where ${chatReply.status} <> 'streaming'), 0)::int`,
    points: sql<number>`coalesce(sum(${chatReply.points}) filter (where ${chatReply.status} <> 'streaming'), 0)::int`,
  }).from(chatReply).where(gte(chatReply.createTime, since)).groupBy(sql`1`, chatReply.model).orderBy(sql`1 desc`, chatReply.model);
  return rows;
}
