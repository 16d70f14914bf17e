// How one file reaches storage: `local` (one XHR to the app server, with progress) and `s3`
// (presigned multipart: parts straight to the store, 3 at a time, 2 retries each, resume by ListParts).
// `cos` lives in cos.ts and is loaded only in that mode.
import { ApiError, request, statusMessage } from '../api';
import { pageLocale } from '../../i18n/client';
import type { Envelope } from '../../shared/codes';
import {
  fingerprintOf, missingParts, partCount, partRange, QUEUE, reusableParts, type ResumeRecord,
} from '../../shared/upload-queue';
import { tu } from './messages';
import { findResume, forgetResumeRecord, saveResume } from './resume';

/** The record every upload ends with (the local upload's `data.file`). */
export interface UploadedFile {
  id: number;
  url: string;
  full_url: string;
  name: string;
  size: number;
  mimetype: string;
  sha1: string;
  width: number;
  height: number;
  [key: string]: unknown;
}

export interface UploadJob {
  file: File;
  topic: string;
  sha1: string;
  signal: AbortSignal;
  /** Bytes on the server so far (parts done + bytes of parts in flight). */
  onProgress(loaded: number): void;
  /** Counts what a resume skipped and what it sent (benches and tests read it). */
  stats: { partsSent: number; partsSkipped: number; bytesSent: number };
}

/** A failure the queue shows as is (already in the member's language). */
export class UploadFailure extends Error {}

const sleep = (ms: number, signal: AbortSignal): Promise<void> => new Promise((resolve, reject) => {
  const timer = setTimeout(resolve, ms);
  signal.addEventListener('abort', () => { clearTimeout(timer); reject(signal.reason); }, { once: true });
});

function apiFailure(err: unknown): never {
  if (err instanceof ApiError) throw new UploadFailure(err.message);
  throw err;
}

/** Local mode: the file as multipart form data to `/api/ajax/upload`, with XHR upload progress. */
export function uploadLocal(job: UploadJob, path = '/api/ajax/upload'): Promise<UploadedFile> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    const url = path === '/api/ajax/upload' ? `${path}?topic=${encodeURIComponent(job.topic)}` : path;
    xhr.open('POST', url);
    xhr.setRequestHeader('think-lang', pageLocale());
    xhr.setRequestHeader('accept', 'application/json');
    xhr.upload.onprogress = (e) => { if (e.lengthComputable && e.total > 0) job.onProgress(Math.min(job.file.size, Math.round((e.loaded / e.total) * job.file.size))); };
    const onAbort = (): void => xhr.abort();
    job.signal.addEventListener('abort', onAbort, { once: true });
    xhr.onload = () => {
      job.signal.removeEventListener('abort', onAbort);
      let reply: Envelope<{ file: UploadedFile }> | null = null;
      try { reply = JSON.parse(xhr.responseText) as Envelope<{ file: UploadedFile }>; } catch { /* not an envelope */ }
      if (reply && reply.code === 1 && reply.data?.file) { job.stats.bytesSent += job.file.size; resolve(reply.data.file); return; }
      reject(new UploadFailure(reply?.msg || statusMessage(xhr.status || 500, url)));
    };
    xhr.onerror = () => { job.signal.removeEventListener('abort', onAbort); reject(new UploadFailure(tu('upload.error.network'))); };
    xhr.onabort = () => reject(job.signal.reason ?? new DOMException('aborted', 'AbortError'));
    const form = new FormData();
    form.append('file', job.file, job.file.name);
    xhr.send(form);
  });
}

interface StoreError extends Error { status: number; code: string; retry: boolean; expired: boolean }

function storeError(status: number, body: string): StoreError {
  const code = /<Code>([^<]*)<\/Code>/.exec(body)?.[1] ?? '';
  const message = /<Message>([^<]*)<\/Message>/.exec(body)?.[1] ?? '';
  const expired = status === 403 && (/expired/i.test(message) || code === 'RequestTimeTooSkewed');
  const err = new Error(status === 0 ? tu('upload.error.network') : expired ? tu('upload.error.expired') : tu('upload.error.store', { status: code || status })) as StoreError;
  return Object.assign(err, { status, code, expired, retry: status === 0 || status >= 500 || status === 408 || status === 429 || expired });
}

/** One PUT of a part to a presigned URL; resolves with the part's ETag. */
function putPart(url: string, body: Blob, signal: AbortSignal, onProgress: (sent: number) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('PUT', url);
    xhr.upload.onprogress = (e) => onProgress(e.loaded);
    const onAbort = (): void => xhr.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    xhr.onload = () => {
      signal.removeEventListener('abort', onAbort);
      const etag = xhr.getResponseHeader('etag');
      if (xhr.status >= 200 && xhr.status < 300 && etag) resolve(etag);
      else if (xhr.status >= 200 && xhr.status < 300) reject(Object.assign(new UploadFailure(tu('upload.error.cors')), { retry: false }));
      else reject(storeError(xhr.status, xhr.responseText));
    };
    xhr.onerror = () => { signal.removeEventListener('abort', onAbort); reject(storeError(0, '')); };
    xhr.onabort = () => reject(signal.reason ?? new DOMException('aborted', 'AbortError'));
    xhr.send(body);
  });
}

interface Prepared { key: string; uploadId: string; partSize: number; driver: string; file?: UploadedFile }
interface StoredPart { partNumber: number; size: number; etag: string }

async function call<T>(path: string, data: Record<string, unknown>, signal: AbortSignal): Promise<T> {
  try {
    return (await request<T>(path, { method: 'POST', data, showErrorMessage: false, signal })).data;
  } catch (err) {
    if (signal.aborted) throw signal.reason;
    return apiFailure(err);
  }
}

