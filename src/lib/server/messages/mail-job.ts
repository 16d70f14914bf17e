// The message center's background job, run by every instance: e-mails messages still unread after
// a delay (once each, one mail per member per run, in the member's language), deletes read
// messages past the retention period, and drops replay events older than a day. Rows are claimed
// with FOR UPDATE SKIP LOCKED, so instances running it at once never mail a message twice.
import { siteOrigin as configuredOrigin } from '../admin/origin';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { and, asc, eq, gt, inArray, lt, lte, ne } from 'drizzle-orm';
import type { Db } from '../db/client';
import type { Runtime } from '../runtime';
import { messagePref, messages, user } from '../db/schema';
import { DEFAULT_MAIL_KINDS, MAIL_KINDS, tabOfType, type MailKind } from '../../shared/messages';
import { isLocale, translateAny, type Locale } from '../../i18n';
import { describeMessage } from './inbox';
import { mailDelayMinutes, retentionDays } from './settings';
import { pruneEvents } from './live';

/** How often each instance runs the job. */
export const JOB_INTERVAL_MS = 60_000;
/** Rows one run claims at most. */
const BATCH = 500;
/** Messages older than this when first seen (a site upgraded with old unread rows) are not mailed. */
const MAIL_HORIZON = 2 * 86_400;

const now = (): number => Math.floor(Date.now() / 1000);

export async function mailKinds(db: Db, userId: number): Promise<MailKind[]> {
  const [row] = await db.select({ kinds: messagePref.mailKinds }).from(messagePref).where(eq(messagePref.userId, userId));
  return row ? parseKinds(row.kinds) : [...DEFAULT_MAIL_KINDS];
}

function parseKinds(value: string): MailKind[] {
  return value.split(',').filter((k): k is MailKind => (MAIL_KINDS as readonly string[]).includes(k));
}

export async function setMailKinds(db: Db, userId: number, kinds: readonly MailKind[]): Promise<void> {
  const value = [...new Set(kinds)].join(',');
  await db.insert(messagePref).values({ userId, mailKinds: value, updateTime: now() })
    .onConflictDoUpdate({ target: messagePref.userId, set: { mailKinds: value, updateTime: now() } });
}

/** Remembers the language a member uses, for their mails. */
export async function rememberLocale(db: Db, userId: number, locale: Locale): Promise<void> {
  await db.insert(messagePref).values({ userId, mailKinds: DEFAULT_MAIL_KINDS.join(','), locale, updateTime: now() })
    .onConflictDoUpdate({ target: messagePref.userId, set: { locale } });
}

/** The signature of a one-click unsubscribe link: no login needed, good for one member and kind. */
export function unsubscribeSignature(secret: string, userId: number, kind: string): string {
  return createHmac('sha256', secret).update(`unsubscribe:${userId}:${kind}`).digest('base64url').slice(0, 32);
}

