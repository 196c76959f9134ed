import type { CalendarConnection, Provider, ProviderService } from '../../domain/provider.js';
import type { EligibilityIndex, ProviderSet } from '../../domain/eligibility/eligibility-index.js';
import type { ServingCount } from '../../domain/providers-serving.js';
import type { GraphColumnsView } from './graph-columns.js';

/** An organization's provider graph at one version, indexed for resolution. */
export interface OrgGraph {
  organizationId: string;
  graphVersion: number;
  /**
   * Every provider of the organization, sorted by id (candidates order). A graph read from columns builds them all on
   * first use: the resolution path reads `providerAt` and `providerIdAt`.
   */
  providers: Provider[];
  providerCount: number;
  /** The provider at a position of `providers` (built on first use when read from columns). */
  providerAt(i: number): Provider;
  /** The id of the provider at a position, without building the provider. */
  providerIdAt(i: number): string;
  /** The position of a provider in `providers`, or -1. */
  positionOf(id: string): number;
  providerById: ReadonlyMap<string, Provider>;
  serviceById: ReadonlyMap<string, ProviderService>;
  /** slug -> providerId -> that provider's service of the slug. */
  servicesBySlug: ReadonlyMap<string, ReadonlyMap<string, ProviderService>>;
  /** providerId -> its schedules (newest first). */
  schedulesByProvider: ReadonlyMap<string, readonly CalendarConnection[]>;
  /** The schedules in use (each provider's newest) that have an external calendar feed. */
  feedSchedules: CalendarConnection[];
  /** Bitsets over `providers` for screening eligibility. */
  eligibilityIndex: EligibilityIndex;
  /** The providers offering a session type (by slug), built on first use. */
  offeringOf(slug: string): ProviderSet;
  /**
   * Providers serving each value of a network-adequacy dimension on `today` (YYYY-MM-DD), counted on first use per
   * dimension and day (the graph never changes under its version; the latest day of each dimension is kept).
   */
  servingOf(dimension: string, today: string): ReadonlyMap<string, ServingCount>;
  /** Estimated heap the graph holds (bytes): what the graph cache is bounded by. */
  approxBytes: number;
  loadedAt: number;
  /** Read from the version's stored snapshot, from the rows, or made from an earlier version and its changes. */
  source: GraphOrigin['source'];
  /** The columns the graph reads (graphs read from columns): the base a later version's changes are applied to. */
  columns?: GraphColumnsView;
  snapshotStored: GraphOrigin['snapshotStored'];
}

/** Where a graph's records came from, and whether its version's snapshot is stored. */
export interface GraphOrigin {
  source: 'rows' | 'snapshot' | 'changes';
  /** Resolves true once the snapshot of this version is stored in PostgreSQL (at once when read from it). */
  snapshotStored: Promise<boolean>;
}
