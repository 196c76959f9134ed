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

/** A provider's code lists, in their column order. */
export const PROVIDER_CODE_LISTS = [
  'specialtyCodes',
  'languageCodes',
  'modalityCodes',
  'serviceRegionCodes',
  'insurancePlanCodes',
  'ageGroupCodes',
] as const satisfies readonly (keyof Provider)[];

// The fields of each record, in the order the graph's records have them (org-graph.ts builds them in this order).
export const PROVIDER_FIELDS = [
  'id',
  'organizationId',
  'externalId',
  'displayName',
  'email',
  'status',
  'searchable',
  'professionCode',
  ...PROVIDER_CODE_LISTS,
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
export const SERVICE_FIELDS = [
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
export const SCHEDULE_FIELDS = [
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
export const LICENSE_FIELDS = [
  'licenseTypeCode',
  'regionCode',
  'status',
  'expiresAt',
  'verifiedAt',
] as const satisfies readonly (keyof LicenseRecord)[];
export const LICENSE_FIELD_SET = new Set<string>(LICENSE_FIELDS);
/** The license table's columns: the record's fields, its provider's position, and its keys in their order. */
export const LICENSE_TABLE_FIELDS = [...LICENSE_FIELDS, 'holder', 'keys'] as const;
/**
 * Fields whose objects are each record's own (parsed per record, never shared by equal text): license records (when
 * not in the license table), and calendar feeds (each feed is its own, as the row loader keeps them).
 */
export const OWN_FIELDS = new Set<string>(['licenseRecords', 'externalCalendar']);
/** Fields whose strings are (nearly) each record's own: written without looking for an equal one. */
export const UNIQUE_FIELDS = new Set<string>(['id', 'externalId', 'displayName', 'email', 'bio', 'username']);

export const MAGIC = 'OGC1';
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

export interface SectionInfo {
  name: string;
  offset: number;
  bytes: number;
}

export interface GraphColumnsHeader extends GraphColumnsKey {
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

/** A section's length rounded up to the 8 bytes every section starts on. */
export const align8 = (n: number) => Math.ceil(n / 8) * 8;

/** Why columns were not used: the graph is then loaded from its rows. */
export class GraphColumnsError extends Error {}

/**
 * Decodes columns made by `encodeGraphColumns` or `readGraphColumns` back into the graph's records (equal to those encoded), checking they
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
  /** The buffer the columns were opened from (header included): what a snapshot stores. */
  buffer(): Buffer;
  /** How many strings the string table holds (cells of kind STRING index it). */
  stringCount: number;
  /** How many JSON texts the text table holds (cells of kind JSON_SHARED and JSON_OWN index it). */
  textCount: number;
  /** The string of the string table at `i`. */
  str(i: number): string;
  /** The JSON text of the text table at `i` (cells of kind JSON_SHARED and JSON_OWN index it), unparsed. */
  text(i: number): string;
  /**
   * The string table as stored: its text's bytes (latin1, or UTF-16 when `wide`) and each string's start in code units
   * (string i is units offsets[i] to offsets[i + 1]), for a copy that moves strings without making them (the writer).
   */
  rawStrings(): RawStrings;
  /** `str` and `text` without keeping what they read (for a reader of each string once: a copy). */
  strOnce(i: number): string;
  textOnce(i: number): string;
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

/** A string table's stored form (GraphColumnsView.rawStrings). */
export interface RawStrings {
  bytes: Buffer;
  offsets: Float64Array;
  wide: boolean;
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
  let header: GraphColumnsHeader;
  try {
    header = JSON.parse(buf.toString('utf8', 8, 8 + headerLength)) as GraphColumnsHeader;
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
    const read = (i: number): string => {
      let v = values[i];
      if (v === undefined) {
        if (!(i >= 0 && i < count)) throw new GraphColumnsError(`${name} index out of range`);
        v = values[i] = text.slice(offsets[i], offsets[i + 1]);
      }
      return v;
    };
    /** The string at `i`, not kept (a copy reads each string once). */
    const once = (i: number): string => {
      const v = values[i];
      if (v !== undefined) return v;
      if (!(i >= 0 && i < count)) throw new GraphColumnsError(`${name} index out of range`);
      return text.slice(offsets[i], offsets[i + 1]);
    };
    const raw = (): RawStrings => ({ bytes: buf.subarray(b.from, b.to), offsets, wide: encoding === 'utf16le' });
    return Object.assign(read, { once, raw });
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
    buffer: () => buf,
    stringCount: header.tables.strings,
    textCount: header.tables.texts,
    str,
    text: jsonText,
    rawStrings: str.raw,
    strOnce: str.once,
    textOnce: jsonText.once,
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
