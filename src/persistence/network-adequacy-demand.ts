import type { Queryable } from './database.js';

/** What resolutions of a period asked of one value of a dimension, as network adequacy reads it. */
export interface DemandRowData {
  value: string;
  resolutions: number;
  zeroResults: number;
  /** Null when no resolution naming the value returned options. */
  medianDays: number | null;
  p90Days: number | null;
  /** At most five, most providers excluded first, ties by code. */
  topExclusionCodes: { code: string; count: number }[];
}

const DAY_MS = 24 * 3600 * 1000;
/** A day is rolled up once it has been over this long (resolutions written late still land in its raw rows). */
const ROLLUP_AFTER_MS = 3600 * 1000;
/**
 * Wait histogram buckets are 5% wide: bucket k holds days d with floor(ln(1 + 24 d) / ln(1.05)) = k, so a year of waits
 * takes ~190 buckets whatever the number of resolutions.
 */
const BUCKET_BASE = 1.05;
const BUCKET_SQL = `floor(ln(1 + 24 * days_to_first_option) / ln(${BUCKET_BASE}))::int`;
const bucketStart = (k: number) => (BUCKET_BASE ** k - 1) / 24;

const ymd = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * How a period (from, to] splits: whole UTC days read from the rollups, [firstDay, endDay), and raw rows before and
 * after them, (from, headEnd) and [tailStart, to]. Only days over for an hour are whole; without any, all is raw.
 */
function splitPeriod(from: Date, to: Date) {
  const first = Math.floor(from.getTime() / DAY_MS) * DAY_MS + DAY_MS;
  const end = Math.floor((to.getTime() - ROLLUP_AFTER_MS) / DAY_MS) * DAY_MS;
  if (end <= first) return { days: undefined, headEnd: to, tailStart: to };
  return { days: { firstDay: ymd(first), endDay: ymd(end) }, headEnd: new Date(first), tailStart: new Date(end) };
}

/** Days a read rolls up at most: a first read over 90 days of resolutions leaves the rest to the next reads. */
export const ROLLUP_DAYS_PER_READ = 7;

/**
 * Rolls up the organization's days of the dimension in [firstDay, endDay) that are not yet, the most recent first and at
 * most ROLLUP_DAYS_PER_READ of them, in one statement; answers the days (YYYY-MM-DD) still not rolled up.
 */
async function rollUpDays(
  db: Queryable,
  organizationId: string,
  platformId: string,
  dimension: string,
  firstDay: string,
  endDay: string,
): Promise<string[]> {
  const r = await db.query({
    name: 'network-adequacy-roll-up',
    text: `WITH missing AS MATERIALIZED (
         SELECT d::date AS day FROM generate_series($4::timestamp, $5::timestamp - interval '1 day', interval '1 day') AS d
         WHERE NOT EXISTS (SELECT 1 FROM resolution_demand_days_done x
                           WHERE x.organization_id = $1 AND x.dimension = $3 AND x.day = d::date)),
       now_done AS MATERIALIZED (SELECT day FROM missing ORDER BY day DESC LIMIT $6),
       raw AS MATERIALIZED (
         SELECT m.day, r.value, r.zero_results, r.days_to_first_option, r.exclusion_codes, r.exclusion_counts
         FROM now_done m JOIN resolution_demands r ON r.organization_id = $1 AND r.dimension = $3
           AND r.created_at >= (m.day::timestamp AT TIME ZONE 'UTC') AND r.created_at < ((m.day + 1)::timestamp AT TIME ZONE 'UTC')),
       v AS (
         INSERT INTO resolution_demand_days (organization_id, platform_id, dimension, day, value, resolutions, zero_results)
         SELECT $1, $2, $3, day, value, count(*), count(*) FILTER (WHERE zero_results) FROM raw GROUP BY day, value
         ON CONFLICT DO NOTHING),
       w AS (
         INSERT INTO resolution_demand_day_waits (organization_id, platform_id, dimension, day, value, bucket, resolutions)
         SELECT $1, $2, $3, day, value, ${BUCKET_SQL}, count(*) FROM raw WHERE days_to_first_option IS NOT NULL
         GROUP BY 4, 5, 6 ON CONFLICT DO NOTHING),
       e AS (
         INSERT INTO resolution_demand_day_exclusions (organization_id, platform_id, dimension, day, value, code, providers)
         SELECT $1, $2, $3, raw.day, raw.value, x.code, sum(x.n) FROM raw, unnest(raw.exclusion_codes, raw.exclusion_counts) AS x(code, n)
         GROUP BY raw.day, raw.value, x.code ON CONFLICT DO NOTHING),
       marked AS (
         INSERT INTO resolution_demand_days_done (organization_id, dimension, day) SELECT $1, $3, day FROM now_done
         ON CONFLICT DO NOTHING)
     SELECT day::text FROM missing WHERE day NOT IN (SELECT day FROM now_done) ORDER BY day`,
    values: [organizationId, platformId, dimension, firstDay, endDay, ROLLUP_DAYS_PER_READ],
  });
  return r.rows.map((row) => row.day as string);
}

/**
 * The wait at fraction `p` of a histogram ([bucket, count] sorted by bucket): that of the resolution at rank ceil(p n)
 * in wait order (as percentile_disc), told as the middle of its bucket (within 2.5% of the wait itself).
 */
