/** A cache of values being loaded or loaded, bounded by entries and by the summed weight of the loaded ones. */
export interface WeightedCache<V> {
  /** The entry of `key`, now the most recently used; undefined when absent. */
  get(key: string): Promise<V> | undefined;
  /** Puts a load under `key` (replacing any entry); a failed load leaves the cache. */
  set(key: string, value: Promise<V>): void;
  /** Summed weight of the loaded entries. */
  readonly weight: number;
  readonly size: number;
}

/**
 * Creates a least-recently-used cache bounded by `maxEntries` and by `maxWeight` (e.g. providers held, as a
 * proxy for heap). The entry just set is never evicted for its own weight, so one value above the budget is
 * still served (and dropped once another is loaded).
 */
export function createWeightedCache<V>(opts: {
  maxEntries: number;
  maxWeight: number;
  weightOf: (value: V) => number;
}): WeightedCache<V> {
  const entries = new Map<string, Promise<V>>();
  const weights = new Map<string, number>();
  let total = 0;
  const drop = (key: string) => {
    entries.delete(key);
    total -= weights.get(key) ?? 0;
    weights.delete(key);
  };
  const evict = (keep: string) => {
    for (const key of entries.keys()) {
      if (entries.size <= opts.maxEntries && total <= opts.maxWeight) return;
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
          const w = opts.weightOf(v);
          weights.set(key, w);
          total += w;
          evict(key);
        },
        () => {
          if (entries.get(key) === value) drop(key);
        },
      );
    },
    get weight() {
      return total;
    },
    get size() {
      return entries.size;
    },
  };
}
