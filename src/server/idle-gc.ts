// A full garbage collection when the process goes quiet after a busy spell. V8 collects its old
// generation when it has grown enough, not when work stops, so after a burst of requests (or the
// start's migrations and module loading) an idle server kept the garbage of its last busy minute
// resident. Activity is read from the process's CPU time, so the request path pays nothing.
// Needs --expose-gc (SERVER_V8_FLAGS); without it this does nothing.
//
// The collection is V8's memory-reducing one (src/lib/server/gc.ts: it hands the heap's free pages
// back, PostgreSQL-mode idle RSS ~188 → ~138 MB, but pauses the thread ~4× as long as a plain one,
// ~180 ms on a 2-core VM) after a busy spell of 10 s or more (a load: the pause is noise beside it)
// and otherwise at most once a minute; in between, a plain full collection.
import { collectAndShrink } from '../lib/server/gc';

export interface IdleGcOptions {
  /** How often CPU time is sampled, ms. */
  intervalMs?: number;
  /** CPU time in one interval (all threads, ms) that counts as busy… */
  busyCpuMs?: number;
  /** …and below which an interval counts as quiet. */
  quietCpuMs?: number;
  /** Least time between two memory-reducing collections after short busy spells, ms… */
  shrinkEveryMs?: number;
  /** …while a busy spell at least this long is always followed by one, ms. */
  longSpellMs?: number;
  /** Told after each collection, for logs and tests. */
  onCollect?: () => void;
}

/** Starts watching; the returned function stops it. */
export function collectWhenIdle({ intervalMs = 2000, busyCpuMs = 200, quietCpuMs = 60, shrinkEveryMs = 60_000, longSpellMs = 10_000, onCollect }: IdleGcOptions = {}): () => void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) return () => undefined;
  let last = process.cpuUsage();
  let shrunkAt = -Infinity;
  let busy = true; // the start itself was busy: collect once it is over
  let busySince = Date.now();
  const timer = setInterval(() => {
    const used = process.cpuUsage(last);
    last = process.cpuUsage();
    const ms = (used.user + used.system) / 1000;
    if (ms >= busyCpuMs) {
      if (!busy) busySince = Date.now() - intervalMs;
      busy = true;
    } else if (busy && ms < quietCpuMs) {
      busy = false;
      const spell = Date.now() - intervalMs - busySince;
      if (spell >= longSpellMs || Date.now() - shrunkAt >= shrinkEveryMs) {
        shrunkAt = Date.now();
        collectAndShrink();
      } else gc();
      onCollect?.();
      last = process.cpuUsage(); // the collection's own CPU time is not activity
    }
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
