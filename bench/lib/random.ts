// Deterministic randomness for the benchmarks' data sets: the same seed gives the same data on
// every machine, so cached data sets and recall fixtures stay comparable between runs.

export interface SeededRandom {
  /** A number in [0, 1). */
  random(): number;
  /** A whole number in [min, max]. */
  int(min: number, max: number): number;
  pick<T>(list: readonly T[]): T;
  /** Index into a list of n whose first entries are the most popular (Zipf-like, exponent ~1). */
  zipf(n: number, skew?: number): number;
}

/** mulberry32: fast, good enough, and the same sequence on every machine. */
export function seededRandom(start: number): SeededRandom {
  let seed = start;
  const random = (): number => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    random,
    int: (min, max) => min + Math.floor(random() * (max - min + 1)),
    pick: (list) => list[Math.floor(random() * list.length)]!,
    zipf: (n, skew = 1) => Math.min(n - 1, Math.floor(Math.pow(n + 1, Math.pow(random(), skew)) - 1)),
  };
}
