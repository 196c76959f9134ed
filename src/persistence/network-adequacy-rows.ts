import type { Queryable } from './database.js';

/** One value of a dimension as network adequacy reads it, before rounding. */
export interface NetworkAdequacyRowData {
  value: string;
  providers: number;
  acceptingNewClients: number;
  resolutions: number;
  zeroResults: number;
  /** Null when no resolution naming the value returned options. */
  medianDays: number | null;
  p90Days: number | null;
  /** At most five, most providers excluded first, ties by code. */
  topExclusionCodes: { code: string; count: number }[];
}

const ACTIVE_PROVIDERS = `p.organization_id = $1 AND p.status = 'active' AND p.searchable`;
const ACCEPTING = `p.doc->'acceptsNewClients' = 'true'::jsonb`;

/** A provider's values of a list field of its doc. */
const listValues = (field: string) =>
  `SELECT p.id, v.value, ${ACCEPTING} AS accepting FROM providers p, jsonb_array_elements_text(p.doc->'${field}') AS v(value) WHERE ${ACTIVE_PROVIDERS}`;

/**
 * For each dimension, the providers that have a value: `(id, value, accepting)` rows, `$5` being today's UTC date
 * (a licence is valid through its expiresAt date).
 */
const PROVIDER_VALUES: Record<string, string> = {
  language: listValues('languageCodes'),
  insurance: listValues('insurancePlanCodes'),
  specialty: listValues('specialtyCodes'),
  modality: listValues('modalityCodes'),
  license_region: `SELECT p.id, l->>'regionCode' AS value, ${ACCEPTING} AS accepting
    FROM providers p, jsonb_array_elements(p.doc->'licenseRecords') AS l
    WHERE ${ACTIVE_PROVIDERS} AND l->>'status' = 'active' AND (l->>'expiresAt' IS NULL OR l->>'expiresAt' >= $5)`,
};

/**
 * Reads network adequacy of one organization and dimension over the resolutions created after `from` and up to `to`,
 * in one statement: the demand rows of the period are one range of index resolution_demands_by_period (migration
 * 0012), aggregated per value; the providers are counted only for the values asked for. Most asked values first.
 */
export async function readNetworkAdequacyRows(
  db: Queryable,
  organizationId: string,
  dimension: string,
  from: Date,
  to: Date,
): Promise<NetworkAdequacyRowData[]> {
  if (!Object.hasOwn(PROVIDER_VALUES, dimension)) throw new Error(`unknown network adequacy dimension ${dimension}`);
  const providerValues = PROVIDER_VALUES[dimension]!;
  // Only the licence query reads today's date ($5): PostgreSQL refuses a parameter no statement text types.
  const values: unknown[] = [organizationId, dimension, from, to];
  if (dimension === 'license_region') values.push(to.toISOString().slice(0, 10));
  const r = await db.query({
    name: `network-adequacy-${dimension}`,
    text: `WITH d AS MATERIALIZED (
         SELECT value, zero_results, days_to_first_option AS days, exclusion_codes, exclusion_counts
         FROM resolution_demands
         WHERE organization_id = $1 AND dimension = $2 AND created_at > $3 AND created_at <= $4),
       asked AS (
         SELECT value, count(*)::int AS resolutions, count(*) FILTER (WHERE zero_results)::int AS zero_results,
                percentile_cont(0.5) WITHIN GROUP (ORDER BY days) AS median_days,
                percentile_cont(0.9) WITHIN GROUP (ORDER BY days) AS p90_days
         FROM d GROUP BY value),
       cut AS (
         SELECT value, code, sum(n)::int AS n,
                row_number() OVER (PARTITION BY value ORDER BY sum(n) DESC, code) AS rank
         FROM d, unnest(d.exclusion_codes, d.exclusion_counts) AS x(code, n) GROUP BY value, code),
       top AS (
         SELECT value, json_agg(json_build_object('code', code, 'count', n) ORDER BY rank) AS codes
         FROM cut WHERE rank <= 5 GROUP BY value),
       served AS (
         SELECT pv.value, count(DISTINCT pv.id)::int AS providers,
                count(DISTINCT pv.id) FILTER (WHERE pv.accepting)::int AS accepting
         FROM (${providerValues}) AS pv
         WHERE pv.value IN (SELECT value FROM asked) GROUP BY pv.value)
     SELECT a.value, a.resolutions, a.zero_results, a.median_days, a.p90_days,
            coalesce(s.providers, 0) AS providers, coalesce(s.accepting, 0) AS accepting,
            coalesce(t.codes, '[]'::json) AS codes
     FROM asked a LEFT JOIN served s USING (value) LEFT JOIN top t USING (value)
     ORDER BY a.resolutions DESC, a.value`,
    values,
  });
  return r.rows.map((row) => ({
    value: row.value,
    providers: row.providers,
    acceptingNewClients: row.accepting,
    resolutions: row.resolutions,
    zeroResults: row.zero_results,
    medianDays: row.median_days,
    p90Days: row.p90_days,
    topExclusionCodes: row.codes,
  }));
}
