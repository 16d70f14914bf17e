// The upload queue every upload place on a page shares: tasks move through the states of spec §4
// (lib/shared/upload-queue.ts decides which moves are allowed), 3 files at a time, progress
// published every 1000 ms. The island (islands/upload/UploadQueue.tsx) only renders this store.
import { atom } from 'nanostores';
import { request } from '../api';
import {
  isActive, nextState, QUEUE, remainingSeconds, speedOf, type TaskEvent, type TaskState,
} from '../../shared/upload-queue';
import { hashFile } from '../upload/sha1';
import { tu } from '../upload/messages';
import { abortS3, uploadLocal, uploadS3, UploadFailure, type UploadedFile, type UploadJob } from '../upload/transports';

export type { UploadedFile } from '../upload/transports';

export interface UploadTaskView {
  id: number;
  name: string;
  size: number;
  topic: string;
  state: TaskState;
  /** Bytes on the server. */
  loaded: number;
  /** Bytes hashed (checking). */
  hashed: number;
  /** Bytes per second, 0 when unknown. */
  speed: number;
  /** Seconds left, null when unknown. */
  remaining: number | null;
  error: string;
}

export interface UploadConfig {
  mode: 'local' | 's3' | 'cos';
  maxSize: number;
  allowedSuffixes: string;
  allowedMimeTypes: string;
  bucket?: string;
  region?: string;
  domain?: string;
}

export interface EnqueueOptions {
  /** Attachment topic (`avatar`, `ask`, `module`, …). */
  topic?: string;
  /** Always through the app server (module packages: private, checked there). */
  localPath?: string;
}

interface Task extends UploadTaskView {
  file: File;
  localPath: string | null;
  sha1: string;
  controller: AbortController | null;
  samples: { t: number; bytes: number }[];
  stats: UploadJob['stats'];
  resolve(file: UploadedFile): void;
  reject(err: Error): void;
}

export const $uploads = atom<UploadTaskView[]>([]);

const tasks = new Map<number, Task>();
let nextId = 1;
let emitTimer: ReturnType<typeof setTimeout> | null = null;
let configPromise: Promise<UploadConfig> | null = null;

/** The site's upload mode and rules, asked once per page. */
export function uploadConfig(): Promise<UploadConfig> {
  configPromise ??= request<UploadConfig>('/api/upload/config', { showErrorMessage: false })
    .then((r) => r.data)
    .catch((err: unknown) => { configPromise = null; throw err; });
  return configPromise;
}

function view(t: Task): UploadTaskView {
  return { id: t.id, name: t.name, size: t.size, topic: t.topic, state: t.state, loaded: t.loaded, hashed: t.hashed, speed: t.speed, remaining: t.remaining, error: t.error };
}

function emitNow(): void {
  if (emitTimer) { clearTimeout(emitTimer); emitTimer = null; }
  $uploads.set([...tasks.values()].map(view));
}

/** Progress reaches the store at most once per interval (spec §9: 1000 ms). */
function emitSoon(): void {
  emitTimer ??= setTimeout(emitNow, QUEUE.progressInterval);
}

function move(t: Task, event: TaskEvent): boolean {
  const to = nextState(t.state, event);
  if (!to) return false;
  t.state = to;
  if (to !== 'uploading') { t.speed = 0; t.remaining = null; }
  if (to === 'success' || to === 'canceled') setTimeout(() => dropFinished(t), QUEUE.finishedLinger);
  emitNow();
  return true;
}

/** A finished task leaves the list by itself a while later (unless "Clear finished" took it already). */
function dropFinished(t: Task): void {
  if (tasks.get(t.id) !== t) return;
  tasks.delete(t.id);
  emitNow();
}

function onProgress(t: Task, loaded: number): void {
  const now = Date.now();
  t.loaded = loaded;
  const last = t.samples[t.samples.length - 1];
  if (!last || now - last.t >= 200) {
    t.samples.push({ t: now, bytes: loaded });
    if (t.samples.length > 40) t.samples.shift();
  }
  t.speed = speedOf(t.samples);
  t.remaining = remainingSeconds(loaded, t.size, t.speed);
  emitSoon();
}

