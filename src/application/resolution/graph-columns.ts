import type { CalendarConnection, LicenseRecord, Provider, ProviderService } from '../../domain/provider.js';

/** The records of an organization's graph at one version, in the order the graph keeps them. */
export interface GraphParts {
  /** Every provider, sorted by id. */
  providers: Provider[];
  /** Live services, sorted by id. */
  services: ProviderService[];
  /** Calendar connections, newest (highest id) first. */
  schedules: CalendarConnection[];
  /** Estimated heap of the values the records share (codes, code lists, weekly schedules). */
  sharedBytes: number;
  /** True when services and schedules hold their provider's own id string (decoded columns): nothing to share. */
  providerIdsShared?: boolean;
}

/** Who the columns belong to: decoding checks it, so a snapshot is never read as another organization's or version's. */
export interface GraphColumnsKey {
  organizationId: string;
  graphVersion: number;
}

// The fields of each record, in the order the graph's records have them (org-graph.ts builds them in this order).
const PROVIDER_FIELDS = [
  'id',
  'organizationId',
  'externalId',
  'displayName',
  'email',
  'status',
  'searchable',
  'professionCode',
  'specialtyCodes',
  'languageCodes',
  'modalityCodes',
  'serviceRegionCodes',
  'insurancePlanCodes',
  'ageGroupCodes',
  'licenseRecords',
  'acceptsNewClients',
  'timezone',
  'bio',
  'username',
  'location',
  'panelCapacity',
  'panelCurrentCount',
  'profileVersion',
  'createdAt',
  'updatedAt',
] as const satisfies readonly (keyof Provider)[];
const SERVICE_FIELDS = [
  'id',
  'organizationId',
  'providerId',
  'slug',
  'title',
  'duration',
  'price',
  'currency',
  'modality',
  'slotIntervalMinutes',
  'minimumNoticeMinutes',
  'bufferBeforeMinutes',
  'bufferAfterMinutes',
] as const satisfies readonly (keyof ProviderService)[];
const SCHEDULE_FIELDS = [
  'id',
  'organizationId',
  'providerId',
  'title',
  'timezone',
  'days',
  'overrides',
  'externalCalendar',
  'status',
] as const satisfies readonly (keyof CalendarConnection)[];
/**
 * The fields of a license record, kept as columns of their own table (one row per record, providers' records in
 * provider order): a record with any other key, or a value that is not a string, keeps its provider's list as JSON.
 */
const LICENSE_FIELDS = [
  'licenseTypeCode',
  'regionCode',
  'status',
  'expiresAt',
  'verifiedAt',
] as const satisfies readonly (keyof LicenseRecord)[];
const LICENSE_FIELD_SET = new Set<string>(LICENSE_FIELDS);
/** The license table's columns: the record's fields, its provider's position, and its keys in their order. */
const LICENSE_TABLE_FIELDS = [...LICENSE_FIELDS, 'holder', 'keys'] as const;
/**
 * Fields whose objects are each record's own (parsed per record, never shared by equal text): license records (when
 * not in the license table), and calendar feeds (each feed is its own, as the row loader keeps them).
 */
const OWN_FIELDS = new Set<string>(['licenseRecords', 'externalCalendar']);
/** Fields whose strings are (nearly) each record's own: written without looking for an equal one. */
const UNIQUE_FIELDS = new Set<string>(['id', 'externalId', 'displayName', 'email', 'bio', 'username']);

const MAGIC = 'OGC1';
/**
 * Bumped whenever the layout or a field list changes: columns of another format are ignored (the graph loads from rows).
 * 2: license records as a table of columns; a provider's id is the string its services and schedules refer to.
 */
export const GRAPH_COLUMNS_FORMAT = 2;

// A value's kind in a column; the column's number is a string-table index (strings, JSON texts) or the number itself.
const UNDEFINED = 0;
const NULL = 1;
const FALSE = 2;
const TRUE = 3;
const STRING = 4;
const NUMBER = 5;
const JSON_SHARED = 6;
const JSON_OWN = 7;
/** A provider's license records: the rows of the license table from the cell's number while their holder is it. */
const LICENSE_ROWS = 8;
/** The kinds of a column's cells, for readers of the columns themselves (column-org-graph.ts). */
export const CELL = { UNDEFINED, NULL, FALSE, TRUE, STRING, NUMBER, JSON_SHARED, JSON_OWN, LICENSE_ROWS } as const;

