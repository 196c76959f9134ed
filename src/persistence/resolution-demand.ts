/**
 * What a resolution asked for and how it ended, as network adequacy reads it (table resolution_demands, migration
 * 0014): stored with the resolution's ledger row, one row per named value.
 */
export interface ResolutionDemand {
  /** The values its constraints named, by dimension (`language`, `license_region`, `insurance`, `specialty`, `modality`). */
  values: readonly { dimension: string; value: string }[];
  /** Days from the resolution's creation to its first (earliest) option's start; null when it returned none. */
  daysToFirstOption: number | null;
  /** Its exclusionSummary: providers excluded per exclusion code. */
  exclusions: Readonly<Record<string, number>>;
}
