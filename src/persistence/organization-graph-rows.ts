import type { Queryable } from './database.js';

/**
 * A provider row as the graph loads it: the doc's scalar fields as text, its lists as their JSON text (lists repeat
 * across providers, so the loader parses each distinct text once).
 */
export interface ProviderGraphRow {
  id: string;
  organization_id: string;
  external_id: string;
  status: string;
  searchable: boolean;
  profile_version: number;
  created_at: Date;
  updated_at: Date;
  display_name: string | null;
  email: string | null;
  profession_code: string | null;
  specialty_codes: string | null;
  language_codes: string | null;
  modality_codes: string | null;
  service_region_codes: string | null;
  insurance_plan_codes: string | null;
  age_group_codes: string | null;
  license_records: string | null;
  accepts_new_clients: string | null;
  timezone: string | null;
  bio: string | null;
  username: string | null;
  location: string | null;
  panel_capacity: string | null;
  panel_current_count: string | null;
}

/** A service row as the graph loads it (JSON values as their text). */
export interface ServiceGraphRow {
  id: string;
  organization_id: string;
  provider_id: string;
  slug: string;
  title: string | null;
  duration: string | null;
  price: string | null;
  currency: string | null;
  modality: string | null;
  slot_interval_minutes: string | null;
  minimum_notice_minutes: string | null;
  buffer_before_minutes: string | null;
  buffer_after_minutes: string | null;
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

const PROVIDER_COLUMNS = `id, organization_id, external_id, status, searchable, profile_version, created_at, updated_at,
  doc->>'displayName' AS display_name, doc->>'email' AS email, doc->>'professionCode' AS profession_code,
  (doc->'specialtyCodes')::text AS specialty_codes, (doc->'languageCodes')::text AS language_codes,
  (doc->'modalityCodes')::text AS modality_codes, (doc->'serviceRegionCodes')::text AS service_region_codes,
  (doc->'insurancePlanCodes')::text AS insurance_plan_codes, (doc->'ageGroupCodes')::text AS age_group_codes,
  (doc->'licenseRecords')::text AS license_records, (doc->'acceptsNewClients')::text AS accepts_new_clients,
  doc->>'timezone' AS timezone, doc->>'bio' AS bio, doc->>'username' AS username, doc->>'location' AS location,
  (doc->'panelCapacity')::text AS panel_capacity, (doc->'panelCurrentCount')::text AS panel_current_count`;

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

/** An organization's services in id order (the fields of the doc the graph keeps, as JSON text). */
export async function readServiceGraphRows(db: Queryable, organizationId: string): Promise<ServiceGraphRow[]> {
  const r = await db.query(
    `SELECT id, organization_id, provider_id, slug, (doc->'title')::text AS title, (doc->'duration')::text AS duration,
       (doc->'price')::text AS price, (doc->'currency')::text AS currency, (doc->'modality')::text AS modality,
       (doc->'slotIntervalMinutes')::text AS slot_interval_minutes,
       (doc->'minimumNoticeMinutes')::text AS minimum_notice_minutes,
       (doc->'bufferBeforeMinutes')::text AS buffer_before_minutes,
       (doc->'bufferAfterMinutes')::text AS buffer_after_minutes
     FROM services WHERE organization_id = $1 ORDER BY id`,
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
