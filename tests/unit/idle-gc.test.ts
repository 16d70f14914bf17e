import { afterEach, describe, expect, it, vi } from 'vitest';
import { collectWhenIdle } from '../../src/server/idle-gc';

/** Replaces process.cpuUsage with a counter the test advances with spend(ms). */
function fakeCpu(): { spend(ms: number): void } {
  let micros = 0;
  vi.spyOn(process, 'cpuUsage').mockImplementation(((prev?: NodeJS.CpuUsage) => ({ user: micros - (prev?.user ?? 0), system: 0 })) as typeof process.cpuUsage);
  return { spend: (ms) => void (micros += ms * 1000) };
}

describe('collectWhenIdle', () => {
  const g = globalThis as { gc?: () => void };
  const original = g.gc;
  afterEach(() => {
    g.gc = original;
    vi.restoreAllMocks();
    vi.useRealTimers();
  });

  it('collects once when a busy spell is followed by a quiet interval, not again while it stays quiet', () => {
    vi.useFakeTimers();
    const cpu = fakeCpu();
    const gc = vi.fn();
    g.gc = gc;
    const stop = collectWhenIdle({ intervalMs: 1000 });
    cpu.spend(500); // the start's work
    vi.advanceTimersByTime(1000);
    expect(gc).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1000); // quiet
    expect(gc).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(5000); // still quiet: nothing new to collect
    expect(gc).toHaveBeenCalledTimes(1);
    cpu.spend(300); // a burst of requests
    vi.advanceTimersByTime(1000);
    cpu.spend(10); // background noise below the quiet line
    vi.advanceTimersByTime(1000);
    expect(gc).toHaveBeenCalledTimes(2);
    stop();
  });

  it('gives memory back (V8\'s memory-reducing collection) after a load, else at most once a minute, a plain collection in between', () => {
    vi.useFakeTimers();
    const cpu = fakeCpu();
    const gc = vi.fn();
    g.gc = gc;
    const stop = collectWhenIdle({ intervalMs: 1000 });
    const spell = (): void => {
      cpu.spend(500);
      vi.advanceTimersByTime(1000);
      vi.advanceTimersByTime(1000);
    };
    const SHRINK = { type: 'major', execution: 'sync', flavor: 'last-resort' };
    spell();
    expect(gc).toHaveBeenLastCalledWith(SHRINK);
    spell(); // 2 s later
    expect(gc).toHaveBeenCalledTimes(2);
    expect(gc).toHaveBeenLastCalledWith();
    vi.advanceTimersByTime(60_000);
    spell();
    expect(gc).toHaveBeenCalledTimes(3);
    expect(gc).toHaveBeenLastCalledWith(SHRINK);
    // A load (busy for 10 s or more) is always followed by the memory-reducing one.
    for (let i = 0; i < 12; i++) {
      cpu.spend(500);
      vi.advanceTimersByTime(1000);
    }
    vi.advanceTimersByTime(1000);
    expect(gc).toHaveBeenCalledTimes(4);
    expect(gc).toHaveBeenLastCalledWith(SHRINK);
    stop();
  });

  it('waits while the process keeps working', () => {
    vi.useFakeTimers();
    const cpu = fakeCpu();
    const gc = vi.fn();
    g.gc = gc;
    const stop = collectWhenIdle({ intervalMs: 1000 });
    for (let i = 0; i < 5; i++) {
      cpu.spend(150); // between quiet and busy: not quiet
      vi.advanceTimersByTime(1000);
    }
    expect(gc).not.toHaveBeenCalled();
    stop();
  });

  it('does nothing without --expose-gc', () => {
    g.gc = undefined;
    expect(collectWhenIdle()).toBeTypeOf('function');
  });
});
