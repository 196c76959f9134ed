/** What the resolutions of a run of whole UTC days asked of one value of a dimension, summed from their rollups. */
export interface DemandSumValue {
  value: string;
  resolutions: number;
  zeroResults: number;
  /** Wait histogram: `waitCounts[i]` resolutions had their first option in bucket `waitBuckets[i]`. */
  waitBuckets: Int32Array;
  waitCounts: Float64Array;
  /** Providers excluded per code, summed over the resolutions. */
  exclusionCodes: readonly string[];
  exclusionProviders: Float64Array;
}

/** A run of whole days of an organization's dimension, summed: a row per value asked (none when nothing was). */
export type DemandSum = readonly DemandSumValue[];

/** Sums of runs of rolled-up days, kept in memory, least recently used first out. */
export interface DemandSumCache {
  /**
   * The sum of the organization's dimension over the days [firstDay, endDay) (YYYY-MM-DD; or the hours, YYYY-MM-DDTHH,
   * in the cache of hours), when held.
   */
  get(organizationId: string, dimension: string, firstDay: string, endDay: string): DemandSum | undefined;
  set(organizationId: string, dimension: string, firstDay: string, endDay: string, sum: DemandSum): void;
  /** Sums held, and their summed weight (values, wait buckets and exclusion codes). */
  readonly size: number;
  readonly weight: number;
}

/** The weight of a sum: one per value, wait bucket and exclusion code it holds (~12-16 bytes of heap each). */
const weightOf = (d: DemandSum) => d.reduce((s, v) => s + 1 + v.waitBuckets.length + v.exclusionCodes.length, 1);

/**
 * Creates the cache of the sums network adequacy reads over whole days (resolution_demand_days and its histogram and
 * exclusion tables, migration 0014). A day's rollup is written once, in the statement that marks it done, and never
 * changed, so the sum of days all rolled up never goes stale and needs no invalidation: the cache is bounded by
 * `maxWeight` only (the least recently used go first, such as yesterday's runs), and a sum it dropped is read from
 * PostgreSQL again. The same kind of cache keeps the settled hours of partial days; the reader sets an hour of the
 * current day anew when its row count shows it changed.
 */
export function createDemandSumCache(opts: { maxWeight: number }): DemandSumCache {
  const entries = new Map<string, { sum: DemandSum; weight: number }>();
  let total = 0;
  const keyOf = (organizationId: string, dimension: string, firstDay: string, endDay: string) =>
    `${organizationId}\n${dimension}\n${firstDay}\n${endDay}`;
  return {
    get(organizationId, dimension, firstDay, endDay) {
      const key = keyOf(organizationId, dimension, firstDay, endDay);
      const entry = entries.get(key);
      if (!entry) return undefined;
      entries.delete(key);
      entries.set(key, entry);
      return entry.sum;
    },
    set(organizationId, dimension, firstDay, endDay, sum) {
      const key = keyOf(organizationId, dimension, firstDay, endDay);
      const old = entries.get(key);
      if (old) {
        entries.delete(key);
        total -= old.weight;
      }
      const weight = weightOf(sum);
      entries.set(key, { sum, weight });
      total += weight;
      // Oldest first; the entry just set (the newest) stays even above the budget.
      for (const [k, e] of entries) {
        if (total <= opts.maxWeight || k === key) break;
        entries.delete(k);
        total -= e.weight;
      }
    },
    get size() {
      return entries.size;
    },
    get weight() {
      return total;
    },
  };
}
