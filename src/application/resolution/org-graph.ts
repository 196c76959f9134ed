import type { Queryable } from '../../persistence/database.js';
import {
  NULLABLE_PROVIDER_DOC_KEYS,
  toProviderView,
  type ProviderView,
} from '../../persistence/provider-repository.js';
import {
  forEachProviderGraphPage,
  readScheduleGraphRows,
  readServiceGraphRows,
  type ProviderGraphRow,
  type ScheduleGraphRow,
  type ServiceGraphRow,
} from '../../persistence/organization-graph-rows.js';
import { readGraphVersion } from '../../persistence/organization-repository.js';
import { runOutsideCallScope } from '../../persistence/call-scope.js';
import type { CalendarConnection, LicenseRecord, Provider, ProviderService } from '../../domain/provider.js';
import { createWeightedCache, type WeightLimit } from './weighted-cache.js';
import {
  buildEligibilityIndex,
  providerSetOf,
  type EligibilityIndex,
  type ProviderSet,
} from '../../domain/eligibility/eligibility-index.js';
import { countProvidersServing, type ServingCount } from '../../domain/providers-serving.js';
import type { GraphParts } from './graph-columns.js';
import type { GraphSnapshots } from './graph-snapshots.js';
import type { GraphOrigin, OrgGraph } from './org-graph-shape.js';
import { assembleColumnGraph } from './column-org-graph.js';

export type { GraphOrigin, OrgGraph } from './org-graph-shape.js';

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

/** The graph cache's default budget of estimated heap (GRAPH_CACHE_MAX_MB=256). */
export const DEFAULT_GRAPH_CACHE_BYTES = 256 * 1024 * 1024;

/** Providers read per query while loading a graph: bounds the rows held at once, not the queries' count. */
const PROVIDER_PAGE = 10_000;

/**
 * Shares the values of one graph load that repeat across providers: strings (codes, dates, zones), code lists and
 * schedule parts parsed once per distinct JSON text. Shared values are read-only, as every graph value is.
 */
function createGraphInterner() {
  const strings = new Map<string, string>();
  const parsed = new Map<string, unknown>();
  const isoByMs = new Map<number, string>();
  const str = <T extends string | undefined | null>(s: T): T => {
    if (typeof s !== 'string') return s;
    const known = strings.get(s);
    if (known !== undefined) return known as T;
    strings.set(s, s);
    return s;
  };
  /** The value of a JSON text (SQL NULL: undefined), parsed once per distinct text. */
  const json = (text: string | null): any => {
    if (text === null) return undefined;
    let v = parsed.get(text);
    if (v === undefined && !parsed.has(text)) {
      v = JSON.parse(text);
      if (typeof v === 'string') v = str(v);
      else if (Array.isArray(v)) v = v.map((x) => (typeof x === 'string' ? str(x) : x));
      parsed.set(text, v);
    }
    return v;
  };
  const lists = new Map<string, string[]>();
  /** A list of codes, shared with every equal list of the load. */
  const list = (v: string[]): string[] => {
    const key = v.join('\u0001');
    const known = lists.get(key);
    if (known !== undefined && known.length === v.length) return known;
    for (let i = 0; i < v.length; i++) v[i] = str(v[i]!);
    lists.set(key, v);
    return v;
  };
  const iso = (d: Date): string => {
    const ms = d.getTime();
    let s = isoByMs.get(ms);
    if (s === undefined) isoByMs.set(ms, (s = d.toISOString()));
    return s;
  };
  /** Rough heap of the shared values: each distinct text once as its key and once parsed. */
  const bytes = () => {
    let b = 0;
    for (const k of strings.keys()) b += 40 + k.length;
    for (const k of parsed.keys()) b += 120 + 3 * k.length;
    for (const k of lists.keys()) b += 80 + 2 * k.length;
    return b + isoByMs.size * 80;
  };
  return { str, json, list, iso, bytes };
}

// Heap of one graph entry beside its own strings (V8, 64-bit, no pointer compression), measured by
// bench/large-org-quick.ts: the provider object and its map entry; a license record; a service or schedule with its
// map entries. The estimate bounds the cache; it need not be exact.
const PROVIDER_BYTES = 420;
const LICENSE_BYTES = 200;
const SERVICE_BYTES = 260;
const SCHEDULE_BYTES = 250;

