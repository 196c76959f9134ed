import type { Database } from '../../persistence/database.js';
import {
  graphRowInstant,
  readOrganizationGraphRows,
  type GraphRowSink,
  type ProviderGraphRow,
  type ScheduleGraphRow,
  type ServiceGraphRow,
} from '../../persistence/organization-graph-rows.js';
import {
  CELL,
  PROVIDER_CODE_LISTS,
  PROVIDER_FIELDS,
  SCHEDULE_FIELDS,
  SERVICE_FIELDS,
  type GraphColumnsKey,
  type GraphColumnsView,
} from './graph-columns.js';
import { createGraphColumnsWriter, type GraphColumnsWriter, type GraphWriterTable } from './graph-columns-writer.js';

/**
 * Rows fetched per batch while reading a graph: bounds the rows held at once (two batches per table: the one handed
 * over and the next one coming), not the statements' count. A batch's texts live until it is handed over, so a small
 * one is mostly gone before the young generation is next collected (10,000: ~8 MB of provider texts copied along).
 */
const ROW_BATCH = 2_000;

const P = Object.fromEntries(PROVIDER_FIELDS.map((f, i) => [f, i])) as Record<(typeof PROVIDER_FIELDS)[number], number>;
const S = Object.fromEntries(SERVICE_FIELDS.map((f, i) => [f, i])) as Record<(typeof SERVICE_FIELDS)[number], number>;
const C = Object.fromEntries(SCHEDULE_FIELDS.map((f, i) => [f, i])) as Record<(typeof SCHEDULE_FIELDS)[number], number>;
/** The columns of a provider's code lists, each written as a list cell (absent or null: the empty list). */
const CODE_LISTS = PROVIDER_CODE_LISTS.map((k) => P[k]);

/**
 * Reads an organization's current graph from its rows straight into columns (the layout of a stored snapshot, which
 * `openGraphColumns` opens and `assembleColumnGraph` indexes): rows come in batches through cursors over one snapshot
 * of the database, each row's values go into the columns as it is read, and no provider, service or schedule object
 * is made. The columns are labelled with the `graph_version` of that snapshot, the version the rows are of (later than
 * one read before the call when the graph moved meanwhile). The records the columns decode to are those the graph
 * always had: a provider as `toDomainProvider` of its view (absent lists empty, nulls absent), a service as
 * `toDomainService`, a schedule as `toDomainSchedule` (only the active ones are stored).
 */
export async function readGraphColumns(
  db: Database,
  organizationId: string,
): Promise<{ graphVersion: number; columns: Buffer }> {
  const sink = createGraphRowColumns(organizationId);
  const graphVersion = await readOrganizationGraphRows(db, organizationId, ROW_BATCH, sink);
  return { graphVersion, columns: sink.finish({ organizationId, graphVersion }) };
}

/** A graph row writer: the rows of each table handed over in the load's order, or row by row, then laid out. */
export interface GraphRowColumns extends GraphRowSink {
  provider(row: ProviderGraphRow): void;
  service(row: ServiceGraphRow): void;
  schedule(row: ScheduleGraphRow): void;
  /**
   * Writes record `r` of `table` of other columns of the graph (`from`) as its row would be written: the same values
   * through the same cell writers, so columns copied and read from the rows come out byte for byte equal.
   */
  copy(table: GraphWriterTable, from: GraphColumnsView, r: number): void;
  finish(key: GraphColumnsKey): Buffer;
}

/**
 * The graph rows of `organizationId` written into columns as they come (what readGraphColumns hands the rows to);
 * `finish` lays them out.
 */
