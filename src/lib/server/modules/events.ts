// Site events for modules (`contributes.events`): recorded in the transaction of the change, one row
// per subscribed module, and delivered after commit to the module's `onEvent` hook by whichever
// instance claims the row first (claimed rows are skipped by the others; a claim runs out after 30 s
// if its instance dies). A row is deleted once handled; a failure is retried after 5 s, 30 s, 2 min,
// 10 min, then given up with the reason logged and shown to administrators.
import { and, asc, eq, inArray, lte } from 'drizzle-orm';
import type { Db } from '../db/client';
import { moduleEvent, moduleInstall } from '../db/schema';
import type { Logger } from '../log';
import { registry } from '../../shared/registry';
import type { EVENTS } from './manifest';
import type { ModuleHost } from './host/host';

export type SiteEvent = (typeof EVENTS)[number];

type Tx = Pick<Db, 'insert'>;

const subscribers = registry<{ key: 'site'; of(event: SiteEvent): readonly string[] }>('module-event-subscribers', (e) => e.key);

/** Sets (or clears) who subscribes to what, for this process (SiteModules, on every reconcile). */
export function setEventSubscribers(of: ((event: SiteEvent) => readonly string[]) | null): void {
  if (of) subscribers.add({ key: 'site', of });
  else subscribers.remove('site');
}

const now = (): number => Math.floor(Date.now() / 1000);

/** Records `event` for every module subscribed to it, in the caller's transaction (nothing without one). */
export async function recordModuleEvent(tx: Tx, event: SiteEvent, payload: Record<string, string | number | null>): Promise<void> {
  const uids = subscribers.get('site')?.of(event) ?? [];
  if (!uids.length) return;
  const t = now();
  await tx.insert(moduleEvent).values(uids.map((moduleUid) => ({ moduleUid, event, payload, nextTime: t, createTime: t })));
}

/** Pauses before the 2nd, 3rd, … attempt, in seconds; after the last, the event is given up. */
export const RETRY_AFTER = [5, 30, 120, 600] as const;
const CLAIM_SECONDS = 30;
const BATCH = 20;

/**
 * Claims up to 20 due events of running modules and delivers each to its module; returns how many
 * were claimed (the caller polls again at once when that was a full batch).
 */
export async function deliverDue(db: Db, host: ModuleHost | null, running: ReadonlySet<string>, log: Pick<Logger, 'error' | 'warn'>): Promise<number> {
  if (!host || !running.size) return 0;
  const t = now();
  const due = db.select({ id: moduleEvent.id }).from(moduleEvent)
    .where(and(lte(moduleEvent.nextTime, t), lte(moduleEvent.claimedUntil, t), inArray(moduleEvent.moduleUid, [...running])))
    .orderBy(asc(moduleEvent.id)).limit(BATCH).for('update', { skipLocked: true });
  const claimed = await db.update(moduleEvent).set({ claimedUntil: t + CLAIM_SECONDS }).where(inArray(moduleEvent.id, due)).returning();
  for (const e of claimed.sort((a, b) => a.id - b.id)) {
    try {
      await host.call(e.moduleUid, 'onEvent', [e.event, e.payload]);
      await db.delete(moduleEvent).where(eq(moduleEvent.id, e.id));
    } catch (err) {
      const reason = `${e.event}: ${(err instanceof Error ? err.message : String(err)).slice(0, 200)}`;
      const pause = RETRY_AFTER[e.attempts];
      if (pause === undefined) {
        log.error('module event given up', { uid: e.moduleUid, event: e.event, id: e.id, reason });
        await db.delete(moduleEvent).where(eq(moduleEvent.id, e.id));
        await db.update(moduleInstall).set({ reason: `event given up after ${e.attempts + 1} attempts: ${reason}`.slice(0, 255) }).where(eq(moduleInstall.uid, e.moduleUid));
      } else {
        log.warn('module event failed, retried later', { uid: e.moduleUid, event: e.event, id: e.id, attempt: e.attempts + 1, reason });
        await db.update(moduleEvent).set({ attempts: e.attempts + 1, nextTime: now() + pause, claimedUntil: 0 }).where(eq(moduleEvent.id, e.id));
      }
    }
  }
  return claimed.length;
}
