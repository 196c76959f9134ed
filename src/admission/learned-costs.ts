/** How much each new sample moves a route's average (an exponentially weighted moving average). */
const EWMA_WEIGHT = 0.1;
/** Samples a route needs before its average may serve as the unit every other route is measured in. */
const SAMPLES_FOR_BASE = 10;
/** The smallest unit: below it, timer noise would make cheap routes look expensive relative to each other. */
const MIN_BASE_MS = 0.25;

/** What one kind of work (a route, an RPC) costs, learned from how long it took. */
export interface LearnedCosts {
  /** The admission units of work of `kind`: 1 for the cheapest kind seen, more in proportion to its time, at most `maxCost`. */
  costOf(kind: string): number;
  /** Records that work of `kind` took `ms` from its start to its end. */
  record(kind: string, ms: number): void;
  /**
   * The capacity work of `kind` takes: its units times its average time, in unit-milliseconds (the average of every kind
   * for one not yet measured; 0 before any sample). A queue holding W of it drains in about W / limit milliseconds.
   */
  workOf(kind: string): number;
  /** The average time of one piece of work, whatever its kind (undefined before any sample). */
  readonly workMs: number | undefined;
}

/**
 * createLearnedCosts learns the relative cost of each kind of work from its measured service time: the cheapest kind
 * with enough samples is one unit, and every other kind costs its average time over that unit's (rounded, at least 1,
 * at most `maxCost`). Under load every kind's time stretches alike (they share one event loop), so the ratios hold
 * where the absolute times would not. A kind not yet measured costs 1.
 */
export function createLearnedCosts(opts: { maxCost: number }): LearnedCosts {
  const averages = new Map<string, { ms: number; n: number }>();
  let baseMs: number | undefined;
  let workMs: number | undefined;
  let averageWork = 0;
  const ewma = (prev: number | undefined, x: number) => (prev === undefined ? x : prev + EWMA_WEIGHT * (x - prev));
  const costFrom = (ms: number | undefined) =>
    ms === undefined || baseMs === undefined
      ? 1
      : Math.min(opts.maxCost, Math.max(1, Math.round(ms / Math.max(baseMs, MIN_BASE_MS))));
  return {
    costOf: (kind) => costFrom(averages.get(kind)?.ms),
    workOf(kind) {
      const ms = averages.get(kind)?.ms;
      return ms === undefined ? averageWork : costFrom(ms) * ms;
    },
    record(kind, ms) {
      const cost = costFrom(averages.get(kind)?.ms);
      const a = averages.get(kind) ?? { ms, n: 0 };
      a.ms = a.n === 0 ? ms : ewma(a.ms, ms)!;
      a.n++;
      averages.set(kind, a);
      // The base is the cheapest well-measured kind; it can move up as well as down as the mix of work changes.
      let base: number | undefined;
      for (const v of averages.values())
        if (v.n >= SAMPLES_FOR_BASE && (base === undefined || v.ms < base)) base = v.ms;
      baseMs = base;
      workMs = ewma(workMs, ms);
      averageWork = ewma(averageWork === 0 ? undefined : averageWork, ms * cost)!;
    },
    get workMs() {
      return workMs;
    },
  };
}
