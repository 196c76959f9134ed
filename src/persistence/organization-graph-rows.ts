import { readOneSnapshot, type Database } from './database.js';
import { LIVE_SERVICE_SQL } from './service-repository.js';

/** A provider row as the graph loads it (the doc parsed by the driver). */
export interface ProviderGraphRow {
  id: string;
  organization_id: string;
  external_id: string;
  status: string;
  searchable: boolean;
  profile_version: number;
  created_at: Date;
  updated_at: Date;
  doc: Record<string, any>;
}

/** A service row as the graph loads it (the doc parsed by the driver). */
export interface ServiceGraphRow {
  id: string;
  organization_id: string;
  provider_id: string;
  slug: string;
  doc: Record<string, any>;
}

/** A calendar connection row as the graph loads it (JSON values as their text). */
export interface ScheduleGraphRow {
  id: string;
  organization_id: string;
  provider_id: string;
  title: string | null;
  timezone: string | null;
  days: string | null;
  overrides: string | null;
  external_calendar: string | null;
}

// The doc whole: extracting its fields one by one in SQL costs PostgreSQL more CPU than parsing it costs Node.
const PROVIDER_COLUMNS =
  'id, organization_id, external_id, status, searchable, profile_version, created_at, updated_at, doc';

// The fields of the doc the graph keeps, as JSON text.
const SCHEDULE_COLUMNS = `id, organization_id, provider_id, (doc->'title')::text AS title, (doc->'timezone')::text AS timezone,
  (doc->'days')::text AS days, (doc->'overrides')::text AS overrides,
  (doc->'externalCalendar')::text AS external_calendar`;

/** What `readOrganizationGraphRows` hands its batches to, in this order: every provider, service, then schedule batch. */
export interface GraphRowSink {
  providers(rows: ProviderGraphRow[]): void;
  services(rows: ServiceGraphRow[]): void;
  schedules(rows: ScheduleGraphRow[]): void;
}

/**
 * Reads an organization's graph rows in one read-only snapshot (REPEATABLE READ: providers, services and schedules of
 * one moment), through one cursor per table fetched `batchSize` rows at a time: providers in id order, live services
 * in id order, calendar connections newest first. Each query is planned and sorted once, and only a batch of rows is
 * held at a time.
 */
export async function readOrganizationGraphRows(
  db: Database,
  organizationId: string,
  batchSize: number,
  sink: GraphRowSink,
): Promise<void> {
  await readOneSnapshot(db, async (tx) => {
    // Every row is fetched: plan each cursor for its whole result (a sort over a scan), not for its first rows (an
    // index walk in id order, fetching the table's pages at random).
    await tx.query('SET LOCAL cursor_tuple_fraction = 1.0');
    const stream = async <R>(sql: string, onBatch: (rows: R[]) => void) => {
      await tx.query(`DECLARE graph_rows NO SCROLL CURSOR FOR ${sql}`, [organizationId]);
      for (;;) {
        const rows = (await tx.query(`FETCH ${Math.floor(batchSize)} FROM graph_rows`)).rows as R[];
        if (rows.length > 0) onBatch(rows);
        if (rows.length < batchSize) break;
      }
      await tx.query('CLOSE graph_rows');
    };
    await stream<ProviderGraphRow>(
      `SELECT ${PROVIDER_COLUMNS} FROM providers WHERE organization_id = $1 ORDER BY id`,
      (rows) => sink.providers(rows),
    );
    await stream<ServiceGraphRow>(
      `SELECT id, organization_id, provider_id, slug, doc FROM services WHERE organization_id = $1 AND ${LIVE_SERVICE_SQL}
       ORDER BY id`,
      (rows) => sink.services(rows),
    );
    await stream<ScheduleGraphRow>(
      `SELECT ${SCHEDULE_COLUMNS} FROM calendar_connections WHERE organization_id = $1 ORDER BY id DESC`,
      (rows) => sink.schedules(rows),
    );
  });
}
