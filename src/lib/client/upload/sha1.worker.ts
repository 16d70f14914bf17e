// sha1 of a file off the main thread (spec §9: a Web Worker, 50 MB chunks, so the page never
// freezes). hash-wasm's sha1 is fed incrementally; the file is read in `read`-byte slices
// (blob.slice().arrayBuffer(), no copy besides the one into wasm memory), the next slice already
// being read by the browser while this one is hashed. Progress goes out once per `chunk`.
import { createSHA1 } from 'hash-wasm';

interface Job { id: number; file: Blob; chunk: number; read?: number }

self.onmessage = async (event: MessageEvent<Job>) => {
  const { id, file, chunk } = event.data;
  const read = Math.max(64 * 1024, Math.min(event.data.read ?? chunk, chunk));
  try {
    const hasher = await createSHA1();
    hasher.init();
    const slice = (offset: number): Promise<ArrayBuffer> => file.slice(offset, Math.min(file.size, offset + read)).arrayBuffer();
    let next: Promise<ArrayBuffer> | null = file.size > 0 ? slice(0) : null;
    let reported = 0;
    for (let offset = 0; next; ) {
      const buffer = await next;
      if (buffer.byteLength === 0) throw new Error('the file could not be read to its end');
      offset += buffer.byteLength;
      next = offset < file.size ? slice(offset) : null;
      hasher.update(new Uint8Array(buffer));
      if (offset - reported >= chunk || offset >= file.size) {
        reported = offset;
        self.postMessage({ id, type: 'progress', done: offset });
      }
    }
    self.postMessage({ id, type: 'done', sha1: hasher.digest('hex') });
  } catch (err) {
    self.postMessage({ id, type: 'error', message: err instanceof Error ? err.message : String(err) });
  }
};
