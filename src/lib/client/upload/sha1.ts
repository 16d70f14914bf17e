// Runs the sha1 worker for one file; aborting ends the worker at once.
import { QUEUE } from '../../shared/upload-queue';
import { tu } from './messages';

let nextId = 1;

/** The file's sha1 (lower-case hex); `onProgress` gets the bytes hashed so far. */
export function hashFile(file: Blob, onProgress: (done: number) => void, signal: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) { reject(signal.reason); return; }
    const worker = new Worker(new URL('./sha1.worker.ts', import.meta.url), { type: 'module' });
    const id = nextId++;
    const end = (): void => { worker.terminate(); signal.removeEventListener('abort', onAbort); };
    const onAbort = (): void => { end(); reject(signal.reason); };
    signal.addEventListener('abort', onAbort);
    worker.onmessage = (e: MessageEvent<{ id: number; type: string; done?: number; sha1?: string; message?: string }>) => {
      if (e.data.id !== id) return;
      if (e.data.type === 'progress') onProgress(e.data.done ?? 0);
      else if (e.data.type === 'done') { end(); resolve(e.data.sha1!); }
      // The browser's own words are English whatever the page's language: the spec's message instead (§8).
      else { end(); reject(new Error(tu('upload.error.read'))); }
    };
    worker.onerror = (e) => { end(); reject(new Error(e.message || 'sha1 worker failed')); };
    worker.postMessage({ id, file, chunk: QUEUE.hashChunk, read: QUEUE.hashRead });
  });
}
