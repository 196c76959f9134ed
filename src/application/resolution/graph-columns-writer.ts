import {
  align8,
  CELL,
  GraphColumnsError,
  GRAPH_COLUMNS_FORMAT,
  LICENSE_FIELD_SET,
  LICENSE_TABLE_FIELDS,
  MAGIC,
  OWN_FIELDS,
  PROVIDER_FIELDS,
  SCHEDULE_FIELDS,
  SERVICE_FIELDS,
  UNIQUE_FIELDS,
  type GraphColumnsHeader,
  type GraphColumnsKey,
  type GraphColumnsView,
  type GraphParts,
  type RawStrings,
  type SectionInfo,
} from './graph-columns.js';

/** The record kinds a writer is given cells of (the license table is filled from the providers' license lists). */
export type GraphWriterTable = 'providers' | 'services' | 'schedules';

/**
 * Writes an organization's graph as columns (the layout `openGraphColumns` reads) one cell at a time, in any order
 * of records and fields: each column grows in typed chunks, strings and JSON texts go straight into the bytes of their
 * table, and nothing is kept per record but its cells. `finish` lays the sections out in one buffer.
 */
export interface GraphColumnsWriter {
  /** Appends the next cell of `table`'s column `field` (an index into its field list). */
  put(table: GraphWriterTable, field: number, value: unknown): void;
  /**
   * The cell writers of `table`'s columns, one per field in its field list's order: `cells[f](v)` appends `v`, as
   * `put(table, f, v)` does, without looking the column up (a loop over rows calls them by the million).
   */
  cells(table: GraphWriterTable): ((value: unknown) => void)[];
  /** Appends a JSON value of `table`'s column `field` given as its text (parsed by the reader as any JSON cell). */
  putText(table: GraphWriterTable, field: number, text: string): void;
  /**
   * Appends record `r` of `table` of other columns (`from`, of this format) as the record's values put one by one
   * would be: the same cells, strings and texts added in the same order (a provider's license rows with it), so that
   * columns made of copied records and of rows are byte for byte those of the rows. Each distinct string or text of
   * `from` is looked up once, then its index reused; a record's own strings (ids, names) are moved as bytes, and a
   * service's or schedule's provider is found by where its copied provider went, with no string made.
   */
  copy(table: GraphWriterTable, from: GraphColumnsView, r: number): void;
  /** The columns as one buffer; every column of a table must hold as many cells as the others. */
  finish(key: GraphColumnsKey): Buffer;
}

const FIELDS = { providers: PROVIDER_FIELDS, services: SERVICE_FIELDS, schedules: SCHEDULE_FIELDS } as const;
const NON_LATIN1 = /[^\u0000-\u00ff]/;
/** Cells of a column's first chunk; later chunks double up to MAX_CHUNK (small graphs stay small). */
const FIRST_CHUNK = 256;
const MAX_CHUNK = 65_536;

/** One column: a kind byte and a number per cell, in chunks; four bytes a number while every number is a small whole. */
class Column {
  private kinds: Uint8Array[] = [];
  private values: (Uint32Array | Float64Array)[] = [];
  private at = 0;
  private kind: Uint8Array = new Uint8Array(FIRST_CHUNK);
  private value: Uint32Array | Float64Array = new Uint32Array(FIRST_CHUNK);
  length = 0;
  narrow = true;
  /** The column's last string and its table index: runs of one value (an organization, a status) skip the lookup. */
  lastString: string | undefined = undefined;
  lastIndex = 0;

  push(kind: number, value: number): void {
    if (this.at === this.kind.length) {
      this.kinds.push(this.kind);
      this.values.push(this.value);
      const size = Math.min(this.kind.length * 2, MAX_CHUNK);
      this.kind = new Uint8Array(size);
      this.value = this.narrow ? new Uint32Array(size) : new Float64Array(size);
      this.at = 0;
    }
    if (
      this.narrow &&
      kind === CELL.NUMBER &&
      !(Number.isInteger(value) && value >= 0 && value <= 0xffffffff && !Object.is(value, -0))
    )
      this.widen();
    this.kind[this.at] = kind;
    this.value[this.at] = value;
    this.at++;
    this.length++;
  }

