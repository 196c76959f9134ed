import type { CalendarConnection, LicenseRecord, Provider, ProviderService } from '../../domain/provider.js';
import {
  emptyEligibilitySets,
  valueSet,
  type EligibilityIndex,
  type ListField,
} from '../../domain/eligibility/eligibility-index.js';
import { add, newSet, type ProviderSet } from '../../domain/eligibility/provider-set.js';
import { countProvidersServing, type ServingCount } from '../../domain/providers-serving.js';
import { CELL, type GraphColumnsView } from './graph-columns.js';
import { LazyMap } from './lazy-map.js';
import type { GraphOrigin, OrgGraph } from './org-graph-shape.js';

// Heap of one built record beside its shared strings (the same estimates as org-graph.ts's), for approxBytes.
const PROVIDER_BYTES = 420;
const SERVICE_BYTES = 260;
const SCHEDULE_BYTES = 250;

const LIST_FIELDS: readonly [ListField, string][] = [
  ['specialtyCodes', 'specialtyCodes'],
  ['ageGroupCodes', 'ageGroupCodes'],
  ['modalityCodes', 'modalityCodes'],
  ['serviceRegionCodes', 'serviceRegionCodes'],
  ['insurancePlanCodes', 'insurancePlanCodes'],
  ['languageCodes', 'languageCodes'],
];

/**
 * Indexes an organization's graph for resolution straight from its columns (a stored snapshot): the eligibility
 * bitsets are built from the cells (each distinct code list read once), services and schedules are found through
 * typed arrays over provider positions, and a provider, service or schedule object is built only when something asks
 * for it (a resolution: its matched providers). Every answer equals that of `assembleOrgGraph` over the decoded
 * records (test/application/column-org-graph.test.ts).
 */
