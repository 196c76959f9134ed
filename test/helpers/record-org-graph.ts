import type { Database } from '../../src/persistence/database.js';
import {
  graphRowInstant,
  readOrganizationGraphRows,
  type GraphRowSink,
  type ProviderGraphRow,
  type ScheduleGraphRow,
  type ServiceGraphRow,
} from '../../src/persistence/organization-graph-rows.js';
import type { CalendarConnection, LicenseRecord, Provider, ProviderService } from '../../src/domain/provider.js';
import {
  buildEligibilityIndex,
  providerSetOf,
  type EligibilityIndex,
  type ProviderSet,
} from '../../src/domain/eligibility/eligibility-index.js';
import { countProvidersServing, type ServingCount } from '../../src/domain/providers-serving.js';
import type { GraphParts } from '../../src/application/resolution/graph-columns.js';
import type { GraphOrigin, OrgGraph } from '../../src/application/resolution/org-graph-shape.js';
import { toDomainService } from '../../src/application/resolution/org-graph.js';

/**
 * The graph of records: every provider, service and schedule an object, indexed by maps (what the service loaded from
 * the rows before it read them straight into columns, read-graph-columns.ts). Kept as the reference the column graph
 * is compared with (the parity tests) and as the "records" mode of bench/graph-load-profile.ts.
 */

/** Rows fetched per batch while loading a graph. */
const ROW_BATCH = 10_000;

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
function graphProvider(n: GraphInterner, organizationId: string, r: ProviderGraphRow): Provider {
  const d = r.doc;
  return {
    id: r.id,
    organizationId: n.str(organizationId),
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
    createdAt: n.iso(graphRowInstant(r.created_at)),
    updatedAt: n.iso(graphRowInstant(r.updated_at)),
  };
}

/** The domain service of a graph row (`toDomainService`), its repeated strings shared. */
function graphService(n: GraphInterner, organizationId: string, r: ServiceGraphRow): ProviderService {
  const svc = toDomainService({ ...r, organization_id: organizationId });
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
function graphSchedule(n: GraphInterner, organizationId: string, r: ScheduleGraphRow): CalendarConnection {
  return {
    id: r.id,
    organizationId: n.str(organizationId),
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
 * Reads an organization's graph records from its rows (the same cursors as the service's readGraphColumns), sharing
 * the values that repeat across providers.
 */
export async function readGraphParts(db: Database, organizationId: string): Promise<GraphParts> {
  const sink = createRecordSink(organizationId);
  await readOrganizationGraphRows(db, organizationId, ROW_BATCH, sink);
  return sink.parts();
}

/** The graph rows of `organizationId` made into records as they come (what readGraphParts hands the rows to). */
export function createRecordSink(organizationId: string): GraphRowSink & { parts(): GraphParts } {
  const n = createGraphInterner();
  const providers: Provider[] = [];
  const services: ProviderService[] = [];
  const schedules: CalendarConnection[] = [];
  return {
    providers: (rows) => {
      for (const r of rows) providers.push(graphProvider(n, organizationId, r));
    },
    services: (rows) => {
      for (const r of rows) services.push(graphService(n, organizationId, r));
    },
    schedules: (rows) => {
      for (const r of rows) schedules.push(graphSchedule(n, organizationId, r));
    },
    parts: () => ({ providers, services, schedules, sharedBytes: n.bytes() }),
  };
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
  db: Database,
  organizationId: string,
  graphVersion: number,
  now: number,
): Promise<OrgGraph> {
  return assembleOrgGraph(organizationId, graphVersion, await readGraphParts(db, organizationId), now);
}