  /** Turns the column's numbers into float64 (a number that is no small whole came). */
  private widen(): void {
    this.narrow = false;
    this.values = this.values.map((v) => Float64Array.from(v));
    this.value = Float64Array.from(this.value);
  }

  /** The column's kind and value sections. */
  sections(name: string): Section[] {
    const kinds = [...this.kinds, this.kind.subarray(0, this.at)];
    const values = [...this.values, this.value.subarray(0, this.at)];
    return [
      { name: `${name}.kind`, parts: kinds },
      { name: `${name}.${this.narrow ? 'u32' : 'f64'}`, parts: values },
    ];
  }
}

interface Section {
  name: string;
  parts: ArrayBufferView[];
}

/**
 * A table of strings written as one text and the offsets (code units) of each string in it: latin1 while every code
 * unit fits a byte, UTF-16 from the first one that does not (the text so far widened), so every string round-trips.
 */
class TextTable {
  private index = new Map<string, number>();
  private offsets = new Float64Array(1024);
  private count = 0;
  private text = Buffer.allocUnsafe(64 * 1024);
  private bytes = 0;
  private units = 0;
  private wide = false;

  /** The index of `s`, added once (equal strings share one). */
  ref(s: string): number {
    let i = this.index.get(s);
    if (i === undefined) this.index.set(s, (i = this.add(s)));
    return i;
  }

  /** Adds a string without looking for an equal one (a record's own). */
  add(s: string): number {
    if (!this.wide && NON_LATIN1.test(s)) this.widen();
    this.room(this.wide ? 2 * s.length : s.length);
    this.bytes += this.text.write(s, this.bytes, this.wide ? 'utf16le' : 'latin1');
    return this.ended(s.length);
  }

  /**
   * Adds string `i` of another table as `add` would add it (the same bytes), moved as bytes when both tables are of
   * one encoding: no string is made.
   */
  addRaw(from: RawStrings, i: number): number {
    const start = from.offsets[i]!;
    const units = from.offsets[i + 1]! - start;
    if (!(units >= 0)) throw new GraphColumnsError('strings: index out of range');
    const unit = from.wide ? 2 : 1;
    if (from.wide !== this.wide)
      return this.add(from.bytes.toString(from.wide ? 'utf16le' : 'latin1', start * unit, (start + units) * unit));
    const bytes = units * unit;
    this.room(bytes);
    const src = from.bytes;
    const at = start * unit;
    // Ids and names are a few dozen bytes: a loop is cheaper than a call that copies.
    if (bytes <= 64) for (let k = 0; k < bytes; k++) this.text[this.bytes + k] = src[at + k]!;
    else src.copy(this.text, this.bytes, at, at + bytes);
    this.bytes += bytes;
    return this.ended(units);
  }

  /** Room for `bytes` more bytes and `count` more strings (a copy of a table of that size grows it once). */
  reserve(bytes: number, count: number): void {
    this.room(bytes);
    if (this.count + count + 1 > this.offsets.length) this.grow(this.count + count + 1);
  }

  /** Ends the string of `units` code units just written; returns its index. */
  private ended(units: number): number {
    this.units += units;
    if (this.count + 2 > this.offsets.length) this.grow(this.offsets.length * 2);
    this.offsets[++this.count] = this.units;
    return this.count - 1;
  }

  private grow(size: number): void {
    const more = new Float64Array(size);
    more.set(this.offsets);
    this.offsets = more;
  }

  size(): number {
    return this.count;
  }

  private room(extra: number): void {
    if (this.bytes + extra <= this.text.length) return;
    const more = Buffer.allocUnsafe(Math.max(this.text.length * 2, this.bytes + extra));
    this.text.copy(more, 0, 0, this.bytes);
    this.text = more;
  }

  private widen(): void {
    const wide = Buffer.allocUnsafe(Math.max(2 * this.bytes, 64 * 1024));
    for (let i = 0; i < this.bytes; i++) {
      wide[2 * i] = this.text[i]!;
      wide[2 * i + 1] = 0;
    }
    this.text = wide;
    this.bytes *= 2;
    this.wide = true;
  }

