import type { Queryable } from '../../persistence/database.js';
import {
  NULLABLE_PROVIDER_DOC_KEYS,
  toProviderView,
  type ProviderView,
} from '../../persistence/provider-repository.js';
import { readOrganizationGraphRows } from '../../persistence/organization-graph-rows.js';
import { readGraphVersion } from '../../persistence/organization-repository.js';
import type { CalendarConnection, Provider, ProviderService } from '../../domain/provider.js';
import { createWeightedCache } from './weighted-cache.js';
import {
  buildEligibilityIndex,
  providerSetOf,
  type EligibilityIndex,
  type ProviderSet,
} from '../../domain/eligibility/eligibility-index.js';
import { countProvidersServing, type ServingCount } from '../../domain/providers-serving.js';

/** An organization's provider graph at one version, indexed for resolution. */
export interface OrgGraph {
  organizationId: string;
  graphVersion: number;
  /** Every provider of the organization, sorted by id (candidates order). */
  providers: Provider[];
  providerById: Map<string, Provider>;
  serviceById: Map<string, ProviderService>;
  /** slug -> providerId -> that provider's service of the slug. */
  servicesBySlug: Map<string, Map<string, ProviderService>>;
  /** providerId -> its schedules (newest first). */
  schedulesByProvider: Map<string, CalendarConnection[]>;
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
  loadedAt: number;
}

/** Maps the API view of a provider to the domain type (nulls become absent). */
export function toDomainProvider(v: ProviderView): Provider {
  const p: Record<string, unknown> = { ...v };
  for (const k of NULLABLE_PROVIDER_DOC_KEYS) p[k] ??= undefined;
  return p as {
    [K in keyof ProviderView]: null extends ProviderView[K]
      ? Exclude<ProviderView[K], null> | undefined
      : ProviderView[K];
  };
}

/** Maps a services row to the domain type. */
export function toDomainService(row: Record<string, any>): ProviderService {
  const d = row.doc ?? {};
  return {
    id: row.id,
    organizationId: row.organization_id,
    providerId: row.provider_id,
    slug: row.slug,
    title: d.title,
    duration: Number(d.duration),
    price: d.price ?? undefined,
    currency: d.currency ?? undefined,
    modality: d.modality ?? undefined,
    slotIntervalMinutes: d.slotIntervalMinutes ?? undefined,
    minimumNoticeMinutes: d.minimumNoticeMinutes ?? undefined,
    bufferBeforeMinutes: d.bufferBeforeMinutes ?? undefined,
    bufferAfterMinutes: d.bufferAfterMinutes ?? undefined,
  };
}

/** Maps a calendar_connections row to the domain type. */
export function toDomainSchedule(row: Record<string, any>): CalendarConnection {
  const d = row.doc ?? {};
  return {
    id: row.id,
    organizationId: row.organization_id,
    providerId: row.provider_id,
    title: d.title ?? undefined,
    timezone: d.timezone,
    days: d.days ?? {},
    overrides: d.overrides ?? [],
    externalCalendar: d.externalCalendar ?? undefined,
    status: 'active',
  };
}

/** Loads an organization's whole graph in three queries (never one per provider). */
export async function loadOrgGraph(
  db: Queryable,
  organizationId: string,
  graphVersion: number,
  now: number,
): Promise<OrgGraph> {
  const rows = await readOrganizationGraphRows(db, organizationId);
  const providers = rows.providers.map((r) => toDomainProvider(toProviderView(r)));
  const serviceById = new Map<string, ProviderService>();
  const servicesBySlug = new Map<string, Map<string, ProviderService>>();
  for (const row of rows.services) {
    const svc = toDomainService(row);
    serviceById.set(svc.id, svc);
    let bySlug = servicesBySlug.get(svc.slug);
    if (!bySlug) servicesBySlug.set(svc.slug, (bySlug = new Map()));
    if (!bySlug.has(svc.providerId)) bySlug.set(svc.providerId, svc);
  }
  const schedulesByProvider = new Map<string, CalendarConnection[]>();
  for (const row of rows.schedules) {
    const sched = toDomainSchedule(row);
    const list = schedulesByProvider.get(sched.providerId) ?? [];
    list.push(sched);
    schedulesByProvider.set(sched.providerId, list);
  }
  const feedSchedules = [...schedulesByProvider.values()]
    .map((list) => list[0]!)
    .filter((c) => c.externalCalendar !== undefined);
  const eligibilityIndex = buildEligibilityIndex(providers);
  const positionById = new Map(providers.map((x, i) => [x.id, i]));
  const offering = new Map<string, ProviderSet>();
  const offeringOf = (slug: string) => {
    let set = offering.get(slug);
    if (!set)
      offering.set(
        slug,
        (set = providerSetOf(
          eligibilityIndex,
          [...(servicesBySlug.get(slug)?.keys() ?? [])]
            .map((id) => positionById.get(id)!)
            .filter((i) => i !== undefined),
        )),
      );
    return set;
  };
  const serving = new Map<string, { today: string; counts: Map<string, ServingCount> }>();
  const servingOf = (dimension: string, today: string) => {
    let entry = serving.get(dimension);
    if (entry?.today !== today)
      serving.set(dimension, (entry = { today, counts: countProvidersServing(providers, dimension, today) }));
    return entry.counts;
  };
  return {
    organizationId,
    graphVersion,
    providers,
    providerById: new Map(providers.map((x) => [x.id, x])),
    serviceById,
    servicesBySlug,
    schedulesByProvider,
    feedSchedules,
    eligibilityIndex,
    offeringOf,
    servingOf,
    loadedAt: now,
  };
}

/**
 * Keeps each organization's graph in memory, keyed by its provider graph version: a read costs one
 * small query for the current version (none when the caller read it already); a changed version reloads
 * the graph (concurrent loads shared). The cache is bounded by organizations and by providers held in total
 * (a 10,000-provider graph takes ~36 MB of heap): the least recently used graphs go first, never the one just read.
 */
export function createOrgGraphCache(deps: {
  db: Queryable;
  clock: () => Date;
  maxOrganizations?: number;
  maxProviders?: number;
}) {
  const cache = createWeightedCache<OrgGraph>({
    maxEntries: deps.maxOrganizations ?? 200,
    maxWeight: deps.maxProviders ?? 50_000,
    weightOf: (g) => g.providers.length,
  });
  return async function orgGraph(organizationId: string, knownVersion?: number): Promise<OrgGraph> {
    let version = knownVersion;
    if (version === undefined) {
      version = await readGraphVersion(deps.db, organizationId);
    }
    let cached = cache.get(organizationId);
    while (cached) {
      const g = await cached.catch(() => undefined);
      if (g && g.graphVersion >= version) return g;
      // Another caller may have started the newer load while this one waited: share it.
      const latest = cache.get(organizationId);
      cached = latest !== cached ? latest : undefined;
    }
    const loading = loadOrgGraph(deps.db, organizationId, version, deps.clock().getTime());
    cache.set(organizationId, loading);
    return loading;
  };
}

/** The function created by createOrgGraphCache. */
export type OrgGraphCache = ReturnType<typeof createOrgGraphCache>;