function percentileOf(buckets: readonly (readonly [number, number])[], total: number, p: number): number {
  const rank = Math.max(1, Math.ceil(p * total));
  let seen = 0;
  for (const [k, n] of buckets) {
    seen += n;
    if (seen >= rank) return (bucketStart(k) + bucketStart(k + 1)) / 2;
  }
  const last = buckets[buckets.length - 1]![0];
  return (bucketStart(last) + bucketStart(last + 1)) / 2;
}

/**
 * Reads what the organization's resolutions created after `from` and up to `to` asked of each value of `dimension`:
 * counts, zero results, median and p90 days to the first option, and the top exclusion codes. Whole days past come
 * from the daily rollups (made here on first read of a day, a week of days per read at most, migration 0012); the
 * partial days at either end, and whole days not rolled up yet, from resolution_demands itself. Three statements, run
 * together, after the roll-up.
 */
export async function readNetworkAdequacyDemand(
  db: Queryable,
  scope: { organizationId: string; platformId: string },
  dimension: string,
  from: Date,
  to: Date,
): Promise<DemandRowData[]> {
  const { organizationId } = scope;
  const split = splitPeriod(from, to);
  const notRolled = split.days
    ? await rollUpDays(db, organizationId, scope.platformId, dimension, split.days.firstDay, split.days.endDay)
    : [];
  // With no whole day, an empty day range reads no rollup.
  const firstDay = split.days?.firstDay ?? ymd(to.getTime());
  const endDay = split.days?.endDay ?? firstDay;
  // The raw ranges: (from, headEnd), [tailStart, to], and each whole day not rolled up yet, [day, day + 1).
  const ranges = [
    { a: from, b: split.headEnd, aIn: false, bIn: false },
    { a: split.tailStart, b: to, aIn: true, bIn: true },
    ...notRolled.map((d) => ({
      a: new Date(`${d}T00:00:00Z`),
      b: new Date(Date.parse(`${d}T00:00:00Z`) + DAY_MS),
      aIn: true,
      bIn: false,
    })),
  ];
  const values: unknown[] = [organizationId, dimension, firstDay, endDay];
  const bound = (at: Date) => {
    values.push(at);
    return `$${values.length}`;
  };
  const rangeSql = ranges.map(
    (g) => `(r.created_at ${g.aIn ? '>=' : '>'} ${bound(g.a)} AND r.created_at ${g.bIn ? '<=' : '<'} ${bound(g.b)})`,
  );
  const rolled = `organization_id = $1 AND dimension = $2 AND day >= $3::date AND day < $4::date`;
  // The ranges are written out (one index range scan of resolution_demands_by_period each, OR-ed in a bitmap), so the
  // statement is unnamed: planned each time with its own bounds.
  const raw = `resolution_demands r WHERE r.organization_id = $1 AND r.dimension = $2 AND (${rangeSql.join(' OR ')})`;
  const [counts, waits, cuts] = await Promise.all([
    db.query({
      text: `SELECT value, sum(resolutions)::int AS resolutions, sum(zero_results)::int AS zero_results FROM (
         SELECT value, resolutions, zero_results FROM resolution_demand_days WHERE ${rolled}
         UNION ALL
         SELECT r.value, 1, r.zero_results::int FROM ${raw}) AS x
       GROUP BY value ORDER BY 2 DESC, value`,
      values,
    }),
    db.query({
      text: `SELECT value, bucket, sum(resolutions)::int AS n FROM (
         SELECT value, bucket, resolutions FROM resolution_demand_day_waits WHERE ${rolled}
         UNION ALL
         SELECT r.value, ${BUCKET_SQL.replace('days_to_first_option', 'r.days_to_first_option')}, 1 FROM ${raw}
           AND r.days_to_first_option IS NOT NULL) AS x
       GROUP BY value, bucket ORDER BY value, bucket`,
      values,
    }),
    db.query({
      text: `SELECT value, code, sum(providers)::float8 AS n FROM (
         SELECT value, code, providers FROM resolution_demand_day_exclusions WHERE ${rolled}
         UNION ALL
         SELECT r.value, x.code, x.n FROM ${raw.replace(' r WHERE', ' r, unnest(r.exclusion_codes, r.exclusion_counts) AS x(code, n) WHERE')}) AS x
       GROUP BY value, code ORDER BY value, 3 DESC, code`,
      values,
    }),
  ]);
  const waitsOf = new Map<string, [number, number][]>();
  for (const w of waits.rows) {
    const list = waitsOf.get(w.value) ?? [];
    list.push([w.bucket, w.n]);
    waitsOf.set(w.value, list);
  }
  const cutsOf = new Map<string, { code: string; count: number }[]>();
  for (const c of cuts.rows) {
    const list = cutsOf.get(c.value) ?? [];
    if (list.length < 5) list.push({ code: c.code, count: c.n });
    cutsOf.set(c.value, list);
  }
  return counts.rows.map((row) => {
    const buckets = waitsOf.get(row.value) ?? [];
    const waited = buckets.reduce((s, [, n]) => s + n, 0);
    return {
      value: row.value,
      resolutions: row.resolutions,
      zeroResults: row.zero_results,
      medianDays: waited === 0 ? null : percentileOf(buckets, waited, 0.5),
      p90Days: waited === 0 ? null : percentileOf(buckets, waited, 0.9),
      topExclusionCodes: cutsOf.get(row.value) ?? [],
    };
  });
}
