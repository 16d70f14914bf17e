// The site's live instances and the module packages each has unpacked, so that an install or an
// upgrade is activated once every live instance has the package (issue 26, lifecycle): each instance
// writes a row in `module_instance` every 2 s (and at once when it has unpacked a package), and a
// row older than 15 s is an instance that is gone (a loaded instance can miss a few beats). Before
// activating a new package an instance waits (at most 3 s) until every live instance lists it; the
// instances still without it then are reported to administrators on the module's row. A site on PGlite is one process: no wait, no rows.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { eq, gt, lt } from 'drizzle-orm';
import type { Db } from '../db/client';
import { moduleInstance } from '../db/schema';

/** How often an instance says it is alive, and after how long without a word it is taken for gone. */
export const HEARTBEAT_MS = 2000;
export const INSTANCE_TTL_MS = 15_000;
/** The longest an activation waits for other instances to have the package. */
export const ACTIVATION_WAIT_MS = 3000;
const POLL_MS = 50;

export interface LiveInstance {
  id: string;
  label: string;
  packages: string[];
  seenTime: number;
}

/** The live instances (heartbeat within the TTL), oldest first. */
export async function liveInstances(db: Db, at = Date.now()): Promise<LiveInstance[]> {
  const rows = await db.select().from(moduleInstance).where(gt(moduleInstance.seenTime, at - INSTANCE_TTL_MS));
  return rows.map((r) => ({ id: r.id, label: r.label, packages: r.packages ?? [], seenTime: r.seenTime })).sort((a, b) => (a.label < b.label ? -1 : 1));
}

/** This instance's presence: its heartbeat, and the wait for the others before an activation. */
export class InstancePresence {
  readonly id = randomUUID();
  readonly label = `${hostname().slice(0, 80)}:${process.pid}`;
  private timer: NodeJS.Timeout | null = null;
  private packages: () => readonly string[] = () => [];
  private writing: Promise<void> = Promise.resolve();
  private beats = 0;

  /** `shared`: several instances may share the database (PostgreSQL); false on PGlite. */
  constructor(private readonly db: Db, readonly shared: boolean, private readonly onError: (err: unknown) => void) {}

  /** Starts the heartbeat; `packages` lists the sha256s this instance has unpacked and may run. */
  start(packages: () => readonly string[]): void {
    this.packages = packages;
    if (!this.shared || this.timer) return;
    const tick = (): void => {
      void this.beat().finally(() => {
        if (this.timer) this.timer = setTimeout(tick, HEARTBEAT_MS).unref();
      });
    };
    this.timer = setTimeout(tick, 0).unref();
  }

  /** Writes this instance's row now (after unpacking a package, so the others need not wait a heartbeat). */
  beat(): Promise<void> {
    if (!this.shared) return Promise.resolve();
    const row = { id: this.id, label: this.label, packages: [...new Set(this.packages())].sort(), seenTime: Date.now() };
    this.writing = this.writing.then(async () => {
      await this.db.insert(moduleInstance).values(row).onConflictDoUpdate({ target: moduleInstance.id, set: { packages: row.packages, seenTime: row.seenTime } });
      // Rows of instances gone for a minute are only noise for the administrator (swept every 30 beats).
      if (this.beats++ % 30 === 0) await this.db.delete(moduleInstance).where(lt(moduleInstance.seenTime, row.seenTime - 60_000));
    }).catch(this.onError);
    return this.writing;
  }

  /**
   * Waits until every live instance lists each of `sha256s` (at most ACTIVATION_WAIT_MS); returns,
   * by sha256, the labels of the live instances that still lack it (none: all have it).
   */
  async waitForAll(sha256s: readonly string[]): Promise<Map<string, string[]>> {
    const lacking = new Map<string, string[]>();
    if (!this.shared || !sha256s.length) return lacking;
    await this.beat();
    const deadline = Date.now() + ACTIVATION_WAIT_MS;
    for (;;) {
      lacking.clear();
      let live: LiveInstance[] = [];
      try {
        live = await liveInstances(this.db);
      } catch (err) {
        this.onError(err);
      }
      for (const sha of sha256s) {
        const without = live.filter((i) => i.id !== this.id && !i.packages.includes(sha)).map((i) => i.label);
        if (without.length) lacking.set(sha, without);
      }
      if (!lacking.size || Date.now() >= deadline) return lacking;
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  /** Stops the heartbeat and removes this instance's row (the others stop waiting for it at once). */
  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (!this.shared) return;
    await this.writing;
    await this.db.delete(moduleInstance).where(eq(moduleInstance.id, this.id)).catch(this.onError);
  }
}
