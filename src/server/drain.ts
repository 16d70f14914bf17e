// Replying to a request whose body we do not want (no token, too large, refused type) while the
// client is still sending it. Closing at once makes the kernel reset the connection under the
// client's feet, and browsers then report "Failed to fetch" instead of the reply. Like nginx's
// lingering close, the rest of the body is read and dropped first, within bounds of size and time.
import type { IncomingMessage } from 'node:http';

export interface DrainLimits {
  /** Most bytes read and dropped before giving up and closing (64 MiB). */
  maxBytes: number;
  /** Longest the whole drain may take (30 s). */
  maxMs: number;
  /** Longest wait for the next chunk (5 s). */
  idleMs: number;
}

export const DRAIN_LIMITS: DrainLimits = { maxBytes: 64 * 1024 * 1024, maxMs: 30_000, idleMs: 5_000 };

/**
 * Calls `reply(false)` once the request body has been read to its end (the connection can stay
 * open), or `reply(true)` when a bound was hit first (reply, then close). Nothing is called when
 * the client goes away meanwhile.
 */
export function replyAfterBody(req: IncomingMessage, reply: (close: boolean) => void, limits: DrainLimits = DRAIN_LIMITS): void {
  if (req.complete || req.readableEnded) { reply(false); return; }
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared - req.socket.bytesRead > limits.maxBytes) { finishWith(true); return; }
  let done = false;
  let bytes = 0;
  const total = setTimeout(() => finish(true), limits.maxMs);
  let idle = setTimeout(() => finish(true), limits.idleMs);
  function onData(chunk: Buffer): void {
    bytes += chunk.length;
    if (bytes > limits.maxBytes) { finish(true); return; }
    clearTimeout(idle);
    idle = setTimeout(() => finish(true), limits.idleMs);
  }
  function onEnd(): void { finish(false); }
  function onClose(): void {
    if (done) return;
    done = true;
    cleanup();
  }
  function cleanup(): void {
    clearTimeout(total);
    clearTimeout(idle);
    req.off('data', onData);
    req.off('end', onEnd);
    req.off('close', onClose);
    req.off('error', onClose);
  }
  function finish(close: boolean): void {
    if (done) return;
    done = true;
    cleanup();
    finishWith(close);
  }
  function finishWith(close: boolean): void {
    reply(close);
    // Past a bound the rest still flows into nothing until the socket closes after the reply.
    if (close) req.resume();
  }
  req.on('data', onData);
  req.once('end', onEnd);
  req.once('close', onClose);
  req.once('error', onClose);
  req.resume();
}
