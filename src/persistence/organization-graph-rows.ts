import pg from 'pg';
import { readOneSnapshot, type Database, type Queryable } from './database.js';
import { LIVE_SERVICE_SQL } from './service-repository.js';

/**
 * A provider row as the graph loads it: every row of the organization's (its organization is the one read), the doc
 * parsed, the instants as PostgreSQL writes them in JSON (`2026-01-01T09:00:00.123+00:00`).
 */
export interface ProviderGraphRow {
  id: string;
  external_id: string;
  status: string;
  searchable: boolean;
  profile_version: number;
  created_at: string;
  updated_at: string;
  doc: Record<string, any>;
}

/** A service row as the graph loads it (of the organization read; the doc parsed). */
export interface ServiceGraphRow {
  id: string;
  provider_id: string;
  slug: string;
  doc: Record<string, any> | null;
}

/** A calendar connection row as the graph loads it (of the organization read; JSON values as their text). */
export interface ScheduleGraphRow {
  id: string;
  provider_id: string;
  title: string | null;
  timezone: string | null;
  days: string | null;
  overrides: string | null;
  external_calendar: string | null;
}

const parseTimestamptz = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ, 'text') as (text: string) => Date;

/**
 * The instant of a graph row's `created_at` or `updated_at` (PostgreSQL's JSON text of a timestamptz): the Date the
 * driver makes of the column's own text (the same parser, given the text with a space for the `T`).
 */
export function graphRowInstant(text: string): Date {
  return parseTimestamptz(text.replace('T', ' '));
}

// Each provider and service row comes as one JSON text, parsed by one JSON.parse: the driver would make an object per
// row and parse each doc apart (twice the Node.js CPU of this, for the same PostgreSQL CPU). The doc whole: extracting
// its fields one by one costs PostgreSQL ~40% more CPU.
export const PROVIDER_JSON = `json_build_object('id', id, 'external_id', external_id, 'status', status, 'searchable', searchable,
  'profile_version', profile_version, 'created_at', created_at, 'updated_at', updated_at, 'doc', doc)::text`;
export const SERVICE_JSON = `json_build_object('id', id, 'provider_id', provider_id, 'slug', slug, 'doc', doc)::text`;

// The fields of the doc the graph keeps, as JSON text (each distinct week parsed once by the reader; embedded in a JSON
// row they would be escaped by PostgreSQL and parsed per row).
export const SCHEDULE_COLUMNS = `id, provider_id, (doc->'title')::text AS title, (doc->'timezone')::text AS timezone,
  (doc->'days')::text AS days, (doc->'overrides')::text AS overrides,
  (doc->'externalCalendar')::text AS external_calendar`;

/** The load's three queries (`$1` the organization), in the order they are read (exported for the benches' plans). */
export const GRAPH_ROW_QUERIES = {
  providers: `SELECT ${PROVIDER_JSON} AS row FROM providers WHERE organization_id = $1 ORDER BY id`,
  services: `SELECT ${SERVICE_JSON} AS row FROM services WHERE organization_id = $1 AND ${LIVE_SERVICE_SQL} ORDER BY id`,
  schedules: `SELECT ${SCHEDULE_COLUMNS} FROM calendar_connections WHERE organization_id = $1 ORDER BY id DESC`,
} as const;

/** What `readOrganizationGraphRows` hands its batches to, in this order: every provider, service, then schedule batch. */
export interface GraphRowSink {
  providers(rows: ProviderGraphRow[]): void;
  services(rows: ServiceGraphRow[]): void;
  schedules(rows: ScheduleGraphRow[]): void;
}

/** One table's cursor: its batches in order, the next one already asked for while the last is handled. */
interface RowCursor {
  /** The next batch (empty once every row was read): row objects, or each row's JSON text for a JSON cursor. */
  next(): Promise<unknown[]>;
}

/**
 * Opens a cursor over `sql` on `tx` and asks for its first batch at once (PostgreSQL runs the query, its sort included,
 * while the caller reads another table); each batch handed over has the next one asked for before it is returned, so
 * PostgreSQL reads and sends it while Node.js handles this one.
 */
