// sha1 of a file off the main thread, read 50 MB at a time (spec §9), so the page never freezes.
import { createSHA1 } from 'hash-wasm';

interface Job { id: number; file: Blob; chunk: number }

self.onmessage = async (event: MessageEvent<Job>) => {
  const { id, file, chunk } = event.data;
  try {
    const hasher = await createSHA1();
    hasher.init();
    for (let offset = 0; offset < file.size; offset += chunk) {
      hasher.update(new Uint8Array(await file.slice(offset, offset + chunk).arrayBuffer()));
      self.postMessage({ id, type: 'progress', done: Math.min(file.size, offset + chunk) });
    }
    self.postMessage({ id, type: 'done', sha1: hasher.digest('hex') });
  } catch (err) {
    self.postMessage({ id, type: 'error', message: err instanceof Error ? err.message : String(err) });
  }
};