interface SectionInfo {
  name: string;
  offset: number;
  bytes: number;
}

interface Header extends GraphColumnsKey {
  format: number;
  counts: { providers: number; services: number; schedules: number; licenses: number };
  fields: {
    providers: readonly string[];
    services: readonly string[];
    schedules: readonly string[];
    licenses: readonly string[];
  };
  /** How many strings each table holds (strings: values kept; texts: JSON texts, parsed on decoding). */
  tables: { strings: number; texts: number };
  encodings: { strings: 'latin1' | 'utf16le'; texts: 'latin1' | 'utf16le' };
  sections: SectionInfo[];
  /** Bytes of the sections together (padding included): a buffer of any other length is cut or padded. */
  bytes?: number;
}

/**
 * Encodes an organization's graph as columns: per record kind and field, one byte of kind and one number per record
 * (float64), over one table of distinct strings (UTF-16, so every string round-trips exactly) where JSON values (code
 * lists, license records, weekly schedules) are kept as their text. Nothing per record but its column cells: a
 * million providers is one buffer of ~250 bytes each plus their distinct strings. `pause` is awaited before each
 * column: a large graph's encoding leaves the event loop to other requests between columns.
 */
export async function encodeGraphColumns(
  key: GraphColumnsKey,
  parts: GraphParts,
  pause: () => Promise<void> = async () => undefined,
): Promise<Buffer> {
  const strings = createTable();
  const texts = createTable();
  const textOf = new Map<object, number>();
  const sections: { name: string; data: Uint8Array }[] = [];
  // License records go to a table of their own (providers' lists in provider order): a provider's cell names its first
  // row, the holder column says where its list ends; the key order of each record is kept as a string.
  const licenses: Record<string, unknown>[] = [];
  const licenseStart = new Array<number | undefined>(parts.providers.length);
  parts.providers.forEach((p, i) => {
    const list = p.licenseRecords as unknown;
    if (!Array.isArray(list)) return;
    const tabular = list.every(
      (x) =>
        x !== null &&
        typeof x === 'object' &&
        !Array.isArray(x) &&
        Object.entries(x).every(([k, v]) => LICENSE_FIELD_SET.has(k) && (typeof v === 'string' || v === undefined)),
    );
    if (!tabular) return;
    licenseStart[i] = licenses.length;
    for (const x of list as Record<string, unknown>[])
      licenses.push({ ...x, holder: i, keys: Object.keys(x).join(',') });
  });
  const columns = async (name: string, records: readonly object[], fields: readonly string[]) => {
    for (const field of fields) {
      await pause();
      const kinds = new Uint8Array(records.length);
      const values = new Float64Array(records.length);
      const own = OWN_FIELDS.has(field);
      // A provider's id is looked up by its services and schedules: they refer to the same string.
      const unique = UNIQUE_FIELDS.has(field) && !(name === 'providers' && field === 'id');
      const licenseList = name === 'providers' && field === 'licenseRecords';
      let narrow = true;
      for (let r = 0; r < records.length; r++) {
        const v = (records[r] as Record<string, unknown>)[field];
        if (v === undefined) kinds[r] = UNDEFINED;
        else if (v === null) kinds[r] = NULL;
        else if (v === false) kinds[r] = FALSE;
        else if (v === true) kinds[r] = TRUE;
        else if (typeof v === 'string') {
          kinds[r] = STRING;
          values[r] = unique ? strings.add(v) : strings.ref(v);
        } else if (typeof v === 'number') {
          kinds[r] = NUMBER;
          values[r] = v;
          if (!(Number.isInteger(v) && v >= 0 && v <= 0xffffffff) || Object.is(v, -0)) narrow = false;
        } else if (licenseList && licenseStart[r] !== undefined) {
          kinds[r] = LICENSE_ROWS;
          values[r] = licenseStart[r]!;
        } else if (typeof v === 'object') {
          kinds[r] = own ? JSON_OWN : JSON_SHARED;
          // Lists the graph shares (one object for equal code lists) are written once.
          if (own) values[r] = texts.ref(JSON.stringify(v));
          else {
            let t = textOf.get(v);
            if (t === undefined) textOf.set(v, (t = texts.ref(JSON.stringify(v))));
            values[r] = t;
          }
        } else throw new Error(`graph columns: ${name}.${field} holds a ${typeof v}`);
      }
      sections.push({ name: `${name}.${field}.kind`, data: kinds });
      // Indexes and most numbers are whole and small: four bytes a cell instead of eight.
      if (narrow)
        sections.push({ name: `${name}.${field}.u32`, data: new Uint8Array(Uint32Array.from(values).buffer) });
      else sections.push({ name: `${name}.${field}.f64`, data: new Uint8Array(values.buffer) });
    }
  };
  await columns('providers', parts.providers, PROVIDER_FIELDS);
  await columns('services', parts.services, SERVICE_FIELDS);
  await columns('schedules', parts.schedules, SCHEDULE_FIELDS);
  await columns('licenses', licenses, LICENSE_TABLE_FIELDS);
  const encodings = { strings: strings.write('strings', sections), texts: texts.write('texts', sections) };
  const infos: SectionInfo[] = [];
  let offset = 0;
  for (const s of sections) {
    infos.push({ name: s.name, offset, bytes: s.data.byteLength });
    offset += align8(s.data.byteLength);
  }
  const header: Header = {
    format: GRAPH_COLUMNS_FORMAT,
    organizationId: key.organizationId,
    graphVersion: key.graphVersion,
    counts: {
      providers: parts.providers.length,
      services: parts.services.length,
      schedules: parts.schedules.length,
      licenses: licenses.length,
    },
    fields: {
      providers: PROVIDER_FIELDS,
      services: SERVICE_FIELDS,
      schedules: SCHEDULE_FIELDS,
      licenses: LICENSE_TABLE_FIELDS,
    },
    tables: { strings: strings.size(), texts: texts.size() },
    encodings,
    sections: infos,
  };
  header.bytes = offset;
  const headerBytes = Buffer.from(JSON.stringify(header), 'utf8');
  const start = align8(8 + headerBytes.length);
  const out = Buffer.alloc(start + offset);
  out.write(MAGIC, 0, 'latin1');
  out.writeUInt32LE(headerBytes.length, 4);
  headerBytes.copy(out, 8);
  for (let i = 0; i < sections.length; i++) out.set(sections[i]!.data, start + infos[i]!.offset);
  return out;
}

