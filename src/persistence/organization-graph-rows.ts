import type { Queryable } from './database.js';
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

/**
 * Calls `onPage` with an organization's providers in id order, `pageSize` at a time (keyset pages on
 * providers_org_id): a large organization's rows are never all held at once.
 */
export async function forEachProviderGraphPage(
  db: Queryable,
  organizationId: string,
  pageSize: number,
  onPage: (rows: ProviderGraphRow[]) => void,
): Promise<void> {
  let after = '';
  for (;;) {
    const r = await db.query(
      `SELECT ${PROVIDER_COLUMNS} FROM providers WHERE organization_id = $1 AND id > $2 ORDER BY id LIMIT $3`,
      [organizationId, after, pageSize],
    );
    const rows = r.rows as ProviderGraphRow[];
    if (rows.length > 0) onPage(rows);
    if (rows.length < pageSize) return;
    after = rows[rows.length - 1]!.id;
  }
}

/** An organization's live services (not removed) in id order. */
export async function readServiceGraphRows(db: Queryable, organizationId: string): Promise<ServiceGraphRow[]> {
  const r = await db.query(
    `SELECT id, organization_id, provider_id, slug, doc FROM services WHERE organization_id = $1 AND ${LIVE_SERVICE_SQL}
     ORDER BY id`,
    [organizationId],
  );
  return r.rows as ServiceGraphRow[];
}

/** An organization's calendar connections, newest first (the fields of the doc the graph keeps, as JSON text). */
export async function readScheduleGraphRows(db: Queryable, organizationId: string): Promise<ScheduleGraphRow[]> {
  const r = await db.query(
    `SELECT id, organization_id, provider_id, (doc->'title')::text AS title, (doc->'timezone')::text AS timezone,
       (doc->'days')::text AS days, (doc->'overrides')::text AS overrides,
       (doc->'externalCalendar')::text AS external_calendar
     FROM calendar_connections WHERE organization_id = $1 ORDER BY id DESC`,
    [organizationId],
  );
  return r.rows as ScheduleGraphRow[];
}
