// Quotas in points: per model a daily free allowance (replies or tokens) per member and per visitor
// address, then points per reply and per 1,000 tokens, charged once through the points ledger.
import { and, eq, gte, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { chatReply, user } from '../db/schema';
import { adjustScore } from '../account/ledger';
import type { ChatModelConfig } from './models';
import { endReplyRow } from './reply-rows';

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

/** Today's replies and tokens of this asker with this model. */
export async function usageToday(db: Db, model: string, asker: Asker, since: number): Promise<{ messages: number; tokens: number; freeMessages: number }> {
  const [row] = await db.select({
    messages: sql<number>`count(*)::int`,
    tokens: sql<number>`coalesce(sum(${chatReply.promptTokens} + ${chatReply.completionTokens}), 0)::int`,
    freeMessages: sql<number>`(count(*) filter (where ${chatReply.free} = 1))::int`,
  }).from(chatReply).where(and(eq(chatReply.model, model), whoAsked(asker), gte(chatReply.createTime, since)));
  return row ?? { messages: 0, tokens: 0, freeMessages: 0 };
}

export type QuotaDecision =
  | { ok: true; free: boolean; estimate: number }
  | { ok: false; reason: 'points' | 'signIn'; estimate: number; score: number };

/** What one reply may cost before the provider runs: the price of a reply plus the prompt's tokens. */
export function estimateCost(model: Pick<ChatModelConfig, 'pricePer1k' | 'pricePerMessage'>, promptTokens: number): number {
  const tokens = model.pricePer1k ? Math.max(1, Math.ceil((promptTokens * model.pricePer1k) / 1000)) : 0;
  return model.pricePerMessage + tokens;
}

/**
 * Whether this reply is free, paid or refused; decided before the provider is called. `since`
 * (the start of today) may be a function: it is called only when today's usage is counted.
 */
export async function decideQuota(db: Db, model: ChatModelConfig, asker: Asker, promptTokens: number, since: number | (() => number)): Promise<QuotaDecision> {
  const estimate = estimateCost(model, promptTokens);
  if (estimate === 0) return { ok: true, free: true, estimate };
  if (model.freeDaily > 0) {
    const used = await usageToday(db, model.name, asker, typeof since === 'function' ? since() : since);
    const left = model.freeUnit === 'messages' ? model.freeDaily - used.freeMessages : model.freeDaily - used.tokens;
    if (left > 0) return { ok: true, free: true, estimate: 0 };
  }
  if (!asker.userId) return { ok: false, reason: 'signIn', estimate, score: 0 };
  const [row] = await db.select({ score: user.score }).from(user).where(eq(user.id, asker.userId));
  const score = row?.score ?? 0;
  if (score < estimate) return { ok: false, reason: 'points', estimate, score };
  return { ok: true, free: false, estimate };
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
 * `streaming` charges, so a retry, a second stop or a disconnect never charges twice. A paid reply
 * takes at most the points the member has left. Returns the points charged (null: already settled).
 */
export async function settleReply(db: Db, replyId: string, model: ChatModelConfig | null, end: Settlement, memo: string, unpaid = false): Promise<number | null> {
  const ended = { status: end.status, promptTokens: end.promptTokens, completionTokens: end.completionTokens, finishTime: Math.floor(Date.now() / 1000) };
  if (unpaid) {
    // Free, a visitor's or the site assistant's: nothing to charge, so one statement, no
    // transaction, shared with the replies that end at the same time.
    return (await endReplyRow(db, { id: replyId, end: ended })) ? 0 : null;
  }
  return db.transaction(async (tx) => {
    const [row] = await tx.update(chatReply).set(ended).where(and(eq(chatReply.id, replyId), eq(chatReply.status, 'streaming'))).returning({ userId: chatReply.userId, free: chatReply.free });
    if (!row) return null;
    // A failure before any output costs nothing; a stopped reply costs what it used.
    if (!model || row.free === 1 || row.userId === 0 || (end.status === 'failed' && end.completionTokens === 0)) return 0;
    const cost = replyCost(model, end.promptTokens, end.completionTokens);
    if (cost <= 0) return 0;
    const [member] = await tx.select({ score: user.score }).from(user).where(eq(user.id, row.userId)).for('update');
    const charge = Math.min(cost, member?.score ?? 0);
    if (charge > 0) await adjustScore(tx, row.userId, -charge, memo);
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
    tokens: sql<number>`coalesce(sum(${chatReply.promptTokens} + ${chatReply.completionTokens}), 0)::int`,
    points: sql<number>`coalesce(sum(${chatReply.points}), 0)::int`,
  }).from(chatReply).where(gte(chatReply.createTime, since)).groupBy(sql`1`, chatReply.model).orderBy(sql`1 desc`, chatReply.model);
  return rows;
}