/** Parts the store already has for an upload, or null when the upload is gone (completed or aborted). */
async function listParts(key: string, uploadId: string, signal: AbortSignal): Promise<StoredPart[] | null> {
  try {
    return (await request<{ parts: StoredPart[] }>('/api/upload/multipart', { method: 'POST', data: { op: 'list', key, uploadId }, showErrorMessage: false, signal })).data.parts;
  } catch (err) {
    if (signal.aborted) throw signal.reason;
    if (err instanceof ApiError && (err.data as { missing?: boolean } | null)?.missing) return null;
    return apiFailure(err);
  }
}

/** Starts (or, for a file chosen again, resumes) a multipart upload: the key, the id, the parts on the store. */
async function begin(job: UploadJob): Promise<{ record: ResumeRecord; done: Map<number, string> } | { file: UploadedFile }> {
  const fingerprint = fingerprintOf(job.sha1, job.file.size, job.topic);
  const known = findResume(fingerprint, 's3');
  if (known) {
    const listed = await listParts(known.key, known.uploadId, job.signal);
    if (listed) return { record: known, done: reusableParts(listed, job.file.size, known.partSize) };
    forgetResumeRecord(fingerprint);
  }
  let prepared: Prepared;
  try {
    prepared = (await request<Prepared>('/api/upload/prepare', {
      method: 'POST', showErrorMessage: false, signal: job.signal,
      data: { name: job.file.name, size: job.file.size, type: job.file.type, sha1: job.sha1, topic: job.topic },
    })).data;
  } catch (err) {
    return apiFailure(err);
  }
  if (prepared.file) return { file: prepared.file };
  const record: ResumeRecord = { fingerprint, driver: 's3', key: prepared.key, uploadId: prepared.uploadId, partSize: prepared.partSize, time: Date.now() };
  saveResume(record);
  return { record, done: new Map() };
}

/** s3 mode: presigned multipart straight to the store, then the callback records the attachment. */
export async function uploadS3(job: UploadJob): Promise<UploadedFile> {
  const started = await begin(job);
  if ('file' in started) { job.onProgress(job.file.size); return started.file; }
  const { record, done } = started;
  const { key, uploadId, partSize } = record;
  const size = job.file.size;
  const total = partCount(size, partSize);
  const pending = missingParts(total, done.keys());
  job.stats.partsSkipped += total - pending.length;
  const inFlight = new Map<number, number>();
  let doneBytes = 0;
  for (const n of done.keys()) { const [a, b] = partRange(n, size, partSize); doneBytes += b - a; }
  const report = (): void => {
    let sum = doneBytes;
    for (const v of inFlight.values()) sum += v;
    job.onProgress(Math.min(size, sum));
  };
  report();

  const urls = new Map<number, string>();
  let signing: Promise<void> | null = null;
  const urlFor = async (n: number): Promise<string> => {
    while (!urls.has(n)) {
      if (!signing) {
        const window = [n, ...pending.filter((p) => p !== n && !urls.has(p))].slice(0, 24);
        signing = call<{ urls: Record<string, string> }>('/api/upload/sign', { key, uploadId, partNumbers: window }, job.signal)
          .then((s) => { for (const [k, v] of Object.entries(s.urls)) urls.set(Number(k), v); })
          .finally(() => { signing = null; });
      }
      await signing;
    }
    return urls.get(n)!;
  };

  const queue = [...pending];
  const worker = async (): Promise<void> => {
    for (let n = queue.shift(); n !== undefined; n = queue.shift()) {
      const [start, end] = partRange(n, size, partSize);
      for (let attempt = 0; ; attempt++) {
        try {
          const url = await urlFor(n);
          const etag = await putPart(url, job.file.slice(start, end), job.signal, (sent) => { inFlight.set(n!, sent); report(); });
          inFlight.delete(n);
          done.set(n, etag);
          doneBytes += end - start;
          job.stats.partsSent++;
          job.stats.bytesSent += end - start;
          report();
          break;
        } catch (err) {
          inFlight.delete(n);
          report();
          if (job.signal.aborted) throw job.signal.reason;
          const e = err as Partial<StoreError>;
          if (e.expired) urls.delete(n);
          if (!e.retry || attempt >= QUEUE.partRetries) throw err instanceof Error && !(err instanceof UploadFailure) ? new UploadFailure(err.message) : err;
          await sleep(500 * (attempt + 1), job.signal);
        }
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(QUEUE.partParallel, pending.length) }, worker));

  // The server completes with the parts the store lists (no CORS rule needed beyond PUT).
  await call('/api/upload/multipart', { op: 'complete', key, uploadId, size, partSize }, job.signal);
  forgetResumeRecord(record.fingerprint);
  try {
    const reply = await request<{ file: UploadedFile }>('/api/s3/callback', {
      method: 'POST', showErrorMessage: false, signal: job.signal,
      data: { url: key, name: job.file.name, size, type: job.file.type, sha1: job.sha1, topic: job.topic },
    });
    return reply.data.file;
  } catch (err) {
    return apiFailure(err);
  }
}

/** Cancel: the multipart upload is aborted on the store (its parts are deleted) and forgotten here. */
export async function abortS3(sha1: string, size: number, topic: string): Promise<void> {
  const fingerprint = fingerprintOf(sha1, size, topic);
  const known = findResume(fingerprint, 's3');
  if (!known) return;
  forgetResumeRecord(fingerprint);
  await request('/api/upload/multipart', { method: 'POST', data: { op: 'abort', key: known.key, uploadId: known.uploadId }, showErrorMessage: false }).catch(() => undefined);
}