async function openRowCursor(
  tx: Queryable,
  name: string,
  sql: string,
  organizationId: string,
  batchSize: number,
  json: boolean,
): Promise<RowCursor> {
  await tx.query(`DECLARE ${name} NO SCROLL CURSOR FOR ${sql}`, [organizationId]);
  const text = `FETCH ${Math.floor(batchSize)} FROM ${name}`;
  const fetch = json
    ? () => tx.query<string[]>({ text, rowMode: 'array' }).then((r) => r.rows.map((row) => row[0]!))
    : () => tx.query(text).then((r) => r.rows);
  let pending: Promise<unknown[]> | undefined = fetch();
  // A batch asked for ahead and never awaited (the reader failed first) must not be an unhandled rejection.
  pending.catch(() => undefined);
  return {
    async next() {
      if (pending === undefined) return [];
      const rows = await pending;
      pending = rows.length < batchSize ? undefined : fetch();
      pending?.catch(() => undefined);
      return rows;
    },
  };
}

/**
 * How each cursor is planned. Every row is fetched: planned for its whole result (cursor_tuple_fraction 1.0: the
 * organization's index, not a walk of the primary key over every organization's rows), and in the order of an index
 * (providers_org_id, services_org_id, calendar_connections_org_id) rather than sorted: a sort of every row of the
 * organization comes before the first row (at 1,000,000 rows an external sort of ~1 GB per table, on disk), while the
 * walk streams from the first fetch, PostgreSQL reading as Node.js parses.
 */
export const GRAPH_ROW_SETTINGS = 'SET LOCAL cursor_tuple_fraction = 1.0; SET LOCAL enable_sort = off';

/**
 * The shortest `idle_in_transaction_session_timeout` of a load's transactions, in milliseconds. Each waits idle while
 * the tables before it are handed over (the schedules' while the providers and services are: some 20-30 s of a load at
 * 1,000,000 providers), far past the default bound of a call's transaction (5 s), which would end it mid-load. Still
 * bounded, so a stuck process does not hold a snapshot for ever; a longer bound configured stays, and so does none (0).
 */
export const GRAPH_LOAD_IDLE_MS = 120_000;

/** Raises this transaction's idle bound to GRAPH_LOAD_IDLE_MS (see there). */
const GRAPH_LOAD_IDLE = `SELECT set_config('idle_in_transaction_session_timeout', CASE
  WHEN current_setting('idle_in_transaction_session_timeout')::interval = interval '0' THEN '0'
  ELSE GREATEST(${GRAPH_LOAD_IDLE_MS}, extract(epoch FROM current_setting('idle_in_transaction_session_timeout')::interval) * 1000)::bigint::text
  END, true)`;

/** Whether `pool` can hand out `count` more connections now without waiting (idle ones, or room to open them). */
function hasRoomFor(pool: Database['pool'], count: number): boolean {
  const max = (pool as unknown as { options: { max: number } }).options.max;
  return pool.idleCount + (max - pool.totalCount) >= count;
}

/**
 * Loads reading side by side now, by pool. One at a time: loads that each held one connection while waiting for two more
 * (dozens of organizations' first resolutions after a start) could hold a whole pool between them and wait for ever;
 * with one, every other load runs on the one connection it holds and ends.
 */
const sideBySideLoads = new WeakSet<object>();

/** Rows of a JSON cursor parsed at a time (of a fetched batch), and handed to the sink together. */
const PARSE_RUN = 256;

/** Snapshot ids as pg_export_snapshot writes them (checked before one is written into SET TRANSACTION SNAPSHOT). */
const SNAPSHOT_ID = /^[0-9A-F]+-[0-9A-F]+-[0-9]+$/;

/**
 * Reads an organization's graph rows in one read-only snapshot (REPEATABLE READ: providers, services and schedules of
 * one moment) through one cursor per table, each on its own connection (the two others import the first's snapshot,
 * `pg_export_snapshot`), fetched `batchSize` rows at a time: providers in id order, live services in id order,
 * calendar connections newest first. The three queries run at once and each cursor's next batch is asked for before
 * the last is handed over, so PostgreSQL reads and sends while Node.js parses and writes; the sink still gets
 * every provider batch, then every service batch, then every schedule batch, and at most two batches per table are
 * held at a time. When the pool has not two connections to spare, or another load of the pool reads side by side, the
 * services and schedules are read after the providers on the first connection. Answers the organization's
 * `graph_version` in that snapshot: the version the rows are of.
 */