/** A table of distinct strings, written as one text and the offsets (code units) of each string in it. */
function createTable() {
  const index = new Map<string, number>();
  const table: string[] = [];
  return {
    ref(s: string): number {
      let i = index.get(s);
      if (i === undefined) {
        i = table.length;
        table.push(s);
        index.set(s, i);
      }
      return i;
    },
    /** Adds a string without looking for an equal one (a record's own). */
    add(s: string): number {
      table.push(s);
      return table.length - 1;
    },
    size: () => table.length,
    /** Adds the table's sections; returns the text's encoding (latin1 when every code unit fits a byte). */
    write(name: string, sections: { name: string; data: Uint8Array }[]): 'latin1' | 'utf16le' {
      const offsets = new Float64Array(table.length + 1);
      let at = 0;
      for (let i = 0; i < table.length; i++) {
        offsets[i] = at;
        at += table[i]!.length;
      }
      offsets[table.length] = at;
      const text = table.join('');
      const encoding = /[^\u0000-\u00ff]/.test(text) ? 'utf16le' : 'latin1';
      sections.push({ name: `${name}.offsets`, data: new Uint8Array(offsets.buffer) });
      sections.push({ name: `${name}.text`, data: Buffer.from(text, encoding) });
      return encoding;
    },
  };
}

const align8 = (n: number) => Math.ceil(n / 8) * 8;

/** Why columns were not used: the graph is then loaded from its rows. */
export class GraphColumnsError extends Error {}

/**
 * Decodes columns made by `encodeGraphColumns` back into the graph's records (equal to those encoded), checking they
 * are of this format and of `expected` organization and version; throws GraphColumnsError otherwise or when the
 * buffer is cut or inconsistent. Equal strings and equal JSON texts (but license records and feeds) come back as one
 * shared value.
 */
export function decodeGraphColumns(buf: Buffer, expected: GraphColumnsKey): GraphParts {
  return openGraphColumns(buf, expected).parts();
}

/** The record kinds of the columns. */
export type GraphRecordKind = 'providers' | 'services' | 'schedules' | 'licenses';

/**
 * Columns opened in place (checked as `decodeGraphColumns` checks them), read record by record or cell by cell:
 * nothing is built per record until asked for. Equal strings and JSON texts (but license records and feeds) come back
 * as one shared value, and a record is built anew on each call (callers keep what they build).
 */