async function run(t: Task): Promise<void> {
  if (!move(t, 'start')) return;
  const controller = new AbortController();
  t.controller = controller;
  t.error = '';
  try {
    const config = t.localPath ? { mode: 'local' as const } : await uploadConfig();
    if (config.mode !== 'local' && !t.sha1) {
      t.sha1 = await hashFile(t.file, (done) => { t.hashed = done; emitSoon(); }, controller.signal);
    }
    t.hashed = t.size;
    if (controller.signal.aborted || !move(t, 'hashed')) return;
    t.samples = [{ t: Date.now(), bytes: t.loaded }];
    const job: UploadJob = { file: t.file, topic: t.topic, sha1: t.sha1, signal: controller.signal, onProgress: (n) => onProgress(t, n), stats: t.stats };
    let file: UploadedFile;
    // Module packages go to the private prefix through presigned parts in both cloud modes.
    if (config.mode === 's3' || (config.mode === 'cos' && t.topic === 'package')) file = await uploadS3(job);
    else if (config.mode === 'cos') file = await (await import('../upload/cos')).uploadCos(job, config);
    else file = await uploadLocal(job, t.localPath ?? undefined);
    if (controller.signal.aborted) return;
    t.loaded = t.size;
    move(t, 'succeed');
    t.resolve(file);
  } catch (err) {
    if (controller.signal.aborted) return;
    t.error = err instanceof UploadFailure || (err instanceof Error && err.message) ? (err as Error).message : tu('upload.error.network');
    move(t, 'fail');
  } finally {
    if (t.controller === controller) t.controller = null;
    pump();
  }
}

/** Starts waiting tasks while fewer than 3 files are checking or uploading. */
function pump(): void {
  let active = [...tasks.values()].filter((t) => isActive(t.state)).length;
  for (const t of tasks.values()) {
    if (active >= QUEUE.fileParallel) break;
    if (t.state === 'waiting') { active++; void run(t); }
  }
}

/** Puts a file in the queue; resolves with the stored record when it succeeds, rejects when it is canceled. */
export function enqueueUpload(file: File, options: EnqueueOptions = {}): Promise<UploadedFile> {
  return new Promise((resolve, reject) => {
    if (tasks.size >= QUEUE.queueSize) clearFinished();
    const id = nextId++;
    tasks.set(id, {
      id, name: file.name, size: file.size, topic: options.topic ?? 'default', state: 'waiting', loaded: 0, hashed: 0, speed: 0, remaining: null, error: '',
      file, localPath: options.localPath ?? null, sha1: '', controller: null, samples: [], stats: { partsSent: 0, partsSkipped: 0, bytesSent: 0 },
      resolve, reject,
    });
    emitNow();
    pump();
  });
}

/** Pause: allowed from waiting, checking or uploading; the parts already sent stay on the store. */
export function pauseUpload(id: number): void {
  const t = tasks.get(id);
  if (!t || !move(t, 'pause')) return;
  t.controller?.abort(new DOMException('paused', 'AbortError'));
  pump();
}

/** Restart from paused or error: back to waiting; only the missing parts are sent. */
export function restartUpload(id: number): void {
  const t = tasks.get(id);
  if (!t || !move(t, 'restart')) return;
  pump();
}

/** Cancel: the transfer stops and the multipart upload is aborted on the store. */
export function cancelUpload(id: number): void {
  const t = tasks.get(id);
  if (!t) return;
  const wasMultipart = Boolean(t.sha1) && !t.localPath;
  if (!move(t, 'cancel')) return;
  t.controller?.abort(new DOMException('canceled', 'AbortError'));
  if (wasMultipart) {
    void uploadConfig().then((c) => (c.mode === 's3' || (c.mode === 'cos' && t.topic === 'package') ? abortS3(t.sha1, t.size, t.topic) : c.mode === 'cos' ? import('../upload/cos').then((m) => m.abortCos(t.sha1, t.size, t.topic, c)) : undefined)).catch(() => undefined);
  }
  t.reject(new DOMException('canceled', 'AbortError'));
  pump();
}

/** Drops finished tasks (success, canceled) from the list. */
export function clearFinished(): void {
  for (const [id, t] of tasks) if (t.state === 'success' || t.state === 'canceled') tasks.delete(id);
  emitNow();
}

/** Counters of one task (resume checks and benches read them through window.__atriumUploads). */
export function uploadStats(id: number): UploadJob['stats'] | null {
  return tasks.get(id)?.stats ?? null;
}

if (typeof window !== 'undefined') {
  (window as unknown as { __atriumUploads?: unknown }).__atriumUploads = { stats: uploadStats, list: () => $uploads.get() };
}
