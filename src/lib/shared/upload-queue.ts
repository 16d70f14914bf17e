// The upload queue's rules, pure: task states and transitions (spec §4), the constants of spec §9,
// parts, resume records, speed and remaining time, credential reuse and clock skew.

export type TaskState = 'waiting' | 'checking' | 'uploading' | 'paused' | 'canceled' | 'error' | 'success';
export type TaskEvent = 'start' | 'hashed' | 'progress' | 'pause' | 'restart' | 'cancel' | 'fail' | 'succeed';

export const TASK_STATES: readonly TaskState[] = ['waiting', 'checking', 'uploading', 'paused', 'canceled', 'error', 'success'];
export const TASK_EVENTS: readonly TaskEvent[] = ['start', 'hashed', 'progress', 'pause', 'restart', 'cancel', 'fail', 'succeed'];

/** Spec §9 constants of direct uploads. */
export const QUEUE = {
  /** Bytes per part ("slice 5 MB"). */
  partSize: 5 * 1024 * 1024,
  minPartSize: 1024 * 1024,
  /** The sha1 worker's chunk ("hash in 50 MB chunks"): it reports progress once per chunk. */
  hashChunk: 50 * 1024 * 1024,
  /**
   * Bytes the worker reads at a time inside a chunk, the next read already running while one is
   * hashed: smaller buffers stay in the CPU caches and need no 50 MB allocation each (bench/sha1-worker.mjs).
   */
  hashRead: 8 * 1024 * 1024,
  fileParallel: 3,
  partParallel: 3,
  /** Tries of a part after the first. */
  partRetries: 2,
  maxParts: 10_000,
  progressInterval: 1000,
  /** Milliseconds a finished (uploaded or canceled) file stays listed before the queue drops it. */
  finishedLinger: 12_000,
  queueSize: 10_000,
  /** Upload ids kept for resume: at most 50, for 30 days. */
  cachedUploads: 50,
  cacheDays: 30,
  /** Temporary credentials are reused until this many seconds before they expire. */
  credentialMargin: 60,
  /** A server clock this many seconds away from ours is corrected for. */
  skewThreshold: 30,
  /** Each API request is retried once (server 5xx, clock skew). */
  requestRetries: 1,
} as const;

const TRANSITIONS: Record<TaskState, Partial<Record<TaskEvent, TaskState>>> = {
  waiting: { start: 'checking', pause: 'paused', cancel: 'canceled' },
  // A file the store already has (same sha1) is done right after checking.
  checking: { hashed: 'uploading', succeed: 'success', pause: 'paused', cancel: 'canceled', fail: 'error' },
  uploading: { progress: 'uploading', succeed: 'success', pause: 'paused', cancel: 'canceled', fail: 'error' },
  paused: { restart: 'waiting', cancel: 'canceled' },
  error: { restart: 'waiting', cancel: 'canceled' },
  canceled: {},
  success: {},
};

/** The state after `event`, or null when the event is not allowed in `state`. */
export function nextState(state: TaskState, event: TaskEvent): TaskState | null {
  return TRANSITIONS[state][event] ?? null;
}

export function canPause(state: TaskState): boolean {
  return nextState(state, 'pause') !== null;
}
export function canRestart(state: TaskState): boolean {
  return nextState(state, 'restart') !== null;
}
export function canCancel(state: TaskState): boolean {
  return nextState(state, 'cancel') !== null;
}
export function isActive(state: TaskState): boolean {
  return state === 'checking' || state === 'uploading';
}
export function isFinished(state: TaskState): boolean {
  return state === 'success' || state === 'canceled';
}

/** Part size for a file: the preferred size, at least 1 MiB, doubled until there are at most 10000 parts. */
export function partSizeFor(size: number, preferred: number = QUEUE.partSize): number {
  let part = Math.max(QUEUE.minPartSize, preferred);
  while (Math.ceil(size / part) > QUEUE.maxParts) part *= 2;
  return part;
}

export function partCount(size: number, partSize: number): number {
  return Math.max(1, Math.ceil(size / partSize));
}

/** Byte range [start, end) of part `n` (1-based). */
export function partRange(n: number, size: number, partSize: number): [number, number] {
  return [(n - 1) * partSize, Math.min(size, n * partSize)];
}

/** Part numbers not yet on the store, in order. */
export function missingParts(total: number, done: Iterable<number>): number[] {
  const have = new Set(done);
  const out: number[] = [];
  for (let n = 1; n <= total; n++) if (!have.has(n)) out.push(n);
  return out;
}

