/** A deterministic pseudo-random source: every bench run builds the same organization, a failing property test names a reproducible seed. */
export interface SeededRandom {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max]. */
  int(min: number, max: number): number;
  /** One element of a non-empty list. */
  pick<T>(xs: readonly T[]): T;
  /** `n` distinct elements of a list (all of them when n >= length). */
  sample<T>(xs: readonly T[], n: number): T[];
  /** True with probability p. */
  chance(p: number): boolean;
}

/** Creates a seeded generator (mulberry32). */
export function createSeededRandom(seed: number): SeededRandom {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    int,
    pick: (xs) => xs[Math.floor(next() * xs.length)]!,
    sample: (xs, n) => {
      const copy = [...xs];
      for (let i = copy.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1));
        [copy[i], copy[j]] = [copy[j]!, copy[i]!];
      }
      return copy.slice(0, n);
    },
    chance: (p) => next() < p,
  };
}
