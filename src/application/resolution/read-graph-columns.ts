import type { Database } from '../../persistence/database.js';
import {
  readOrganizationGraphRows,
  type ProviderGraphRow,
  type ScheduleGraphRow,
  type ServiceGraphRow,
} from '../../persistence/organization-graph-rows.js';
import { PROVIDER_FIELDS, SCHEDULE_FIELDS, SERVICE_FIELDS, type GraphColumnsKey } from './graph-columns.js';
import { createGraphColumnsWriter, type GraphColumnsWriter } from './graph-columns-writer.js';

/** Rows fetched per batch while reading a graph: bounds the rows held at once, not the statements' count. */
const ROW_BATCH = 10_000;

const P = Object.fromEntries(PROVIDER_FIELDS.map((f, i) => [f, i])) as Record<(typeof PROVIDER_FIELDS)[number], number>;
const S = Object.fromEntries(SERVICE_FIELDS.map((f, i) => [f, i])) as Record<(typeof SERVICE_FIELDS)[number], number>;
const C = Object.fromEntries(SCHEDULE_FIELDS.map((f, i) => [f, i])) as Record<(typeof SCHEDULE_FIELDS)[number], number>;
const CODE_LISTS = [
  P.specialtyCodes,
  P.languageCodes,
  P.modalityCodes,
  P.serviceRegionCodes,
  P.insurancePlanCodes,
  P.ageGroupCodes,
] as const;
const CODE_LIST_KEYS = [
  'specialtyCodes',
  'languageCodes',
  'modalityCodes',
  'serviceRegionCodes',
  'insurancePlanCodes',
  'ageGroupCodes',
] as const;

/**
 * Reads an organization's graph from its rows straight into columns (the layout of a stored snapshot, which
 * `openGraphColumns` opens and `assembleColumnGraph` indexes): rows come in batches through cursors over one snapshot
 * of the database, each row's values go into the columns as it is read, and no provider, service or schedule object
 * is made. The records the columns decode to are those the graph always had: a provider as `toDomainProvider` of its
 * view (absent lists empty, nulls absent), a service as `toDomainService`, a schedule as `toDomainSchedule` (only the
 * active ones are stored).
 */
export async function readGraphColumns(db: Database, key: GraphColumnsKey): Promise<Buffer> {
  const w = createGraphColumnsWriter();
  const iso = createIsoOf();
  const json = createJsonTexts();
  await readOrganizationGraphRows(db, key.organizationId, ROW_BATCH, {
    providers: (rows) => {
      for (const r of rows) writeProvider(w, r, iso);
    },
    services: (rows) => {
      for (const r of rows) writeService(w, r);
    },
    schedules: (rows) => {
      for (const r of rows) writeSchedule(w, r, json);
    },
  });
  return w.finish(key);
}

/** ISO texts of instants, made once per distinct instant of a batch run (rows of one import share theirs). */
function createIsoOf() {
  let last = NaN;
  let text = '';
  return (d: Date): string => {
    const ms = d.getTime();
    if (ms !== last) ((last = ms), (text = d.toISOString()));
    return text;
  };
}

const EMPTY_LIST = '[]';

function writeProvider(w: GraphColumnsWriter, r: ProviderGraphRow, iso: (d: Date) => string): void {
  const d = r.doc;
  const put = (field: number, v: unknown) => w.put('providers', field, v);
  put(P.id, r.id);
  put(P.organizationId, r.organization_id);
  put(P.externalId, r.external_id);
  put(P.displayName, d.displayName);
  put(P.email, d.email ?? undefined);
  put(P.status, r.status);
  put(P.searchable, r.searchable);
  put(P.professionCode, d.professionCode ?? undefined);
  for (let k = 0; k < CODE_LISTS.length; k++) {
    const list = d[CODE_LIST_KEYS[k]!];
    // Absent or null: no codes (the graph's records hold an empty list).
    if (list === undefined || list === null) w.putText('providers', CODE_LISTS[k]!, EMPTY_LIST);
    else put(CODE_LISTS[k]!, list);
  }
  put(P.licenseRecords, d.licenseRecords ?? []);
  put(P.acceptsNewClients, d.acceptsNewClients ?? undefined);
  put(P.timezone, d.timezone ?? undefined);
  put(P.bio, d.bio ?? undefined);
  put(P.username, d.username ?? undefined);
  put(P.location, d.location ?? undefined);
  put(P.panelCapacity, d.panelCapacity ?? undefined);
  put(P.panelCurrentCount, d.panelCurrentCount ?? undefined);
  put(P.profileVersion, r.profile_version);
  put(P.createdAt, iso(r.created_at));
  put(P.updatedAt, iso(r.updated_at));
}

function writeService(w: GraphColumnsWriter, r: ServiceGraphRow): void {
  const d = r.doc ?? {};
  const put = (field: number, v: unknown) => w.put('services', field, v);
  put(S.id, r.id);
  put(S.organizationId, r.organization_id);
  put(S.providerId, r.provider_id);
  put(S.slug, r.slug);
  put(S.title, d.title);
  put(S.duration, Number(d.duration));
  put(S.price, d.price ?? undefined);
  put(S.currency, d.currency ?? undefined);
  put(S.modality, d.modality ?? undefined);
  put(S.slotIntervalMinutes, d.slotIntervalMinutes ?? undefined);
  put(S.minimumNoticeMinutes, d.minimumNoticeMinutes ?? undefined);
  put(S.bufferBeforeMinutes, d.bufferBeforeMinutes ?? undefined);
  put(S.bufferAfterMinutes, d.bufferAfterMinutes ?? undefined);
}

/**
 * A schedule's JSON fields as PostgreSQL gives their text: each distinct text parsed once (weeks repeat across
 * providers), and an object's text written as JSON.stringify writes it (the snapshot's texts, whatever the source).
 */
function createJsonTexts() {
  const values = new Map<string, { value: unknown; text: string | undefined }>();
  return (text: string | null): { value: unknown; text: string | undefined } => {
    if (text === null) return { value: undefined, text: undefined };
    let known = values.get(text);
    if (known === undefined) {
      const value = JSON.parse(text) as unknown;
      known = { value, text: value !== null && typeof value === 'object' ? JSON.stringify(value) : undefined };
      values.set(text, known);
    }
    return known;
  };
}

const NO_DAYS = '{}';
const NO_OVERRIDES = '[]';

function writeSchedule(w: GraphColumnsWriter, r: ScheduleGraphRow, json: ReturnType<typeof createJsonTexts>): void {
  const put = (field: number, v: unknown) => w.put('schedules', field, v);
  /** A JSON field: an object by its text, anything else as its value; absent (or JSON null, with `orElse`) as given. */
  const putJson = (field: number, text: string | null, orElse?: string) => {
    const j = json(text);
    if (j.text !== undefined) w.putText('schedules', field, j.text);
    else if ((j.value === undefined || j.value === null) && orElse !== undefined) w.putText('schedules', field, orElse);
    else put(field, j.value ?? undefined);
  };
  put(C.id, r.id);
  put(C.organizationId, r.organization_id);
  put(C.providerId, r.provider_id);
  putJson(C.title, r.title);
  // The zone as the row has it (JSON null stays null, as toDomainSchedule keeps it).
  put(C.timezone, json(r.timezone).value);
  putJson(C.days, r.days, NO_DAYS);
  putJson(C.overrides, r.overrides, NO_OVERRIDES);
  // Each feed is its own (a cell of its own text).
  const feed = r.external_calendar === null ? undefined : (JSON.parse(r.external_calendar) as unknown);
  put(C.externalCalendar, feed ?? undefined);
  put(C.status, 'active');
}