export async function readOrganizationGraphRows(
  db: Database,
  organizationId: string,
  batchSize: number,
  sink: GraphRowSink,
): Promise<number> {
  return readOneSnapshot(db, async (tx) => {
    await tx.query(`${GRAPH_ROW_SETTINGS}; ${GRAPH_LOAD_IDLE}`);
    const exported = await tx.query<{ s: string; v: string | null }>(
      'SELECT pg_export_snapshot() AS s, (SELECT graph_version FROM organizations WHERE id = $1) AS v',
      [organizationId],
    );
    const snapshot = String(exported.rows[0]?.s);
    const graphVersion = Number(exported.rows[0]?.v ?? 0);
    if (!SNAPSHOT_ID.test(snapshot)) throw new Error(`graph rows: unexpected snapshot id ${snapshot}`);
    /** Runs `fn` in a transaction of its own connection that reads the snapshot of `tx`. */
    const onSnapshot = (fn: (other: Queryable) => Promise<void>) =>
      readOneSnapshot(db, async (other) => {
        await other.query(`SET TRANSACTION SNAPSHOT '${snapshot}'; ${GRAPH_ROW_SETTINGS}; ${GRAPH_LOAD_IDLE}`);
        await fn(other);
      });
    /**
     * Hands a cursor's batches over in order: a JSON cursor's rows parsed a run at a time just before they are handed
     * (each run's objects die young, where a whole parsed batch would outlive collections of the young generation).
     */
    const drain = async <R>(cursor: Promise<RowCursor>, json: boolean, onBatch: (rows: R[]) => void) => {
      const c = await cursor;
      for (let rows = await c.next(); rows.length > 0; rows = await c.next()) {
        if (!json) onBatch(rows as R[]);
        else
          for (let i = 0; i < rows.length; i += PARSE_RUN)
            onBatch((rows as string[]).slice(i, i + PARSE_RUN).map((text) => JSON.parse(text) as R));
      }
    };
    // Two more connections only when the pool has them to spare and no other load holds its three (sideBySideLoads): a
    // load must not wait for (or be refused) connections held by the callers it serves; else the services and
    // schedules are read after the providers on this one.
    const sideBySide = !sideBySideLoads.has(db.pool) && hasRoomFor(db.pool, 2);
    if (sideBySide) sideBySideLoads.add(db.pool);
    /** Reads `sql` (on a connection of its own when side by side), its batches handed over once `after` settled. */
    const readAfter = <R>(
      after: Promise<void>,
      name: string,
      sql: string,
      json: boolean,
      onBatch: (rows: R[]) => void,
    ) =>
      sideBySide
        ? onSnapshot(async (other) => {
            const cursor = openRowCursor(other, name, sql, organizationId, batchSize, json);
            cursor.catch(() => undefined);
            await after;
            await drain(cursor, json, onBatch);
          })
        : after.then(() => drain(openRowCursor(tx, name, sql, organizationId, batchSize, json), json, onBatch));
    // Providers here; services and schedules on their own connections (or after them here), each table handed over
    // after the one before (a failure of one fails those after it, so no transaction waits for a table that never
    // comes).
    const providers = drain<ProviderGraphRow>(
      openRowCursor(tx, 'graph_providers', GRAPH_ROW_QUERIES.providers, organizationId, batchSize, true),
      true,
      (rows) => sink.providers(rows),
    );
    const services = readAfter<ServiceGraphRow>(providers, 'graph_services', GRAPH_ROW_QUERIES.services, true, (rows) =>
      sink.services(rows),
    );
    const schedules = readAfter<ScheduleGraphRow>(
      services,
      'graph_schedules',
      GRAPH_ROW_QUERIES.schedules,
      false,
      (rows) => sink.schedules(rows),
    );
    // Every transaction is over before this one ends (its snapshot is theirs): wait for all, then fail with the first.
    const settled = await Promise.allSettled([providers, services, schedules]);
    if (sideBySide) sideBySideLoads.delete(db.pool);
    for (const r of settled) if (r.status === 'rejected') throw r.reason;
    return graphVersion;
  });
}