export function assembleColumnGraph(
  organizationId: string,
  graphVersion: number,
  view: GraphColumnsView,
  now: number,
  origin: GraphOrigin,
): OrgGraph {
  const n = view.counts.providers;
  const words = Math.ceil(n / 32) || 1;
  const str = view.str;
  const stringCell = (kind: 'providers' | 'services' | 'schedules' | 'licenses', field: string) => {
    const { kinds, values } = view.cells(kind, field);
    return (r: number): unknown => (kinds[r] === CELL.STRING ? str(values[r]!) : view.value(kind, field, r));
  };

  // Providers: built on first use, once each.
  const built = new Array<Provider | undefined>(n);
  // Ids already read, by position: a resolution looks up the services and schedules of the providers it read.
  const known = new Map<string, number>();
  let everyId = false;
  const providerAt = (i: number): Provider => {
    let p = built[i];
    if (p === undefined) known.set((p = built[i] = view.provider(i)).id, i);
    return p;
  };
  const pid = view.cells('providers', 'id');
  const idCell = stringCell('providers', 'id') as (i: number) => string;
  const idAt = (i: number): string => {
    const id = idCell(i);
    known.set(id, i);
    return id;
  };
  // The position of each provider id in the string table (services and schedules refer to the same strings).
  const positionOfString = new Int32Array(view.stringCount).fill(-1);
  for (let r = 0; r < n; r++) if (pid.kinds[r] === CELL.STRING) positionOfString[pid.values[r]!] = r;
  /** A provider's position: from the ids read so far, else (once) from every id. */
  const positionOf = (id: string): number => {
    const at = known.get(id);
    if (at !== undefined || everyId) return at ?? -1;
    for (let i = 0; i < n; i++) known.set(idCell(i), i);
    everyId = true;
    return known.get(id) ?? -1;
  };
  /** A record's provider position from its providerId cell, or -1 (not a provider of the graph). */
  const holderPositions = (kind: 'services' | 'schedules', count: number) => {
    const { kinds, values } = view.cells(kind, 'providerId');
    const out = new Int32Array(count);
    for (let r = 0; r < count; r++) {
      if (kinds[r] === CELL.STRING) out[r] = positionOfString[values[r]!]!;
      else out[r] = -1;
      // A string equal to a provider's id but stored apart (not from a snapshot's encoder): found by value.
      if (out[r] === -1) {
        const id = view.value(kind, 'providerId', r);
        out[r] = typeof id === 'string' ? positionOf(id) : -1;
      }
    }
    return out;
  };

  // Services: per slug, each provider's first service (by id) as a row number.
  const ns = view.counts.services;
  const builtServices = new Array<ProviderService | undefined>(ns);
  const serviceAt = (r: number) => (builtServices[r] ??= view.service(r));
  const serviceHolder = holderPositions('services', ns);
  const serviceProviderId = stringCell('services', 'providerId');
  const serviceSlug = stringCell('services', 'slug') as (r: number) => string;
  const bySlug = new Map<string, { rows: Int32Array; others: Map<string, number>; size: number }>();
  for (let r = 0; r < ns; r++) {
    const slug = serviceSlug(r);
    let s = bySlug.get(slug);
    if (!s) bySlug.set(slug, (s = { rows: new Int32Array(n).fill(-1), others: new Map(), size: 0 }));
    const at = serviceHolder[r]!;
    if (at >= 0) {
      if (s.rows[at] === -1) ((s.rows[at] = r), s.size++);
    } else {
      const id = serviceProviderId(r) as string;
      if (!s.others.has(id)) (s.others.set(id, r), s.size++);
    }
  }
  const servicesBySlug = new Map<string, ReadonlyMap<string, ProviderService>>();
  for (const [slug, s] of bySlug) {
    const rowOf = (providerId: string) => {
      const at = positionOf(providerId);
      const r = at >= 0 ? s.rows[at]! : (s.others.get(providerId) ?? -1);
      return r;
    };
    servicesBySlug.set(
      slug,
      new LazyMap(
        (providerId: string) => {
          const r = rowOf(providerId);
          return r >= 0 ? serviceAt(r) : undefined;
        },
        function* () {
          for (let r = 0; r < ns; r++) {
            if (serviceSlug(r) !== slug) continue;
            const at = serviceHolder[r]!;
            if (at >= 0 ? s.rows[at] === r : s.others.get(serviceProviderId(r) as string) === r)
              yield serviceProviderId(r) as string;
          }
        },
        s.size,
      ),
    );
  }
  const serviceId = stringCell('services', 'id') as (r: number) => string;
  let serviceRowById: Map<string, number> | undefined;
  const serviceById = new LazyMap<string, ProviderService>(
    (id) => {
      serviceRowById ??= new Map(Array.from({ length: ns }, (_, r) => [serviceId(r), r]));
      const r = serviceRowById.get(id);
      return r === undefined ? undefined : serviceAt(r);
    },
    function* () {
      // Service ids are unique (their table's key).
      for (let r = 0; r < ns; r++) yield serviceId(r);
    },
    ns,
  );

  // Schedules (newest first): each provider's as a chain of row numbers.
  const nc = view.counts.schedules;
  const builtSchedules = new Array<CalendarConnection | undefined>(nc);
  const scheduleAt = (r: number) => (builtSchedules[r] ??= view.schedule(r));
  const scheduleHolder = holderPositions('schedules', nc);
  const scheduleProviderId = stringCell('schedules', 'providerId');
  const firstSchedule = new Int32Array(n).fill(-1);
  const lastSchedule = new Int32Array(n).fill(-1);
  const nextSchedule = new Int32Array(nc).fill(-1);
  const otherSchedules = new Map<string, number[]>();
  const firstOfHolder = new Uint8Array(nc);
  let holders = 0;
  for (let r = 0; r < nc; r++) {
    const at = scheduleHolder[r]!;
    if (at >= 0) {
      if (firstSchedule[at] === -1) ((firstSchedule[at] = r), (firstOfHolder[r] = 1), holders++);
      else nextSchedule[lastSchedule[at]!] = r;
      lastSchedule[at] = r;
    } else {
      const id = scheduleProviderId(r) as string;
      const list = otherSchedules.get(id);
      if (list) list.push(r);
      else (otherSchedules.set(id, [r]), (firstOfHolder[r] = 1), holders++);
    }
  }
  const scheduleLists = new Map<string, CalendarConnection[]>();
  const schedulesOf = (providerId: string): CalendarConnection[] | undefined => {
    let list = scheduleLists.get(providerId);
    if (list) return list;
    const at = positionOf(providerId);
    const rows: number[] = [];
    if (at >= 0) for (let r = firstSchedule[at]!; r !== -1; r = nextSchedule[r]!) rows.push(r);
    else rows.push(...(otherSchedules.get(providerId) ?? []));
    if (rows.length === 0) return undefined;
    scheduleLists.set(providerId, (list = rows.map(scheduleAt)));
    return list;
  };
  const schedulesByProvider = new LazyMap<string, readonly CalendarConnection[]>(
    schedulesOf,
    function* () {
      for (let r = 0; r < nc; r++) if (firstOfHolder[r] === 1) yield scheduleProviderId(r) as string;
    },
    holders,
  );
  const feed = view.cells('schedules', 'externalCalendar');
  const feedSchedules: CalendarConnection[] = [];
  // The schedule in use is a provider's newest: its first.
  for (let r = 0; r < nc; r++)
    if (firstOfHolder[r] === 1 && feed.kinds[r] !== CELL.UNDEFINED) feedSchedules.push(scheduleAt(r));

  const eligibilityIndex = columnEligibilityIndex(view, n, words, providerAt);
  const offering = new Map<string, ProviderSet>();
  const offeringOf = (slug: string) => {
    let set = offering.get(slug);
    if (!set) {
      set = newSet(words);
      const s = bySlug.get(slug);
      if (s) for (let i = 0; i < n; i++) if (s.rows[i] !== -1) add(set, i);
      offering.set(slug, set);
    }
    return set;
  };
  let all: Provider[] | undefined;
  const providers = () => (all ??= Array.from({ length: n }, (_, i) => providerAt(i)));
  const serving = new Map<string, { today: string; counts: Map<string, ServingCount> }>();
  const servingOf = (dimension: string, today: string) => {
    let entry = serving.get(dimension);
    if (entry?.today !== today)
      serving.set(dimension, (entry = { today, counts: countProvidersServing(providers(), dimension, today) }));
    return entry.counts;
  };
  let providerById: Map<string, Provider> | undefined;
  // What the graph keeps however it is used: the columns (the string tables' text is sliced from them), the positions
  // and the bitsets.
  let sets = 6 + eligibilityIndex.subdivisionsOfCountry.size;
  for (const f of Object.values(eligibilityIndex.fields)) sets += 1 + f.byValue.size;
  const fixedBytes =
    view.byteLength + 4 * (view.stringCount + n * (3 + bySlug.size) + 2 * nc + ns) + sets * (words * 4 + 100);
  return {
    organizationId,
    graphVersion,
    get providers() {
      return providers();
    },
    providerCount: n,
    providerAt,
    providerIdAt: idAt,
    positionOf,
    get providerById() {
      return (providerById ??= new Map(providers().map((x) => [x.id, x])));
    },
    serviceById,
    servicesBySlug,
    schedulesByProvider,
    feedSchedules,
    eligibilityIndex,
    offeringOf,
    servingOf,
    // Records are built on use (a resolution builds its matched providers'; candidates and network adequacy build
    // them all), and the cache weighs a graph once, when it is stored: every record is counted as built from the start.
    approxBytes: fixedBytes + view.sharedBytes() + n * PROVIDER_BYTES + ns * SERVICE_BYTES + nc * SCHEDULE_BYTES,
    loadedAt: now,
    columns: view,
    ...origin,
  };
}