/** Estimated heap of one provider: its object and the strings of its own (ids, names, license records). */
function providerBytes(p: Provider): number {
  const own = (s: string | undefined) => (s === undefined ? 0 : 24 + s.length);
  return (
    PROVIDER_BYTES +
    own(p.id) +
    own(p.externalId) +
    own(p.displayName) +
    own(p.email) +
    own(p.bio) +
    own(p.username) +
    p.licenseRecords.length * LICENSE_BYTES
  );
}

/** Estimated heap of an eligibility index: its bitsets (4 bytes a word) and their map entries. */
function indexBytes(index: EligibilityIndex): number {
  let sets = 6 + index.subdivisionsOfCountry.size;
  for (const f of Object.values(index.fields)) sets += 1 + f.byValue.size;
  return sets * (index.words * 4 + 100);
}

type GraphInterner = ReturnType<typeof createGraphInterner>;

const NO_CODES: string[] = [];

/** A doc's list of codes, shared with every provider listing the same ones (absent or null: none). */
function codeList(n: GraphInterner, v: string[] | null | undefined): string[] {
  return v === null || v === undefined ? NO_CODES : n.list(v);
}

const NO_LICENSES: LicenseRecord[] = [];

/** License records of one provider (they differ by provider: their strings are shared, not the records). */
function licenseRecords(n: GraphInterner, list: LicenseRecord[] | null | undefined): LicenseRecord[] {
  if (list === null || list === undefined) return NO_LICENSES;
  for (const r of list as unknown as Record<string, unknown>[])
    for (const k in r) if (typeof r[k] === 'string') r[k] = n.str(r[k] as string);
  return list;
}

/** The domain provider of a graph row: the same fields, in the same order, as `toDomainProvider(toProviderView(row))`. */
function graphProvider(n: GraphInterner, r: ProviderGraphRow): Provider {
  const d = r.doc;
  return {
    id: r.id,
    organizationId: n.str(r.organization_id),
    externalId: r.external_id,
    displayName: d.displayName,
    email: d.email ?? undefined,
    status: n.str(r.status) as Provider['status'],
    searchable: r.searchable,
    professionCode: n.str(d.professionCode) ?? undefined,
    specialtyCodes: codeList(n, d.specialtyCodes),
    languageCodes: codeList(n, d.languageCodes),
    modalityCodes: codeList(n, d.modalityCodes),
    serviceRegionCodes: codeList(n, d.serviceRegionCodes),
    insurancePlanCodes: codeList(n, d.insurancePlanCodes),
    ageGroupCodes: codeList(n, d.ageGroupCodes),
    licenseRecords: licenseRecords(n, d.licenseRecords),
    acceptsNewClients: d.acceptsNewClients ?? undefined,
    timezone: n.str(d.timezone) ?? undefined,
    bio: d.bio ?? undefined,
    username: d.username ?? undefined,
    location: n.str(d.location) ?? undefined,
    panelCapacity: d.panelCapacity ?? undefined,
    panelCurrentCount: d.panelCurrentCount ?? undefined,
    profileVersion: r.profile_version,
    createdAt: n.iso(r.created_at),
    updatedAt: n.iso(r.updated_at),
  };
}

/** The domain service of a graph row (`toDomainService`), its repeated strings shared. */
function graphService(n: GraphInterner, r: ServiceGraphRow): ProviderService {
  const svc = toDomainService(r);
  svc.organizationId = n.str(svc.organizationId);
  svc.slug = n.str(svc.slug);
  if (typeof svc.title === 'string') svc.title = n.str(svc.title);
  if (typeof svc.modality === 'string') svc.modality = n.str(svc.modality);
  if (typeof svc.currency === 'string') svc.currency = n.str(svc.currency);
  return svc;
}

const NO_DAYS: CalendarConnection['days'] = {};
const NO_OVERRIDES: CalendarConnection['overrides'] = [];

/** The domain schedule of a graph row: the same values as `toDomainSchedule` of the full row (weeks shared). */
function graphSchedule(n: GraphInterner, r: ScheduleGraphRow): CalendarConnection {
  return {
    id: r.id,
    organizationId: n.str(r.organization_id),
    providerId: r.provider_id,
    title: n.json(r.title) ?? undefined,
    timezone: n.json(r.timezone),
    days: n.json(r.days) ?? NO_DAYS,
    overrides: n.json(r.overrides) ?? NO_OVERRIDES,
    // Each feed is its own: parsed per schedule, not kept by text.
    externalCalendar: r.external_calendar === null ? undefined : (JSON.parse(r.external_calendar) ?? undefined),
    status: 'active',
  };
}