  /** The table's sections; returns the text's encoding. */
  sections(name: string, out: Section[]): 'latin1' | 'utf16le' {
    out.push({ name: `${name}.offsets`, parts: [this.offsets.subarray(0, this.count + 1)] });
    out.push({ name: `${name}.text`, parts: [this.text.subarray(0, this.bytes)] });
    return this.wide ? 'utf16le' : 'latin1';
  }
}

/**
 * The text index of a list of strings, found by its elements (no text made nor hashed): equal lists of rows repeat
 * (a few hundred distinct lists for a hundred thousand providers). Other lists are left to their text (undefined).
 */
function createListTexts(texts: TextTable) {
  const byFirst = new Map<string, { list: string[]; index: number }[]>();
  let empty: number | undefined;
  return {
    indexOf(v: object): number | undefined {
      if (!Array.isArray(v)) return undefined;
      if (v.length === 0) return (empty ??= texts.ref('[]'));
      const first = v[0] as unknown;
      if (typeof first !== 'string') return undefined;
      for (let k = 1; k < v.length; k++) if (typeof v[k] !== 'string') return undefined;
      let known = byFirst.get(first);
      if (known === undefined) byFirst.set(first, (known = []));
      for (const x of known) if (x.list.length === v.length && x.list.every((s, k) => s === v[k])) return x.index;
      const index = texts.ref(JSON.stringify(v));
      known.push({ list: (v as string[]).slice(), index });
      return index;
    },
  };
}

/**
 * The providers' ids in the string table, each added as it comes (ids are unique: their table's key), and the string
 * index of a provider's id found from the id (what a service or schedule refers to its provider by). Services and
 * schedules mostly come in their providers' order or its reverse (ids made in one import): the provider next to the
 * last one found is tried first, and the ids are hashed into a map only once one is not there.
 */
function createProviderIds(strings: TextTable) {
  const ids: string[] = [];
  const indexes: number[] = [];
  let byId: Map<string, number> | undefined;
  let last = 0;
  return {
    add(id: string): number {
      const i = strings.add(id);
      byId?.set(id, ids.length);
      ids.push(id);
      indexes.push(i);
      return i;
    },
    /** How many providers were added. */
    size(): number {
      return ids.length;
    },
    /** The string index of the provider added `k`th (from 0), which the next indexOf looks next to. */
    indexAt(k: number): number {
      last = k;
      return indexes[k]!;
    },
    /** The string index of provider id `id`, or -1 (no provider has it). */
    indexOf(id: string): number {
      const n = ids.length;
      let at = last;
      if (!(at < n && ids[at] === id)) {
        if (at + 1 < n && ids[at + 1] === id) at++;
        else if (at > 0 && at - 1 < n && ids[at - 1] === id) at--;
        else {
          if (byId === undefined) {
            byId = new Map();
            for (let k = 0; k < n; k++) byId.set(ids[k]!, k);
          }
          const found = byId.get(id);
          if (found === undefined) return -1;
          at = found;
        }
      }
      last = at;
      return indexes[at]!;
    },
  };
}

/**
 * Creates a writer of graph columns. `shareByIdentity` (records whose equal code lists are one object, as the graph's
 * records are) writes an object's text once per object; without it each JSON value is written as its text and equal
 * texts are shared (records read from rows, whose values are each their own).
 */
