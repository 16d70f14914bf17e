// A full garbage collection that also gives memory back: V8's memory-reducing one (`flavor:
// 'last-resort'`, what V8 runs near its heap limit: full collections repeated until nothing more is
// freed, compacting, and handing free pages and the young generation's grown capacity back to the
// system). A plain `gc()` frees the objects but keeps the heap's pages committed for the next burst.
// Needs --expose-gc (SERVER_V8_FLAGS).

/** Runs V8's memory-reducing full collection; false when the process has no --expose-gc. */
export function collectAndShrink(): boolean {
  const gc = (globalThis as { gc?: (options?: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void }).gc;
  if (!gc) return false;
  gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  return true;
}
