import { scaled } from './time-scale.mjs';

/** Waits until `check` holds (polled every `every` ms), or fails naming `what` after `ms` (time-scaled). */
export async function until(check: () => boolean | Promise<boolean>, what: string, ms = 10_000, every = 25): Promise<void> {
  const deadline = Date.now() + scaled(ms);
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, every));
  }
}