export interface GraphColumnsView {
  counts: { providers: number; services: number; schedules: number; licenses: number };
  /** Bytes of the columns' sections (the buffer the view keeps, but its header). */
  byteLength: number;
  /** How many strings the string table holds (cells of kind STRING index it). */
  stringCount: number;
  /** The string of the string table at `i`. */
  str(i: number): string;
  /** A column's cells: one kind byte (CELL) and one number per record. */
  cells(kind: GraphRecordKind, field: string): { kinds: Uint8Array; values: ArrayLike<number> };
  /** The value of one cell, as the decoded record holds it. */
  value(kind: GraphRecordKind, field: string, r: number): unknown;
  provider(r: number): Provider;
  service(r: number): ProviderService;
  schedule(r: number): CalendarConnection;
  /** The license record of row `k` of the license table. */
  licenseRecord(k: number): LicenseRecord;
  /** Estimated heap of the shared values parsed so far. */
  sharedBytes(): number;
  /** Every record decoded (what decodeGraphColumns gives). */
  parts(): GraphParts;
}

/** Opens columns made by `encodeGraphColumns`; throws GraphColumnsError as `decodeGraphColumns` does. */
export function openGraphColumns(buf: Buffer, expected: GraphColumnsKey): GraphColumnsView {
  const guard =
    <A extends unknown[], R>(f: (...a: A) => R) =>
    (...a: A): R => {
      try {
        return f(...a);
      } catch (e) {
        if (e instanceof GraphColumnsError) throw e;
        throw new GraphColumnsError(`columns unreadable: ${(e as Error).message}`);
      }
    };
  const view = guard(openColumns)(buf, expected);
  return { ...view, parts: guard(view.parts) };
}

