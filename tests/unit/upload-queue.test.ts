// The upload queue's pure rules: every transition of spec §4, parts, resume records, expiry and skew.
import { describe, expect, it } from 'vitest';
import {
  canCancel, canPause, canRestart, clockOffset, credentialsUsable, fingerprintOf, forgetResume, isClockSkewError, missingParts,
  nextState, parseResume, partCount, partRange, partSizeFor, pruneResume, QUEUE, rememberResume, remainingSeconds,
  reusableParts, speedOf, TASK_EVENTS, TASK_STATES, type ResumeRecord, type TaskEvent, type TaskState,
} from '../../src/lib/shared/upload-queue';

const ALLOWED: Record<TaskState, Partial<Record<TaskEvent, TaskState>>> = {
  waiting: { start: 'checking', pause: 'paused', cancel: 'canceled' },
  checking: { hashed: 'uploading', succeed: 'success', pause: 'paused', cancel: 'canceled', fail: 'error' },
  uploading: { progress: 'uploading', succeed: 'success', pause: 'paused', cancel: 'canceled', fail: 'error' },
  paused: { restart: 'waiting', cancel: 'canceled' },
  error: { restart: 'waiting', cancel: 'canceled' },
  canceled: {},
  success: {},
};

describe('task state machine', () => {
  for (const state of TASK_STATES) {
    for (const event of TASK_EVENTS) {
      const expected = ALLOWED[state][event] ?? null;
      it(`${state} --${event}--> ${expected ?? 'refused'}`, () => {
        expect(nextState(state, event)).toBe(expected);
      });
    }
  }

  it('pause only from waiting, checking or uploading; restart only from paused or error, back to waiting', () => {
    expect(TASK_STATES.filter(canPause)).toEqual(['waiting', 'checking', 'uploading']);
    expect(TASK_STATES.filter(canRestart)).toEqual(['paused', 'error']);
    expect(TASK_STATES.filter((s) => canRestart(s) && nextState(s, 'restart') === 'waiting')).toEqual(['paused', 'error']);
    expect(TASK_STATES.filter(canCancel)).toEqual(['waiting', 'checking', 'uploading', 'paused', 'error']);
  });

  it('success and canceled are final', () => {
    for (const event of TASK_EVENTS) {
      expect(nextState('success', event)).toBeNull();
      expect(nextState('canceled', event)).toBeNull();
    }
  });
});

describe('parts', () => {
  it('uses 5 MB parts, at least 1 MiB, and grows them past 10000 parts', () => {
    expect(partSizeFor(200 * 1024 * 1024)).toBe(5 * 1024 * 1024);
    expect(partSizeFor(10, 1000)).toBe(QUEUE.minPartSize);
    const huge = 60 * 1024 ** 4 / 1024; // 60 GiB
    const size = partSizeFor(huge);
    expect(Math.ceil(huge / size)).toBeLessThanOrEqual(10_000);
    expect(size).toBe(10 * 1024 * 1024);
  });

  it('numbers parts from 1 with a short last part', () => {
    const size = 12 * 1024 * 1024 + 5;
    const part = 5 * 1024 * 1024;
    expect(partCount(size, part)).toBe(3);
    expect(partRange(3, size, part)).toEqual([10 * 1024 * 1024, size]);
    expect(partCount(0, part)).toBe(1);
  });

  it('sends only the missing parts, keeping listed parts of the right size', () => {
    expect(missingParts(5, [1, 3, 5])).toEqual([2, 4]);
    const part = 5 * 1024 * 1024;
    const size = 2 * part + 7;
    const kept = reusableParts([
      { partNumber: 1, size: part, etag: '"a"' },
      { partNumber: 2, size: part - 1, etag: '"b"' }, // truncated: sent again
      { partNumber: 3, size: 7, etag: '"c"' },
      { partNumber: 4, size: 7, etag: '"d"' }, // beyond the file
    ], size, part);
    expect([...kept.keys()]).toEqual([1, 3]);
  });
});

describe('speed and remaining time', () => {
  it('measures over the last samples and estimates the time left', () => {
    const samples = [{ t: 0, bytes: 0 }, { t: 1000, bytes: 1_000_000 }, { t: 2000, bytes: 3_000_000 }];
    expect(speedOf(samples)).toBe(1_500_000);
    expect(speedOf(samples, 1000)).toBe(2_000_000);
    expect(speedOf([{ t: 0, bytes: 0 }])).toBe(0);
    expect(remainingSeconds(3_000_000, 9_000_000, 2_000_000)).toBe(3);
    expect(remainingSeconds(0, 10, 0)).toBeNull();
  });
});

describe('resume records (localStorage)', () => {
  const day = 86_400_000;
  const rec = (i: number, time: number): ResumeRecord => ({ fingerprint: `f${i}`, driver: 's3', key: `k${i}`, uploadId: `u${i}`, partSize: QUEUE.partSize, time });

  it('keeps at most 50, newest first, none older than 30 days', () => {
    const now = 100 * day;
    const many = Array.from({ length: 60 }, (_, i) => rec(i, now - i * 1000));
    const pruned = pruneResume(many, now);
    expect(pruned).toHaveLength(50);
    expect(pruned[0]!.fingerprint).toBe('f0');
    expect(pruneResume([rec(1, now - 30 * day), rec(2, now - 29 * day)], now).map((r) => r.fingerprint)).toEqual(['f2']);
  });

  it('replaces the record of the same file and forgets it on success or cancel', () => {
    const now = 10 * day;
    let list = rememberResume([], rec(1, now - 5), now);
    list = rememberResume(list, { ...rec(1, now), uploadId: 'newer' }, now);
    expect(list).toHaveLength(1);
    expect(list[0]!.uploadId).toBe('newer');
    expect(forgetResume(list, 'f1')).toEqual([]);
    expect(fingerprintOf('ab', 3, 'default')).toBe('ab:3:default');
  });

  it('drops malformed storage', () => {
    expect(parseResume('nope')).toEqual([]);
    expect(parseResume('{"a":1}')).toEqual([]);
    expect(parseResume(JSON.stringify([rec(1, 5), { fingerprint: 'x' }, { ...rec(2, 5), partSize: 10 }]))).toHaveLength(1);
    expect(parseResume(null)).toEqual([]);
  });
});

describe('credentials and clock skew', () => {
  it('reuses temporary credentials until 60 s before they expire', () => {
    expect(credentialsUsable(1000, 939)).toBe(true);
    expect(credentialsUsable(1000, 940)).toBe(false);
    expect(credentialsUsable(1000, 2000)).toBe(false);
  });

  it('corrects the clock when the server differs by 30 s or more', () => {
    const local = Date.UTC(2026, 0, 1, 12, 0, 0);
    expect(clockOffset(new Date(local + 29_000).toUTCString(), local)).toBe(0);
    expect(clockOffset(new Date(local + 30_000).toUTCString(), local)).toBe(30_000);
    expect(clockOffset(local - 120_000, local)).toBe(-120_000);
    expect(clockOffset('garbage', local, 5)).toBe(5);
    expect(clockOffset(null, local, 7)).toBe(7);
    expect(isClockSkewError('RequestTimeTooSkewed', '')).toBe(true);
    expect(isClockSkewError('AccessDenied', 'Request has expired')).toBe(true);
    expect(isClockSkewError('AccessDenied', 'denied')).toBe(false);
  });
});