/** Parts listed by the store that can be kept: right number, right size (the last may be short). */
export function reusableParts(listed: { partNumber: number; size: number; etag: string }[], size: number, partSize: number): Map<number, string> {
  const total = partCount(size, partSize);
  const keep = new Map<number, string>();
  for (const p of listed) {
    if (p.partNumber < 1 || p.partNumber > total || !p.etag) continue;
    const [start, end] = partRange(p.partNumber, size, partSize);
    if (p.size === end - start) keep.set(p.partNumber, p.etag);
  }
  return keep;
}

/** Bytes per second over a sliding window of (time ms, bytes done) samples. */
export function speedOf(samples: readonly { t: number; bytes: number }[], windowMs = 5000): number {
  if (samples.length < 2) return 0;
  const last = samples[samples.length - 1]!;
  let first = samples[0]!;
  for (const s of samples) { if (last.t - s.t <= windowMs) { first = s; break; } }
  const dt = last.t - first.t;
  return dt > 0 ? Math.max(0, ((last.bytes - first.bytes) * 1000) / dt) : 0;
}

/** Seconds left at `speed`, or null when unknown. */
export function remainingSeconds(done: number, total: number, speed: number): number | null {
  if (speed <= 0 || total <= 0) return null;
  return Math.max(0, Math.ceil((total - done) / speed));
}

/** One unfinished upload remembered in the browser so a reload can resume it. */
export interface ResumeRecord {
  /** sha1 + size + topic of the file: the same file chosen again finds it. */
  fingerprint: string;
  driver: string;
  key: string;
  uploadId: string;
  partSize: number;
  /** Unix ms when stored. */
  time: number;
}

export function fingerprintOf(sha1: string, size: number, topic: string): string {
  return `${sha1}:${size}:${topic}`;
}

/** Records younger than 30 days, newest first, at most 50 (spec §9). */
export function pruneResume(records: readonly ResumeRecord[], now: number): ResumeRecord[] {
  const maxAge = QUEUE.cacheDays * 86_400_000;
  return records.filter((r) => now - r.time < maxAge && r.time <= now + 60_000)
    .sort((a, b) => b.time - a.time).slice(0, QUEUE.cachedUploads);
}

/** Adds or replaces the record for a fingerprint, then prunes. */
export function rememberResume(records: readonly ResumeRecord[], record: ResumeRecord, now: number): ResumeRecord[] {
  return pruneResume([record, ...records.filter((r) => r.fingerprint !== record.fingerprint)], now);
}

export function forgetResume(records: readonly ResumeRecord[], fingerprint: string): ResumeRecord[] {
  return records.filter((r) => r.fingerprint !== fingerprint);
}

/** Parses what localStorage holds; anything malformed is dropped. */
export function parseResume(raw: string | null): ResumeRecord[] {
  try {
    const value: unknown = JSON.parse(raw ?? '[]');
    if (!Array.isArray(value)) return [];
    return value.filter((r): r is ResumeRecord => Boolean(r) && typeof r === 'object'
      && typeof (r as ResumeRecord).fingerprint === 'string' && typeof (r as ResumeRecord).key === 'string'
      && typeof (r as ResumeRecord).uploadId === 'string' && typeof (r as ResumeRecord).driver === 'string'
      && Number.isInteger((r as ResumeRecord).partSize) && (r as ResumeRecord).partSize >= QUEUE.minPartSize
      && typeof (r as ResumeRecord).time === 'number');
  } catch {
    return [];
  }
}

/** Temporary credentials are reused until 60 s before they expire (times in seconds). */
export function credentialsUsable(expiredTime: number, nowSeconds: number): boolean {
  return expiredTime - QUEUE.credentialMargin > nowSeconds;
}

/**
 * The offset (ms) to add to the local clock: the server's `Date` minus local time when they differ by
 * 30 s or more, else the current offset. `serverDate` is an HTTP date or unix ms.
 */
export function clockOffset(serverDate: string | number | null, localNow: number, current = 0): number {
  if (serverDate === null || serverDate === '') return current;
  const server = typeof serverDate === 'number' ? serverDate : Date.parse(serverDate);
  if (!Number.isFinite(server)) return current;
  const diff = server - localNow;
  return Math.abs(diff) >= QUEUE.skewThreshold * 1000 ? diff : current;
}

/** Whether a store's error reply means the signature time is off (the call is retried once after correcting). */
export function isClockSkewError(code: string, message: string): boolean {
  return code === 'RequestTimeTooSkewed' || (code === 'AccessDenied' && /request has expired/i.test(message));
}

/** Nothing left to watch or act on: every task uploaded or canceled (the panel folds to its header). */
export function queueIdle(states: readonly TaskState[]): boolean {
  return states.every((s) => s === 'success' || s === 'canceled');
}
