/** One bound of a weighted cache: the summed weight of its loaded entries stays at most `max`. */
export interface WeightLimit<V> {
  max: number;
  weightOf: (value: V) => number;
}

/** A cache of values being loaded or loaded, bounded by entries and by the summed weights of the loaded ones. */
export interface WeightedCache<V> {
  /** The entry of `key`, now the most recently used; undefined when absent. */
  get(key: string): Promise<V> | undefined;
  /** Puts a load under `key` (replacing any entry); a failed load leaves the cache. */
  set(key: string, value: Promise<V>): void;
  /** Summed weight of the loaded entries under the first limit. */
  readonly weight: number;
  /** Summed weight of the loaded entries, by limit (in `limits` order). */
  readonly weights: readonly number[];
  readonly size: number;
}

/**
 * Creates a least-recently-used cache bounded by `maxEntries` and by each of `limits` (or by one: `maxWeight` of
 * `weightOf`), e.g. estimated bytes. The
 * entry just set is never evicted for its own weight, so one value above a budget is still served (and dropped once
 * another is loaded).
 */
export function createWeightedCache<V>(
  opts: { maxEntries: number } & (
    | { limits: readonly WeightLimit<V>[] }
    | { maxWeight: number; weightOf: (value: V) => number }
  ),
): WeightedCache<V> {
  const limits: readonly WeightLimit<V>[] =
    'limits' in opts ? opts.limits : [{ max: opts.maxWeight, weightOf: opts.weightOf }];
  const entries = new Map<string, Promise<V>>();
  const weights = new Map<string, number[]>();
  const totals = limits.map(() => 0);
  const drop = (key: string) => {
    entries.delete(key);
    const w = weights.get(key);
    if (w) w.forEach((x, i) => (totals[i]! -= x));
    weights.delete(key);
  };
  const within = () => entries.size <= opts.maxEntries && limits.every((l, i) => totals[i]! <= l.max);
  const evict = (keep: string) => {
    for (const key of entries.keys()) {
      if (within()) return;
      if (key !== keep) drop(key);
    }
  };
  return {
    get(key) {
      const value = entries.get(key);
      if (value === undefined) return undefined;
      entries.delete(key);
      entries.set(key, value);
      return value;
    },
    set(key, value) {
      drop(key);
      entries.set(key, value);
      evict(key);
      value.then(
        (v) => {
          if (entries.get(key) !== value) return;
          const w = limits.map((l) => l.weightOf(v));
          weights.set(key, w);
          w.forEach((x, i) => (totals[i]! += x));
          evict(key);
        },
        () => {
          if (entries.get(key) === value) drop(key);
        },
      );
    },
    get weight() {
      return totals[0] ?? 0;
    },
    get weights() {
      return totals;
    },
    get size() {
      return entries.size;
    },
  };
}
