// Receiving the `file` part of a multipart/form-data body: busboy parses the framing, this module
// streams the file to a temporary path while hashing it, and applies the type and size rules as
// the bytes arrive. Memory stays flat whatever the file size: nothing holds a part body.
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { unlink } from 'node:fs/promises';
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import busboy from 'busboy';

/** Multipart framing, part headers and other fields allowed on top of the file itself. */
export const FORM_OVERHEAD = 1024 * 1024;
/** Besides the file: at most this many other fields, each at most this long (bytes), and parts overall. */
const MAX_FIELDS = 20;
const MAX_FIELD_SIZE = 64 * 1024;
const MAX_PARTS = 50;
/**
 * Node's HTTP parser hands every body fragment over in a fresh buffer that only a collection frees;
 * V8 waits until ~64 MB of them piled up. When the process runs with `--expose-gc`, a young-generation
 * collection (about a millisecond) every few MiB received keeps that pile, and RSS, small.
 */
const COLLECT_EVERY = 8 * 1024 * 1024;
const collectYoung = (globalThis as { gc?: (options?: { type?: 'minor' | 'major' }) => unknown }).gc;

export interface Received {
  tmpPath: string;
  name: string;
  mimetype: string;
  size: number;
  sha1: string;
}

/** What one kind of upload accepts, checked while the body streams in. */
export interface ReceiveRules {
  maxSize: number;
  /** The message key refusing a file by its name and declared type, or null to take it. */
  refuse(filename: string, contentType: string): string | null;
  /** The message key for a file over `maxSize`. */
  tooLarge: string;
}

/** The upload breaks a rule: `key` is the message to answer with. */
export class Rejection extends Error {
  constructor(readonly key: string) { super(key); }
}

/** The body is not well-formed multipart/form-data (no boundary, bad framing, oversized part headers, cut short). */
export class MultipartError extends Error {}

/** The client closed the connection before the body ended: nobody to answer. */
export class ClientGone extends Error {}

/** True for a `multipart/form-data` Content-Type that names a boundary. */
export function isMultipart(contentType: string | undefined): boolean {
  if (!contentType || !/^\s*multipart\/form-data\s*(;|$)/i.test(contentType)) return false;
  try {
    busboy({ headers: { 'content-type': contentType } });
    return true;
  } catch {
    return false;
  }
}

/**
 * Streams the `file` part of `body` to `tmpPath` (created exclusively), hashing as it goes,
 * stopping as soon as the type or size rule fails (a `Rejection`; `upload.incomplete` for a body
 * without a complete file part). On any failure the temporary file is gone before the promise
 * rejects. `body` is the request (or any stream of its bytes, for tests).
 */
export function receiveFile(body: Readable & { complete?: boolean }, headers: IncomingHttpHeaders, tmpPath: string, rules: ReceiveRules): Promise<Received> {
  return new Promise((resolvePromise, rejectPromise) => {
    const hash = createHash('sha1');
    let out: ReturnType<typeof createWriteStream> | null = null;
    let file: { name: string; mimetype: string; stream: Readable } | null = null;
    let size = 0;
    let fileDone = false;
    let parsed = false;
    let total = 0;
    let settled = false;
    const totalLimit = rules.maxSize + FORM_OVERHEAD;

    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers,
        // Names as sent (folders included: the stored name drops them) and parameters read as UTF-8, as browsers send them.
        preservePath: true,
        // File data handed over in larger slices: fewer pauses between busboy and the disk (the
        // default 16 KiB halved the throughput of a large upload under --expose-gc in bench/upload-memory.mjs).
        fileHwm: 256 * 1024,
        defParamCharset: 'utf8',
        // One byte over the maximum is what tells "too large" from "exactly the maximum".
        limits: { fileSize: rules.maxSize + 1, files: 1, fields: MAX_FIELDS, fieldSize: MAX_FIELD_SIZE, parts: MAX_PARTS },
      });
    } catch {
      rejectPromise(new MultipartError('not multipart/form-data'));
      return;
    }

    const cleanup = (): void => {
      body.off('data', onData);
      body.off('end', onEnd);
      body.off('error', onError);
      body.off('close', onClose);
    };
    const fail = (err: unknown): void => {
      if (settled) return;
      settled = true;
      cleanup();
      // Later: this may run inside one of busboy's own callbacks, which go on using its state.
      process.nextTick(() => {
        parser.on('error', () => undefined);
        parser.destroy();
        const stream = out;
        const close = stream && !stream.closed ? new Promise<void>((r) => { stream.once('close', () => r()); stream.destroy(); }) : Promise.resolve();
        void close.then(() => unlink(tmpPath).catch(() => undefined)).then(() => rejectPromise(err));
      });
    };
    const succeed = (): void => {
      if (settled || !file || !fileDone || !parsed) return;
      settled = true;
      cleanup();
      const done = file;
      const stream = out!;
      stream.end();
      finished(stream).then(
        () => resolvePromise({ tmpPath, name: done.name, mimetype: done.mimetype, size, sha1: hash.digest('hex') }),
        (err: unknown) => { void unlink(tmpPath).catch(() => undefined).then(() => rejectPromise(err)); },
      );
    };

    parser.on('file', (name, stream, info) => {
      stream.on('error', (err) => fail(new MultipartError(err.message)));
      // Another file part, or an empty file input (the part is there, the file is not): skipped.
      if (file || name !== 'file' || !info.filename) { stream.resume(); return; }
      const refusal = rules.refuse(info.filename, info.mimeType);
      if (refusal) { fail(new Rejection(refusal)); return; }
      file = { name: info.filename, mimetype: info.mimeType, stream };
      const sink = createWriteStream(tmpPath, { flags: 'wx', mode: 0o644 });
      out = sink;
      sink.on('error', fail);
      stream.on('limit', () => fail(new Rejection(rules.tooLarge)));
      stream.on('data', (chunk: Buffer) => {
        if (settled) return;
        size += chunk.length;
        hash.update(chunk);
        // Backpressure: busboy stops pulling (and the request is paused below) until the disk caught up.
        if (!sink.write(chunk)) {
          stream.pause();
          sink.once('drain', () => { if (!settled) stream.resume(); });
        }
      });
      stream.on('end', () => { if (size > rules.maxSize) return; fileDone = true; succeed(); });
    });
    parser.on('error', (err: Error) => fail(new MultipartError(err.message)));
    parser.on('close', () => {
      parsed = true;
      if (!file || !fileDone) fail(new Rejection('upload.incomplete'));
      else succeed();
    });

    const onData = (chunk: Buffer): void => {
      if (settled) return;
      total += chunk.length;
      if (collectYoung && Math.floor(total / COLLECT_EVERY) !== Math.floor((total - chunk.length) / COLLECT_EVERY)) collectYoung({ type: 'minor' });
      if (total > totalLimit) { fail(new Rejection(rules.tooLarge)); return; }
      if (!parser.write(chunk)) {
        body.pause();
        parser.once('drain', () => { if (!settled) body.resume(); });
      }
    };
    const onEnd = (): void => { if (!settled) parser.end(); };
    const onError = (err: Error): void => fail(body.complete ?? body.readableEnded ? err : new ClientGone(err.message));
    const onClose = (): void => { if (!(body.complete ?? body.readableEnded)) fail(new ClientGone()); };

    body.on('data', onData);
    body.on('end', onEnd);
    body.on('error', onError);
    body.on('close', onClose);
  });
}
