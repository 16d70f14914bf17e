// The timeouts of the test configs only catch a hung test or server: none is meant to measure speed.
// They grow on a machine with few cores (where the layers of `npm test` also run side by side), so no
// test passes or fails by the machine's speed: x3 on 2 cores, x1.5 on 4, x1 from 6 on.
// TEST_TIME_SCALE=<factor> sets it by hand (e.g. 4 on a machine that also builds something else).
import { availableParallelism } from 'node:os';

const asked = Number(process.env.TEST_TIME_SCALE);
export const TIME_SCALE = asked > 0 ? asked : Math.max(1, 6 / availableParallelism());

/**
 * `ms` scaled to this machine, rounded to a whole millisecond.
 * @param {number} ms
 * @returns {number}
 */
export function scaled(ms) {
  return Math.round(ms * TIME_SCALE);
}
