// Scheduled jobs of modules (`contributes.jobs`): each job has a row in `module_job` saying when it
// is due. Every instance running modules with jobs looks for due rows every few seconds and claims
// one with a single UPDATE (due, and not held by another instance), which moves it to its next time:
// however many instances look, one runs each tick. The run is the module's `onJob(name, ctx)` in its
// host, within the job's timeout; how it went (time, duration, error) stays on the row for the
// console. No host is started until a job is due; a disabled or uninstalled module has no runs.
import { and, eq, inArray, lte, notInArray, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { moduleJob } from '../db/schema';
import type { Logger } from '../log';
import type { ModuleHost } from './host/host';
import type { ManifestJob } from './manifest';

/** Seconds a run may take when the manifest does not say. */
export const DEFAULT_JOB_TIMEOUT_S = 30;

export type JobRow = typeof moduleJob.$inferSelect;

const now = (): number => Math.floor(Date.now() / 1000);

/**
 * Makes the rows of the running modules' jobs exist (first run one interval from now) and removes
 * the rows of jobs their module no longer declares.
 */
export async function syncJobs(db: Db, jobs: ReadonlyMap<string, readonly ManifestJob[]>): Promise<void> {
  const t = now();
  for (const [uid, list] of jobs) {
    if (list.length) {
      await db.insert(moduleJob).values(list.map((j) => ({ moduleUid: uid, name: j.name, nextTime: t + j.every * 60 }))).onConflictDoNothing();
      await db.delete(moduleJob).where(and(eq(moduleJob.moduleUid, uid), notInArray(moduleJob.name, list.map((j) => j.name))));
    } else {
      await db.delete(moduleJob).where(eq(moduleJob.moduleUid, uid));
    }
  }
}

/** Claims one due run of `uid`'s `job` for this instance, or null when it is not due or another instance holds it. */
async function claim(db: Db, uid: string, job: ManifestJob, t: number): Promise<JobRow | null> {
  const timeout = job.timeout ?? DEFAULT_JOB_TIMEOUT_S;
  // The next time counts from now, not from the missed one: a site that was down runs a job once, not once per missed tick.
  const [row] = await db.update(moduleJob)
    .set({ claimedUntil: t + timeout + 5, nextTime: t + job.every * 60 })
    .where(and(eq(moduleJob.moduleUid, uid), eq(moduleJob.name, job.name), lte(moduleJob.nextTime, t), lte(moduleJob.claimedUntil, t)))
    .returning();
  return row ?? null;
}

/**
 * Runs the due jobs of the running modules (`jobs`: uid → its jobs), each claimed once across the
 * site's instances; returns how many ran here.
 */
export async function runDueJobs(db: Db, host: ModuleHost | null, jobs: ReadonlyMap<string, readonly ManifestJob[]>, log: Pick<Logger, 'error' | 'warn'>): Promise<number> {
  if (!host || !jobs.size) return 0;
  const t = now();
  // One cheap read first: most polls find nothing due, and then nothing is claimed or started.
  const due = await db.select({ uid: moduleJob.moduleUid, name: moduleJob.name }).from(moduleJob)
    .where(and(inArray(moduleJob.moduleUid, [...jobs.keys()]), lte(moduleJob.nextTime, t), lte(moduleJob.claimedUntil, t)));
  let ran = 0;
  for (const d of due) {
    const job = jobs.get(d.uid)?.find((j) => j.name === d.name);
    if (!job) continue;
    const row = await claim(db, d.uid, job, t);
    if (!row) continue;
    ran++;
    const started = Date.now();
    let error = '';
    try {
      await host.call(d.uid, 'onJob', [job.name], { timeoutMs: (job.timeout ?? DEFAULT_JOB_TIMEOUT_S) * 1000 });
    } catch (err) {
      error = (err instanceof Error ? err.message : String(err)).slice(0, 255) || 'failed';
      log.warn('module job failed', { uid: d.uid, job: job.name, reason: error });
    }
    await db.update(moduleJob).set({
      claimedUntil: 0, lastTime: Math.floor(started / 1000), lastMs: Date.now() - started, lastOk: error ? 0 : 1, lastError: error,
      runs: sql`${moduleJob.runs} + 1`, failures: error ? sql`${moduleJob.failures} + 1` : moduleJob.failures,
    }).where(and(eq(moduleJob.moduleUid, d.uid), eq(moduleJob.name, job.name)));
  }
  return ran;
}

/** The job rows of modules, for the console. */
export async function jobRows(db: Db, uids: readonly string[]): Promise<JobRow[]> {
  if (!uids.length) return [];
  return db.select().from(moduleJob).where(inArray(moduleJob.moduleUid, [...uids])).orderBy(moduleJob.moduleUid, moduleJob.name);
}
