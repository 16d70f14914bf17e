// The captcha without pictures, in the browser: ALTCHA's solver spreads the counters over a few
// workers (pow.worker.ts, hashing with hash-wasm so no secure context is needed) and the solution
// is packed as ALTCHA's payload, which the business call carries as `altcha`.
import { solveChallengeWorkers, type Challenge } from 'altcha/lib';

/** Gives up after this long: the server's challenge expires after five minutes anyway. */
const TIMEOUT = 120_000;

/** Solves `challenge`; resolves the payload, or null when aborted or out of time. */
export async function solvePow(challenge: Challenge, signal: AbortSignal): Promise<string | null> {
  const controller = new AbortController();
  signal.addEventListener('abort', () => controller.abort(), { once: true });
  const solution = await solveChallengeWorkers({
    challenge,
    concurrency: Math.max(1, Math.min(4, navigator.hardwareConcurrency || 2)),
    controller,
    createWorker: () => new Worker(new URL('./pow.worker.ts', import.meta.url), { type: 'module', name: 'pow' }),
    counterMode: 'uint32',
    timeout: TIMEOUT,
  });
  if (!solution || signal.aborted) return null;
  return btoa(JSON.stringify({ challenge: { parameters: challenge.parameters, signature: challenge.signature }, solution }));
}