/** The eligibility bitsets of the providers of columns, equal to `buildEligibilityIndex` of the decoded providers. */
function columnEligibilityIndex(
  view: GraphColumnsView,
  n: number,
  words: number,
  providerAt: (i: number) => Provider,
): EligibilityIndex {
  const { fields, x, subdivisionsOfCountry } = emptyEligibilitySets(words);
  const value = (field: string, r: number) => view.value('providers', field, r);
  const status = view.cells('providers', 'status');
  const searchable = view.cells('providers', 'searchable');
  const capacity = view.cells('providers', 'panelCapacity');
  const accepts = view.cells('providers', 'acceptsNewClients');
  const profession = view.cells('providers', 'professionCode');
  for (let i = 0; i < n; i++) {
    add(x.all, i);
    if (status.kinds[i] !== CELL.STRING || view.str(status.values[i]!) !== 'active') add(x.inactive, i);
    if (searchable.kinds[i] !== CELL.TRUE && !value('searchable', i)) add(x.notSearchable, i);
    if (capacity.kinds[i] !== CELL.UNDEFINED) {
      const cap = value('panelCapacity', i) as number;
      if (((value('panelCurrentCount', i) as number | undefined) ?? 0) >= cap) add(x.panelFull, i);
    }
    if (accepts.kinds[i] === CELL.TRUE) add(x.acceptsYes, i);
    else if (accepts.kinds[i] === CELL.FALSE) add(x.acceptsNo, i);
    const code = profession.kinds[i] === CELL.STRING ? view.str(profession.values[i]!) : value('professionCode', i);
    if (code === undefined || code === '') add(fields.professionCodes.empty, i);
    else add(valueSet(fields.professionCodes, words, code as string), i);
  }
  // Code lists: each distinct list (one JSON text) is turned into its sets once, at its first provider, so the sets
  // are made in the order buildEligibilityIndex makes them.
  for (const [field, column] of LIST_FIELDS) {
    const index = fields[field];
    const regions = field === 'serviceRegionCodes';
    const { kinds, values } = view.cells('providers', column);
    const setsOfText = new Map<number, ProviderSet[]>();
    const setsOf = (list: readonly string[]) => {
      const sets: ProviderSet[] = [];
      if (list.length === 0) sets.push(index.empty);
      for (let k = 0; k < list.length; k++) sets.push(valueSet(index, words, list[k]!));
      if (regions)
        for (const region of list) {
          if (region.length === 2) continue;
          const country = region.slice(0, 2);
          let set = subdivisionsOfCountry.get(country);
          if (!set) subdivisionsOfCountry.set(country, (set = newSet(words)));
          sets.push(set);
        }
      return sets;
    };
    for (let i = 0; i < n; i++) {
      let sets: ProviderSet[] | undefined;
      if (kinds[i] === CELL.JSON_SHARED) {
        const t = values[i]!;
        sets = setsOfText.get(t);
        if (sets === undefined) setsOfText.set(t, (sets = setsOf(value(column, i) as string[])));
      } else sets = setsOf(value(column, i) as string[]);
      for (let k = 0; k < sets.length; k++) add(sets[k]!, i);
    }
  }
  return {
    get providers() {
      return Array.from({ length: n }, (_, i) => providerAt(i));
    },
    providerCount: n,
    providerAt,
    words,
    ...x,
    licenses: { byRegion: columnLicenseIndex(view, n) },
    fields,
    subdivisionsOfCountry,
  };
}