function openColumns(buf: Buffer, expected: GraphColumnsKey): GraphColumnsView {
  if (buf.length < 8 || buf.toString('latin1', 0, 4) !== MAGIC) throw new GraphColumnsError('not graph columns');
  const headerLength = buf.readUInt32LE(4);
  if (8 + headerLength > buf.length) throw new GraphColumnsError('header cut');
  let header: Header;
  try {
    header = JSON.parse(buf.toString('utf8', 8, 8 + headerLength)) as Header;
  } catch {
    throw new GraphColumnsError('header unreadable');
  }
  if (header.format !== GRAPH_COLUMNS_FORMAT) throw new GraphColumnsError(`format ${header.format}`);
  if (header.organizationId !== expected.organizationId || header.graphVersion !== expected.graphVersion)
    throw new GraphColumnsError('columns of another organization or version');
  const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);
  if (
    !same(header.fields.providers, PROVIDER_FIELDS) ||
    !same(header.fields.services, SERVICE_FIELDS) ||
    !same(header.fields.schedules, SCHEDULE_FIELDS) ||
    !same(header.fields.licenses, LICENSE_TABLE_FIELDS)
  )
    throw new GraphColumnsError('other fields');
  const start = align8(8 + headerLength);
  if (buf.length !== start + (header.bytes ?? -1)) throw new GraphColumnsError('columns of another length');
  const byName = new Map(header.sections.map((x) => [x.name, x]));
  const bounds = (name: string): { from: number; to: number } => {
    const x = byName.get(name);
    if (!x || !(x.offset >= 0) || start + x.offset + x.bytes > buf.length)
      throw new GraphColumnsError(`section ${name} missing or cut`);
    return { from: start + x.offset, to: start + x.offset + x.bytes };
  };
  // Sections start at multiples of 8 from `start` (itself one): on a buffer at such an offset they are read in place.
  const aligned = buf.byteOffset % 8 === 0;
  /** A section as a typed array's (buffer, offset): in place when aligned, else a copy. */
  const section = (name: string, elementBytes: number, count: number): [ArrayBufferLike, number] => {
    const b = bounds(name);
    if (b.to - b.from !== elementBytes * count) throw new GraphColumnsError(`section ${name} of another size`);
    if (aligned) return [buf.buffer, buf.byteOffset + b.from];
    const copy = new Uint8Array(b.to - b.from);
    copy.set(buf.subarray(b.from, b.to));
    return [copy.buffer, 0];
  };
  const table = (name: 'strings' | 'texts') => {
    const count = header.tables[name];
    const offsets = new Float64Array(...section(`${name}.offsets`, 8, count + 1), count + 1);
    const b = bounds(`${name}.text`);
    const encoding = header.encodings[name];
    if (encoding !== 'latin1' && encoding !== 'utf16le') throw new GraphColumnsError(`${name}: encoding ${encoding}`);
    // One text per table: a string of the kept table is a slice of it (the table is what the graph's strings hold).
    const text = buf.toString(encoding, b.from, b.to);
    if (offsets[count] !== text.length) throw new GraphColumnsError(`${name} table inconsistent`);
    const values = new Array<string | undefined>(count);
    return (i: number): string => {
      let v = values[i];
      if (v === undefined) {
        if (!(i >= 0 && i < count)) throw new GraphColumnsError(`${name} index out of range`);
        v = values[i] = text.slice(offsets[i], offsets[i + 1]);
      }
      return v;
    };
  };
  const str = table('strings');
  const jsonText = table('texts');
  let sharedBytes = 0;
  // Strings inside JSON values repeat across records (codes, statuses, dates): one copy of each.
  const interned = new Map<string, string>();
  const intern = (x: string) => {
    const known = interned.get(x);
    if (known !== undefined) return known;
    interned.set(x, x);
    sharedBytes += 40 + x.length;
    return x;
  };
  const parsed = new Array<unknown>(header.tables.texts);
  const shared = (i: number): unknown => {
    let v = parsed[i];
    if (v === undefined) {
      const t = jsonText(i);
      v = JSON.parse(t);
      if (Array.isArray(v)) for (let k = 0; k < v.length; k++) if (typeof v[k] === 'string') v[k] = intern(v[k]);
      parsed[i] = v;
      sharedBytes += 120 + 3 * t.length;
    }
    return v;
  };
  const own = (i: number): unknown => {
    const v = JSON.parse(jsonText(i)) as unknown;
    if (Array.isArray(v))
      for (const r of v)
        if (r !== null && typeof r === 'object')
          for (const k in r as Record<string, unknown>) {
            const x = (r as Record<string, unknown>)[k];
            if (typeof x === 'string') (r as Record<string, unknown>)[k] = intern(x);
          }
    return v;
  };
  const cellsOf = (name: string, count: number): ArrayLike<number> =>
    byName.has(`${name}.u32`)
      ? new Uint32Array(...section(`${name}.u32`, 4, count), count)
      : new Float64Array(...section(`${name}.f64`, 8, count), count);
  /** A column's cell reader: the value of record r. */
  let licenseRows: (r: number, start: number) => LicenseRecord[] = () => {
    throw new GraphColumnsError('license rows before the license table');
  };
  const column = (name: string, field: string, count: number): ((r: number) => unknown) => {
    const kinds = new Uint8Array(...section(`${name}.${field}.kind`, 1, count), count);
    const values = cellsOf(`${name}.${field}`, count);
    return (r) => {
      switch (kinds[r]) {
        case UNDEFINED:
          return undefined;
        case NULL:
          return null;
        case FALSE:
          return false;
        case TRUE:
          return true;
        case STRING:
          return str(values[r]!);
        case NUMBER:
          return values[r]!;
        case JSON_SHARED:
          return shared(values[r]!);
        case JSON_OWN:
          return own(values[r]!);
        case LICENSE_ROWS:
          return licenseRows(r, values[r]!);
        default:
          throw new GraphColumnsError(`unknown kind in ${name}.${field}`);
      }
    };
  };
  const columnsOf = <F extends string>(name: string, fields: readonly F[], count: number) =>
    Object.fromEntries(fields.map((f) => [f, column(name, f, count)])) as Record<F, (r: number) => any>;
  // Each record is one object literal of a fixed shape (fields in the order of the lists above, which the round-trip
  // test checks): V8 gives every record one hidden class, as the row loader's records have.
  const n = header.counts;
  const l = columnsOf('licenses', LICENSE_TABLE_FIELDS, n.licenses);
  const holderOf = cellsOf('licenses.holder', n.licenses);
  // Records of one key order share a builder (the order is a string of the table: one per distinct order).
  const builders = new Map<string, (k: number) => LicenseRecord>();
  const builderOf = (keys: string) => {
    let b = builders.get(keys);
    if (b === undefined) {
      const fields = keys === '' ? [] : keys.split(',');
      if (!fields.every((f) => LICENSE_FIELD_SET.has(f))) throw new GraphColumnsError(`license keys ${keys}`);
      const cells = fields.map((f) => l[f as (typeof LICENSE_FIELDS)[number]]);
      builders.set(
        keys,
        (b = (k) => {
          const x: Record<string, unknown> = {};
          for (let f = 0; f < fields.length; f++) x[fields[f]!] = cells[f]!(k);
          return x as unknown as LicenseRecord;
        }),
      );
    }
    return b;
  };
  licenseRows = (r, start) => {
    const list: LicenseRecord[] = [];
    for (let k = start; k < n.licenses && holderOf[k] === r; k++) list.push(builderOf(l.keys(k))(k));
    return list;
  };
  const p = columnsOf('providers', PROVIDER_FIELDS, n.providers);
  const provider = (r: number): Provider => ({
    id: p.id(r),
    organizationId: p.organizationId(r),
    externalId: p.externalId(r),
    displayName: p.displayName(r),
    email: p.email(r),
    status: p.status(r),
    searchable: p.searchable(r),
    professionCode: p.professionCode(r),
    specialtyCodes: p.specialtyCodes(r),
    languageCodes: p.languageCodes(r),
    modalityCodes: p.modalityCodes(r),
    serviceRegionCodes: p.serviceRegionCodes(r),
    insurancePlanCodes: p.insurancePlanCodes(r),
    ageGroupCodes: p.ageGroupCodes(r),
    licenseRecords: p.licenseRecords(r),
    acceptsNewClients: p.acceptsNewClients(r),
    timezone: p.timezone(r),
    bio: p.bio(r),
    username: p.username(r),
    location: p.location(r),
    panelCapacity: p.panelCapacity(r),
    panelCurrentCount: p.panelCurrentCount(r),
    profileVersion: p.profileVersion(r),
    createdAt: p.createdAt(r),
    updatedAt: p.updatedAt(r),
  });
  const v = columnsOf('services', SERVICE_FIELDS, n.services);
  const service = (r: number): ProviderService => ({
    id: v.id(r),
    organizationId: v.organizationId(r),
    providerId: v.providerId(r),
    slug: v.slug(r),
    title: v.title(r),
    duration: v.duration(r),
    price: v.price(r),
    currency: v.currency(r),
    modality: v.modality(r),
    slotIntervalMinutes: v.slotIntervalMinutes(r),
    minimumNoticeMinutes: v.minimumNoticeMinutes(r),
    bufferBeforeMinutes: v.bufferBeforeMinutes(r),
    bufferAfterMinutes: v.bufferAfterMinutes(r),
  });
  const c = columnsOf('schedules', SCHEDULE_FIELDS, n.schedules);
  const schedule = (r: number): CalendarConnection => ({
    id: c.id(r),
    organizationId: c.organizationId(r),
    providerId: c.providerId(r),
    title: c.title(r),
    timezone: c.timezone(r),
    days: c.days(r),
    overrides: c.overrides(r),
    externalCalendar: c.externalCalendar(r),
    status: c.status(r),
  });
  const readers = { providers: p, services: v, schedules: c, licenses: l } as Record<
    GraphRecordKind,
    Record<string, (r: number) => unknown>
  >;
  const counted: Record<GraphRecordKind, number> = n;
  return {
    counts: { ...n },
    byteLength: buf.length - start,
    stringCount: header.tables.strings,
    str,
    cells: (kind, field) => ({
      kinds: new Uint8Array(...section(`${kind}.${field}.kind`, 1, counted[kind]), counted[kind]),
      values: cellsOf(`${kind}.${field}`, counted[kind]),
    }),
    value: (kind, field, r) => {
      const read = readers[kind][field];
      if (read === undefined) throw new GraphColumnsError(`no column ${kind}.${field}`);
      return read(r);
    },
    provider,
    service,
    schedule,
    licenseRecord: (k) => builderOf(l.keys(k))(k),
    sharedBytes: () => sharedBytes,
    parts: () => {
      const providers = new Array<Provider>(n.providers);
      for (let r = 0; r < n.providers; r++) providers[r] = provider(r);
      const services = new Array<ProviderService>(n.services);
      for (let r = 0; r < n.services; r++) services[r] = service(r);
      const schedules = new Array<CalendarConnection>(n.schedules);
      for (let r = 0; r < n.schedules; r++) schedules[r] = schedule(r);
      return { providers, services, schedules, sharedBytes, providerIdsShared: true };
    },
  };
}