export function verifyUnsubscribe(secret: string, userId: number, kind: string, signature: string): boolean {
  const expected = Buffer.from(unsubscribeSignature(secret, userId, kind));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** Takes one kind out of a member's e-mail preferences (the unsubscribe link). */
export async function unsubscribe(db: Db, userId: number, kind: MailKind): Promise<void> {
  await setMailKinds(db, userId, (await mailKinds(db, userId)).filter((k) => k !== kind));
}

/** The site's address for links in mails: SITE_URL, else the site domain, else localhost. */
export function siteOrigin(runtime: Runtime): string {
  return configuredOrigin(runtime.config);
}

export interface JobResult { mails: number; messages: number; deleted: number; events: number }

/** One run of the job. */
export async function runMessageJob(runtime: Runtime): Promise<JobResult> {
  const { db } = runtime;
  const delay = (await mailDelayMinutes(runtime.site)) * 60;
  const keepDays = await retentionDays(runtime.site);
  let mails = 0;
  let mailed = 0;
  await db.transaction(async (tx) => {
    const t = now();
    const rows = await tx.select().from(messages)
      .where(and(eq(messages.readTime, 0), eq(messages.mailTime, 0), lte(messages.createTime, t - delay), gt(messages.createTime, t - delay - MAIL_HORIZON)))
      .orderBy(asc(messages.id)).limit(BATCH).for('update', { skipLocked: true });
    if (!rows.length) return;
    const recipients = [...new Set(rows.map((r) => r.recipientId))];
    // One connection holds the transaction: its queries run one after another.
    const people = await tx.select({ id: user.id, email: user.email, status: user.status, nickname: user.nickname, username: user.username }).from(user).where(inArray(user.id, recipients));
    const prefs = await tx.select().from(messagePref).where(inArray(messagePref.userId, recipients));
    const senders = await tx.select({ id: user.id, nickname: user.nickname, username: user.username }).from(user)
      .where(inArray(user.id, [...new Set(rows.map((r) => r.senderId).filter(Boolean))].concat([0])));
    const personById = new Map(people.map((p) => [p.id, p]));
    const prefById = new Map(prefs.map((p) => [p.userId, p]));
    const senderName = new Map(senders.map((s) => [s.id, s.nickname || s.username]));
    const handled: number[] = [];
    for (const recipientId of recipients) {
      const own = rows.filter((r) => r.recipientId === recipientId);
      const person = personById.get(recipientId);
      const pref = prefById.get(recipientId);
      const kinds = pref ? parseKinds(pref.mailKinds) : [...DEFAULT_MAIL_KINDS];
      const wanted = own.filter((r) => kinds.includes(tabOfType(r.type) as MailKind));
      if (person?.email && person.status === 'enable' && wanted.length) {
        const locale: Locale = pref && isLocale(pref.locale) ? pref.locale : 'zh-cn';
        try {
          await runtime.mailer.sendMail(composeMail(runtime, locale, person, wanted, senderName));
          mails++;
          mailed += wanted.length;
        } catch (err) {
          // Left unmarked: the next run tries again.
          runtime.log.warn('message mail failed', { userId: recipientId, err: String(err) });
          continue;
        }
      }
      handled.push(...own.map((r) => r.id));
    }
    if (handled.length) await tx.update(messages).set({ mailTime: t }).where(inArray(messages.id, handled));
  });
  const gone = await db.delete(messages)
    .where(and(ne(messages.type, 'private'), ne(messages.readTime, 0), lt(messages.readTime, now() - keepDays * 86_400)))
    .returning({ id: messages.id });
  const events = await pruneEvents(db);
  return { mails, messages: mailed, deleted: gone.length, events };
}

function composeMail(runtime: Runtime, locale: Locale, person: { id: number; email: string; nickname: string; username: string }, rows: (typeof messages.$inferSelect)[], senderName: Map<number, string>): { to: string; subject: string; text: string } {
  const t = (key: string, values?: Record<string, string | number>): string => translateAny(locale, key, values);
  const origin = siteOrigin(runtime);
  const lines = rows.map((r) => {
    const name = r.senderId ? senderName.get(r.senderId) ?? '' : '';
    const who = name ? `${name} ` : '';
    const body = r.type === 'private' ? `\n  ${r.content.slice(0, 500)}` : r.summary && r.type !== 'ask_vote' ? `\n  ${r.summary}` : '';
    return `• ${who}${describeMessage(locale, r, Boolean(name))}: ${translateAny(locale, r.title)}${body}\n  ${origin}${r.link}`;
  });
  const kinds = [...new Set(rows.map((r) => tabOfType(r.type)))];
  const unsubscribe = kinds.map((k) => `${t(`messages.tab.${k}`)}: ${origin}/messages/unsubscribe?u=${person.id}&k=${k}&s=${unsubscribeSignature(runtime.tokenSecret, person.id, k)}`);
  return {
    to: person.email,
    subject: t('messages.mail.subject', { count: rows.length }),
    text: [
      t('messages.mail.greeting', { name: person.nickname || person.username }),
      '',
      t('messages.mail.lead', { count: rows.length }),
      '',
      ...lines,
      '',
      `${t('messages.mail.center')}: ${origin}/user/messageCenter`,
      '',
      t('messages.mail.unsubscribe'),
      ...unsubscribe,
    ].join('\n'),
  };
}

/** Starts the job on this instance; returns its stop. */
export function startMessageJob(runtime: Runtime, intervalMs = JOB_INTERVAL_MS): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    runMessageJob(runtime)
      .then((r) => { if (r.mails || r.deleted) runtime.log.info(`messages: ${r.mails} mail(s) for ${r.messages} message(s), ${r.deleted} old message(s) deleted`); })
      .catch((err: unknown) => runtime.log.warn('message job failed', { err: String(err) }))
      .finally(() => { running = false; });
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