export function createGraphRowColumns(organizationId: string): GraphRowColumns {
  const w = createGraphColumnsWriter();
  const iso = createIsoOf();
  const json = createJsonTexts();
  // One writer per column, called per row (no closure made per row).
  const p = w.cells('providers');
  const s = w.cells('services');
  const c = w.cells('schedules');
  const lists = CODE_LISTS.map((f) => p[f]!);
  const emptyList = CODE_LISTS.map((f) => () => w.putText('providers', f, EMPTY_LIST));
  const title = jsonCell(w, c, C.title, json);
  const days = jsonCell(w, c, C.days, json, NO_DAYS);
  const overrides = jsonCell(w, c, C.overrides, json, NO_OVERRIDES);
  const provider = (r: ProviderGraphRow) => {
    const d = r.doc;
    p[P.id]!(r.id);
    p[P.organizationId]!(organizationId);
    p[P.externalId]!(r.external_id);
    p[P.displayName]!(d.displayName);
    p[P.email]!(d.email ?? undefined);
    p[P.status]!(r.status);
    p[P.searchable]!(r.searchable);
    p[P.professionCode]!(d.professionCode ?? undefined);
    for (let k = 0; k < PROVIDER_CODE_LISTS.length; k++) {
      const list = d[PROVIDER_CODE_LISTS[k]!];
      // Absent or null: no codes (the graph's records hold an empty list).
      if (list === undefined || list === null) emptyList[k]!();
      else lists[k]!(list);
    }
    p[P.licenseRecords]!(d.licenseRecords ?? NO_LICENSES);
    p[P.acceptsNewClients]!(d.acceptsNewClients ?? undefined);
    p[P.timezone]!(d.timezone ?? undefined);
    p[P.bio]!(d.bio ?? undefined);
    p[P.username]!(d.username ?? undefined);
    p[P.location]!(d.location ?? undefined);
    p[P.panelCapacity]!(d.panelCapacity ?? undefined);
    p[P.panelCurrentCount]!(d.panelCurrentCount ?? undefined);
    p[P.profileVersion]!(r.profile_version);
    p[P.createdAt]!(iso(r.created_at));
    p[P.updatedAt]!(iso(r.updated_at));
  };
  const service = (r: ServiceGraphRow) => {
    const d = r.doc ?? {};
    s[S.id]!(r.id);
    s[S.organizationId]!(organizationId);
    s[S.providerId]!(r.provider_id);
    s[S.slug]!(r.slug);
    s[S.title]!(d.title);
    s[S.duration]!(Number(d.duration));
    s[S.price]!(d.price ?? undefined);
    s[S.currency]!(d.currency ?? undefined);
    s[S.modality]!(d.modality ?? undefined);
    s[S.slotIntervalMinutes]!(d.slotIntervalMinutes ?? undefined);
    s[S.minimumNoticeMinutes]!(d.minimumNoticeMinutes ?? undefined);
    s[S.bufferBeforeMinutes]!(d.bufferBeforeMinutes ?? undefined);
    s[S.bufferAfterMinutes]!(d.bufferAfterMinutes ?? undefined);
  };
  const schedule = (r: ScheduleGraphRow) => {
    c[C.id]!(r.id);
    c[C.organizationId]!(organizationId);
    c[C.providerId]!(r.provider_id);
    title(r.title);
    // The zone as the row has it (JSON null stays null, as toDomainSchedule keeps it).
    c[C.timezone]!(json(r.timezone).value);
    days(r.days);
    overrides(r.overrides);
    // Each feed is its own (a cell of its own text).
    c[C.externalCalendar]!(
      r.external_calendar === null ? undefined : ((JSON.parse(r.external_calendar) as unknown) ?? undefined),
    );
    c[C.status]!('active');
  };
  return {
    provider,
    service,
    schedule,
    providers: (rows) => {
      for (const r of rows) provider(r);
    },
    services: (rows) => {
      for (const r of rows) service(r);
    },
    schedules: (rows) => {
      for (const r of rows) schedule(r);
    },
    copy: (table, from, r) => w.copy(table, from, r),
    finish: (key) => w.finish(key),
  };
}

const EMPTY_LIST = '[]';
const NO_LICENSES: readonly unknown[] = [];
const NO_DAYS = '{}';
const NO_OVERRIDES = '[]';

/** ISO texts of a row's instants, made once per run of equal texts (rows of one import share theirs). */
function createIsoOf() {
  let last: string | undefined;
  let iso = '';
  return (text: string): string => {
    if (text !== last) ((last = text), (iso = graphRowInstant(text).toISOString()));
    return iso;
  };
}

/**
 * A schedule's JSON fields as PostgreSQL gives their text: each distinct text parsed once (weeks repeat across
 * providers), and an object's text written as JSON.stringify writes it (the snapshot's texts, whatever the source).
 */
function createJsonTexts() {
  type Known = { source: string; value: unknown; text: string | undefined };
  // By length, then compared: a week's text is hundreds of characters, each row's its own string, and hashing it for a
  // map costs more than comparing it with the few known texts of its length (which mostly differ at once).
  const byLength = new Map<number, Known[]>();
  const values = new Map<string, Known>();
  const absent = { value: undefined, text: undefined };
  return (text: string | null): { value: unknown; text: string | undefined } => {
    if (text === null) return absent;
    let same = byLength.get(text.length);
    if (same === undefined) byLength.set(text.length, (same = []));
    for (let k = 0; k < same.length; k++) if (same[k]!.source === text) return same[k]!;
    // Many distinct texts of one length: found through the map beyond the first few.
    let known = same.length < SAME_LENGTH_COMPARED ? undefined : values.get(text);
    if (known === undefined) {
      const value = JSON.parse(text) as unknown;
      known = {
        source: text,
        value,
        text: value !== null && typeof value === 'object' ? JSON.stringify(value) : undefined,
      };
      if (same.length < SAME_LENGTH_COMPARED) same.push(known);
      else values.set(text, known);
    }
    return known;
  };
}

/** Known JSON texts of one length compared with a row's before the map of texts is looked in. */
const SAME_LENGTH_COMPARED = 8;

/**
 * The writer of a schedule's JSON field given as its text: an object by its text, anything else as its value; absent
 * or JSON null as `orElse` when given (the text of the graph's default), else as undefined.
 */
function jsonCell(
  w: GraphColumnsWriter,
  cells: ((v: unknown) => void)[],
  field: number,
  json: ReturnType<typeof createJsonTexts>,
  orElse?: string,
): (text: string | null) => void {
  const cell = cells[field]!;
  return (text) => {
    const j = json(text);
    if (j.text !== undefined) w.putText('schedules', field, j.text);
    else if ((j.value === undefined || j.value === null) && orElse !== undefined) w.putText('schedules', field, orElse);
    else cell(j.value ?? undefined);
  };
}