/**
 * Reads an organization's graph records from its rows (providers in keyset pages, then services, then schedules; never a
 * query per provider), sharing the values that repeat across providers.
 */
export async function readGraphParts(db: Queryable, organizationId: string): Promise<GraphParts> {
  const n = createGraphInterner();
  const providers: Provider[] = [];
  await forEachProviderGraphPage(db, organizationId, PROVIDER_PAGE, (rows) => {
    for (const r of rows) providers.push(graphProvider(n, r));
  });
  const services = (await readServiceGraphRows(db, organizationId)).map((row) => graphService(n, row));
  const schedules = (await readScheduleGraphRows(db, organizationId)).map((row) => graphSchedule(n, row));
  return { providers, services, schedules, sharedBytes: n.bytes() };
}

/** Indexes an organization's graph records at one version for resolution. */
export function assembleOrgGraph(
  organizationId: string,
  graphVersion: number,
  parts: GraphParts,
  now: number,
  origin: GraphOrigin = { source: 'rows', snapshotStored: Promise.resolve(false) },
): OrgGraph {
  const { providers } = parts;
  let bytes = 0;
  const positionById = new Map<string, number>();
  for (let i = 0; i < providers.length; i++) {
    const p = providers[i]!;
    bytes += providerBytes(p);
    positionById.set(p.id, i);
  }
  // The provider's own id string (a row holds a copy of its own; decoded columns share it already).
  const share = parts.providerIdsShared
    ? (id: string) => id
    : (id: string) => {
        const i = positionById.get(id);
        return i === undefined ? id : providers[i]!.id;
      };
  const serviceById = new Map<string, ProviderService>();
  const servicesBySlug = new Map<string, Map<string, ProviderService>>();
  for (const svc of parts.services) {
    svc.providerId = share(svc.providerId);
    serviceById.set(svc.id, svc);
    bytes += SERVICE_BYTES + svc.id.length;
    let bySlug = servicesBySlug.get(svc.slug);
    if (!bySlug) servicesBySlug.set(svc.slug, (bySlug = new Map()));
    if (!bySlug.has(svc.providerId)) bySlug.set(svc.providerId, svc);
  }
  const schedulesByProvider = new Map<string, CalendarConnection[]>();
  const feedSchedules: CalendarConnection[] = [];
  for (const sched of parts.schedules) {
    sched.providerId = share(sched.providerId);
    bytes += SCHEDULE_BYTES + sched.id.length;
    const list = schedulesByProvider.get(sched.providerId);
    if (list) list.push(sched);
    else {
      schedulesByProvider.set(sched.providerId, [sched]);
      // The schedule in use is a provider's newest: its first.
      if (sched.externalCalendar !== undefined) feedSchedules.push(sched);
    }
  }
  const eligibilityIndex = buildEligibilityIndex(providers);
  bytes += parts.sharedBytes + indexBytes(eligibilityIndex);
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
  let providerById: Map<string, Provider> | undefined;
  return {
    organizationId,
    graphVersion,
    providers,
    providerCount: providers.length,
    providerAt: (i) => providers[i]!,
    providerIdAt: (i) => providers[i]!.id,
    positionOf: (id) => positionById.get(id) ?? -1,
    // Built on first use (nothing on a resolution's path reads it): one map of every provider is enough.
    get providerById() {
      return (providerById ??= new Map(providers.map((x) => [x.id, x])));
    },
    serviceById,
    servicesBySlug,
    schedulesByProvider,
    feedSchedules,
    eligibilityIndex,
    offeringOf,
    servingOf,
    approxBytes: bytes,
    loadedAt: now,
    ...origin,
  };
}

/** Loads an organization's whole graph from its rows (no snapshot read or written). */
export async function loadOrgGraph(
  db: Queryable,
  organizationId: string,
  graphVersion: number,
  now: number,
): Promise<OrgGraph> {
  return assembleOrgGraph(organizationId, graphVersion, await readGraphParts(db, organizationId), now);
}

/** Graphs of at least this many providers get a stored snapshot (GRAPH_SNAPSHOT_MIN_PROVIDERS). */
export const DEFAULT_GRAPH_SNAPSHOT_MIN_PROVIDERS = 2000;