export function createGraphColumnsWriter(opts: { shareByIdentity?: boolean } = {}): GraphColumnsWriter {
  const strings = new TextTable();
  const texts = new TextTable();
  const textOf = opts.shareByIdentity ? new Map<object, number>() : undefined;
  const lists = createListTexts(texts);
  const columnsOf = (fields: readonly string[]) => fields.map(() => new Column());
  const columns = {
    providers: columnsOf(PROVIDER_FIELDS),
    services: columnsOf(SERVICE_FIELDS),
    schedules: columnsOf(SCHEDULE_FIELDS),
    licenses: columnsOf(LICENSE_TABLE_FIELDS),
  };
  // How each field's values are written.
  const modes = {} as Record<GraphWriterTable, { unique: boolean; own: boolean }[]>;
  for (const table of ['providers', 'services', 'schedules'] as const)
    modes[table] = FIELDS[table].map((field) => ({ unique: UNIQUE_FIELDS.has(field), own: OWN_FIELDS.has(field) }));
  const providerIds = createProviderIds(strings);
  const licenseField = PROVIDER_FIELDS.indexOf('licenseRecords');
  const licenses = columns.licenses;
  const licenseCell = (field: number, v: unknown) => cell(licenses[field]!, v, false, false);
  // Records of one source list their keys in one order: the order's string is made again only when it changes.
  let lastKeys: string[] = [];
  let lastOrder = '';
  const keyOrder = (x: object): string => {
    const keys = Object.keys(x);
    if (keys.length !== lastKeys.length || keys.some((k, i) => k !== lastKeys[i]))
      ((lastKeys = keys), (lastOrder = keys.join(',')));
    return lastOrder;
  };
  /** A provider's license list as rows of the license table when each record is one (else its JSON). */
  const licenseRows = (column: Column, list: unknown): boolean => {
    if (!Array.isArray(list)) return false;
    for (const x of list) {
      if (x === null || typeof x !== 'object' || Array.isArray(x)) return false;
      for (const k in x) {
        const v = (x as Record<string, unknown>)[k];
        if (!LICENSE_FIELD_SET.has(k) || (typeof v !== 'string' && v !== undefined)) return false;
      }
    }
    const holder = column.length;
    column.push(CELL.LICENSE_ROWS, licenses[0]!.length);
    for (const x of list as Record<string, unknown>[]) {
      for (let f = 0; f < LICENSE_TABLE_FIELDS.length - 2; f++) licenseCell(f, x[LICENSE_TABLE_FIELDS[f]!]);
      licenseCell(LICENSE_TABLE_FIELDS.length - 2, holder);
      licenseCell(LICENSE_TABLE_FIELDS.length - 1, keyOrder(x));
    }
    return true;
  };
  const cell = (column: Column, v: unknown, unique: boolean, own: boolean) => {
    if (v === undefined) column.push(CELL.UNDEFINED, 0);
    else if (v === null) column.push(CELL.NULL, 0);
    else if (v === false) column.push(CELL.FALSE, 0);
    else if (v === true) column.push(CELL.TRUE, 0);
    else if (typeof v === 'string') {
      if (unique) column.push(CELL.STRING, strings.add(v));
      else if (v === column.lastString) column.push(CELL.STRING, column.lastIndex);
      else column.push(CELL.STRING, (column.lastIndex = strings.ref((column.lastString = v))));
    } else if (typeof v === 'number') column.push(CELL.NUMBER, v);
    else if (typeof v === 'object') {
      if (own) column.push(CELL.JSON_OWN, texts.ref(JSON.stringify(v)));
      else if (textOf) {
        // Lists the graph shares (one object for equal code lists) are written once.
        let t = textOf.get(v);
        if (t === undefined) textOf.set(v, (t = texts.ref(JSON.stringify(v))));
        column.push(CELL.JSON_SHARED, t);
      } else column.push(CELL.JSON_SHARED, lists.indexOf(v) ?? texts.ref(JSON.stringify(v)));
    } else throw new Error(`graph columns: a cell holds a ${typeof v}`);
  };
  const writers = {} as Record<GraphWriterTable, ((value: unknown) => void)[]>;
  for (const table of ['providers', 'services', 'schedules'] as const)
    writers[table] = FIELDS[table].map((_, f) => {
      const column = columns[table][f]!;
      const { unique, own } = modes[table][f]!;
      if (table === 'providers' && f === licenseField)
        return (v: unknown) => {
          if (!licenseRows(column, v)) cell(column, v, unique, own);
        };
      if (table === 'providers' && FIELDS[table][f] === 'id')
        return (v: unknown) => {
          if (typeof v === 'string') column.push(CELL.STRING, providerIds.add(v));
          else cell(column, v, false, own);
        };
      if (table !== 'providers' && FIELDS[table][f] === 'providerId')
        return (v: unknown) => {
          // A provider's id is looked up by its services and schedules: they refer to the same string.
          const i = typeof v === 'string' ? providerIds.indexOf(v) : -1;
          if (i >= 0) column.push(CELL.STRING, i);
          else cell(column, v, unique, own);
        };
      return (v: unknown) => cell(column, v, unique, own);
    });
  /** Per source of copies: its columns opened once, and its strings' and texts' indexes here (-1: not yet). */
  const sources = new Map<GraphColumnsView, ReturnType<typeof openSource>>();
  const openSource = (from: GraphColumnsView) => {
    const open = (table: GraphWriterTable | 'licenses', fields: readonly string[]) =>
      fields.map((f) => from.cells(table, f));
    const stringAt = new Int32Array(from.stringCount).fill(-1);
    const textAt = new Int32Array(from.textCount).fill(-1);
    /** Each copied provider's place among the providers here, by its id's string index there (-1: not copied). */
    const providerIdAt = new Int32Array(from.stringCount).fill(-1);
    const raw = from.rawStrings();
    // A copy of most records adds about as many strings: the table grows once, not by doubling.
    strings.reserve(raw.bytes.length, from.stringCount);
    /** A cell of kind STRING, NUMBER, JSON or a constant, written into `column` as its value would be. */
    const copyCell = (column: Column, kind: number, v: number, unique: boolean) => {
      if (kind === CELL.STRING) {
        if (unique) column.push(kind, strings.addRaw(raw, v));
        else {
          let i = stringAt[v]!;
          if (i < 0) i = stringAt[v] = strings.ref(from.strOnce(v));
          column.push(kind, i);
        }
      } else if (kind === CELL.JSON_SHARED || kind === CELL.JSON_OWN) {
        // A JSON cell's text is JSON.stringify of its value, which the writer adds by text (ref) either way.
        let i = textAt[v]!;
        if (i < 0) i = textAt[v] = texts.ref(from.textOnce(v));
        column.push(kind, i);
      } else if (kind === CELL.NUMBER) column.push(kind, v);
      else if (kind <= CELL.TRUE) column.push(kind, 0);
      else throw new GraphColumnsError(`graph columns: a cell of kind ${kind} copied`);
    };
    return {
      copyCell,
      providerIdAt,
      cells: {
        providers: open('providers', PROVIDER_FIELDS),
        services: open('services', SERVICE_FIELDS),
        schedules: open('schedules', SCHEDULE_FIELDS),
      },
      licenses: open('licenses', LICENSE_TABLE_FIELDS),
    };
  };
  const idField = PROVIDER_FIELDS.indexOf('id');
  const holderField = LICENSE_TABLE_FIELDS.indexOf('holder');
  const providerIdFields = {
    services: SERVICE_FIELDS.indexOf('providerId'),
    schedules: SCHEDULE_FIELDS.indexOf('providerId'),
  };
  return {
    put(table, field, v) {
      writers[table][field]!(v);
    },
    copy(table, from, r) {
      let src = sources.get(from);
      if (src === undefined) sources.set(from, (src = openSource(from)));
      const copyCell = src.copyCell;
      const cells = src.cells[table];
      const out = columns[table];
      const mode = modes[table];
      for (let f = 0; f < cells.length; f++) {
        const kind = cells[f]!.kinds[r]!;
        const v = cells[f]!.values[r]!;
        const column = out[f]!;
        if (kind === CELL.STRING && table === 'providers' && f === idField) {
          src.providerIdAt[v] = providerIds.size();
          column.push(kind, providerIds.add(from.strOnce(v)));
        } else if (kind === CELL.STRING && table !== 'providers' && f === providerIdFields[table]) {
          // Refers to its provider's id string (as a row's does): the copied provider's, else found by the id.
          const k = src.providerIdAt[v]!;
          if (k >= 0) column.push(kind, providerIds.indexAt(k));
          else writers[table][f]!(from.strOnce(v));
        } else if (kind === CELL.LICENSE_ROWS) {
          const holder = column.length;
          column.push(kind, licenses[0]!.length);
          const holders = src.licenses[holderField]!.values;
          for (let k = v; k < from.counts.licenses && holders[k] === r; k++)
            for (let l = 0; l < licenses.length; l++) {
              if (l === holderField) licenses[l]!.push(CELL.NUMBER, holder);
              else copyCell(licenses[l]!, src.licenses[l]!.kinds[k]!, src.licenses[l]!.values[k]!, false);
            }
        } else copyCell(column, kind, v, mode[f]!.unique);
      }
    },
    cells: (table) => writers[table],
    putText(table, field, text) {
      const column = columns[table][field]!;
      column.push(modes[table][field]!.own ? CELL.JSON_OWN : CELL.JSON_SHARED, texts.ref(text));
    },
    finish(key) {
      const counts = {
        providers: columns.providers[0]!.length,
        services: columns.services[0]!.length,
        schedules: columns.schedules[0]!.length,
        licenses: licenses[0]!.length,
      };
      const sections: Section[] = [];
      const fields = { ...FIELDS, licenses: LICENSE_TABLE_FIELDS };
      for (const table of ['providers', 'services', 'schedules', 'licenses'] as const)
        fields[table].forEach((field, f) => {
          const column = columns[table][f]!;
          if (column.length !== counts[table])
            throw new Error(`graph columns: ${table}.${field} has ${column.length} cells, not ${counts[table]}`);
          sections.push(...column.sections(`${table}.${field}`));
        });
      const encodings = { strings: strings.sections('strings', sections), texts: texts.sections('texts', sections) };
      const infos: SectionInfo[] = [];
      let offset = 0;
      for (const s of sections) {
        const bytes = s.parts.reduce((sum, p) => sum + p.byteLength, 0);
        infos.push({ name: s.name, offset, bytes });
        offset += align8(bytes);
      }
      const header: GraphColumnsHeader = {
        format: GRAPH_COLUMNS_FORMAT,
        organizationId: key.organizationId,
        graphVersion: key.graphVersion,
        counts,
        fields,
        tables: { strings: strings.size(), texts: texts.size() },
        encodings,
        sections: infos,
      };
      header.bytes = offset;
      const headerBytes = Buffer.from(JSON.stringify(header), 'utf8');
      const start = align8(8 + headerBytes.length);
      // Not zero-filled first (tens of MB written twice on a large graph): each byte between the parts is zeroed below.
      const out = Buffer.allocUnsafeSlow(start + offset);
      out.write(MAGIC, 0, 'latin1');
      out.writeUInt32LE(headerBytes.length, 4);
      headerBytes.copy(out, 8);
      out.fill(0, 8 + headerBytes.length, start);
      for (let i = 0; i < sections.length; i++) {
        let at = start + infos[i]!.offset;
        for (const p of sections[i]!.parts) {
          out.set(new Uint8Array(p.buffer, p.byteOffset, p.byteLength), at);
          at += p.byteLength;
        }
        out.fill(0, at, i + 1 < sections.length ? start + infos[i + 1]!.offset : out.length);
      }
      return out;
    },
  };
}

/**
 * Encodes an organization's graph records as columns: per record kind and field, one byte of kind and one number per
 * record (float64, or uint32 when every number of the column is a small whole), over one table of distinct strings
 * where JSON values (code lists, license records, weekly schedules) are kept as their text. `pause` is awaited before
 * each column: a large graph's encoding leaves the event loop to other requests between columns.
 */
export async function encodeGraphColumns(
  key: GraphColumnsKey,
  parts: GraphParts,
  pause: () => Promise<void> = async () => undefined,
): Promise<Buffer> {
  const w = createGraphColumnsWriter({ shareByIdentity: true });
  const write = async (table: GraphWriterTable, records: readonly object[]) => {
    const fields = FIELDS[table];
    for (let f = 0; f < fields.length; f++) {
      await pause();
      for (const r of records) w.put(table, f, (r as Record<string, unknown>)[fields[f]!]);
    }
  };
  await write('providers', parts.providers);
  await write('services', parts.services);
  await write('schedules', parts.schedules);
  return w.finish(key);
}
