// The chat worker thread (dist/chat-worker.mjs): runs the models' streamed completions, so parsing
// and validating each token's chunk (the AI SDK's SSE parser, JSON and schema checks, ~0.2 ms per
// chunk) happens beside the request thread, not on it. Protocol with provider.ts:
//   in:  { op: 'start', id, req } | { op: 'abort', id, reason }
//   out: one message per tick, an array of [id, 't', text] | [id, 'e', CompletionEnd]
import { parentPort } from 'node:worker_threads';
import { complete, plainError, type CompletionEnd, type CompletionRequest } from './completion';

export type WorkerIn = { op: 'start'; id: number; req: CompletionRequest } | { op: 'abort'; id: number; reason: string };
export type WorkerOut = ([number, 't', string] | [number, 'e', CompletionEnd])[];

const port = parentPort!;
const running = new Map<number, AbortController>();
let outbox: WorkerOut = [];

/** Everything written in one tick leaves as one message. */
function send(item: WorkerOut[number]): void {
  if (outbox.length === 0) setImmediate(() => { const batch = outbox; outbox = []; port.postMessage(batch); });
  outbox.push(item);
}

port.on('message', (msg: WorkerIn) => {
  if (msg.op === 'abort') { running.get(msg.id)?.abort(msg.reason); return; }
  const controller = new AbortController();
  running.set(msg.id, controller);
  complete(msg.req, controller.signal, (text) => send([msg.id, 't', text]))
    .catch((err: unknown): CompletionEnd => ({ usage: null, error: plainError(err) }))
    .then((end) => { running.delete(msg.id); send([msg.id, 'e', end]); });
});