/**
 * Keeps each organization's graph in memory, keyed by its provider graph version: a read costs one
 * small query for the current version (none when the caller read it already); a changed version reloads
 * the graph (concurrent loads shared). The cache is bounded by organizations and by the graphs' estimated heap
 * (`approxBytes`; GRAPH_CACHE_MAX_MB): the least recently used graphs go first, never the one just read.
 *
 * With `snapshots`, a version is loaded from its stored snapshot when there is one (one statement, no row parsed), and
 * from the rows otherwise (none yet, of another format, damaged); a graph of `snapshotMinProviders` or more loaded from
 * its rows then has its snapshot written after the load, off the request that waits for it, unless the version moved
 * during the load (its rows may then mix two versions).
 */
export function createOrgGraphCache(deps: {
  db: Queryable;
  clock: () => Date;
  maxOrganizations?: number;
  /** Estimated heap the cached graphs may hold in total (bytes); default DEFAULT_GRAPH_CACHE_BYTES. */
  maxBytes?: number;
  /** Also bounds the providers held in total, when given (tests; the byte bound is the one that matters). */
  maxProviders?: number;
  snapshots?: GraphSnapshots;
  /** Default DEFAULT_GRAPH_SNAPSHOT_MIN_PROVIDERS. */
  snapshotMinProviders?: number;
  /** Told when a stored snapshot could not be used or written (the graph is served from its rows all the same). */
  onSnapshotProblem?: (organizationId: string, graphVersion: number, problem: string) => void;
}) {
  const limits: WeightLimit<OrgGraph>[] = [
    { max: deps.maxBytes ?? DEFAULT_GRAPH_CACHE_BYTES, weightOf: (g) => g.approxBytes },
  ];
  if (deps.maxProviders !== undefined) limits.push({ max: deps.maxProviders, weightOf: (g) => g.providers.length });
  const cache = createWeightedCache<OrgGraph>({ maxEntries: deps.maxOrganizations ?? 200, limits });
  const minProviders = deps.snapshotMinProviders ?? DEFAULT_GRAPH_SNAPSHOT_MIN_PROVIDERS;
  const problem = (organizationId: string, version: number, what: string) =>
    deps.onSnapshotProblem?.(organizationId, version, what);
  /** Writes a version's snapshot once the current request is answered; false when it was not written. */
  // Outside the call that loaded the graph: the write outlives its answer, and must not be cut off by its deadline.
  const storeLater = (snapshots: GraphSnapshots, organizationId: string, version: number, parts: GraphParts) =>
    runOutsideCallScope(() =>
      new Promise<void>((resolve) => setImmediate(resolve))
        .then(async () => {
          if ((await readGraphVersion(deps.db, organizationId)) !== version) return false;
          await snapshots.write({ organizationId, graphVersion: version }, parts);
          return true;
        })
        .catch((e: unknown) => {
          problem(organizationId, version, `not written: ${(e as Error).message}`);
          return false;
        }),
    );
  const load = async (organizationId: string, version: number): Promise<OrgGraph> => {
    const now = deps.clock().getTime();
    const snapshots = deps.snapshots;
    if (snapshots) {
      const read = await snapshots.read({ organizationId, graphVersion: version }).catch((e: unknown) => ({
        found: false as const,
        reason: 'unreadable' as const,
        detail: (e as Error).message,
      }));
      if (read.found) {
        try {
          return assembleColumnGraph(organizationId, version, read.columns, now, {
            source: 'snapshot',
            snapshotStored: Promise.resolve(true),
          });
        } catch (e) {
          problem(organizationId, version, `unreadable ${(e as Error).message}`);
        }
      } else if (read.reason !== 'missing')
        problem(organizationId, version, `${read.reason} ${read.detail ?? ''}`.trim());
    }
    const parts = await readGraphParts(deps.db, organizationId);
    const stored =
      snapshots && parts.providers.length >= minProviders
        ? storeLater(snapshots, organizationId, version, parts)
        : Promise.resolve(false);
    return assembleOrgGraph(organizationId, version, parts, now, { source: 'rows', snapshotStored: stored });
  };
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
    // Outside the call that starts it: the load is shared by every caller of the version and outlives a caller that
    // stops waiting (its deadline, 503); under that call's deadline a load longer than it would fail and restart at
    // every retry, never finishing. Its statements stay bounded by statement_timeout.
    const loading = runOutsideCallScope(() => load(organizationId, version));
    cache.set(organizationId, loading);
    return loading;
  };
}

/** The function created by createOrgGraphCache. */
export type OrgGraphCache = ReturnType<typeof createOrgGraphCache>;