/**
 * License records by region (`buildLicenseIndex`), from the license table: holders found at load, each region's
 * records built when a request first asks for that region.
 */
function columnLicenseIndex(view: GraphColumnsView, n: number) {
  const regions = new Map<string, { holders: number[]; rows: number[] }>();
  /** Records not in the license table (a provider's list kept as JSON): rows -1, -2... */
  const loose: LicenseRecord[] = [];
  const place = (region: string, holder: number, row: number) => {
    let r = regions.get(region);
    if (!r) regions.set(region, (r = { holders: [], rows: [] }));
    r.holders.push(holder);
    r.rows.push(row);
  };
  const { kinds, values } = view.cells('providers', 'licenseRecords');
  const holderOf = view.cells('licenses', 'holder').values;
  const regionOf = view.cells('licenses', 'regionCode');
  const nl = view.counts.licenses;
  for (let i = 0; i < n; i++) {
    if (kinds[i] === CELL.LICENSE_ROWS) {
      for (let k = values[i]!; k < nl && holderOf[k] === i; k++) {
        const region =
          regionOf.kinds[k] === CELL.STRING ? view.str(regionOf.values[k]!) : view.value('licenses', 'regionCode', k);
        place(region as string, i, k);
      }
    } else
      for (const record of view.value('providers', 'licenseRecords', i) as LicenseRecord[]) {
        loose.push(record);
        place(record.regionCode, i, -loose.length);
      }
  }
  const built = new Map<string, { holders: number[]; records: LicenseRecord[] }>();
  return new LazyMap<string, { holders: number[]; records: LicenseRecord[] }>(
    (region) => {
      let b = built.get(region);
      if (b === undefined) {
        const r = regions.get(region);
        if (r === undefined) return undefined;
        b = { holders: r.holders, records: r.rows.map((k) => (k >= 0 ? view.licenseRecord(k) : loose[-k - 1]!)) };
        built.set(region, b);
      }
      return b;
    },
    () => regions.keys(),
    regions.size,
  );
}
