import type { Queryable } from './database.js';
import type { DemandSum, DemandSumCache } from './demand-sum-cache.js';

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
const HOUR_MS = 3600 * 1000;
/** A day is rolled up once it has been over this long (resolutions written late still land in its raw rows). */
const ROLLUP_AFTER_MS = 3600 * 1000;
/**
 * An hour of a partial day is summed and kept once it has been over this long (resolutions still being stored then are
 * few; one written into a kept hour later is caught by its count, see readEdgesAndHours).
 */
const HOUR_SETTLE_MS = 5 * 60 * 1000;
/** The key of the hour starting at `ms` in the cache of hours (YYYY-MM-DDTHH, UTC). */
const hourKey = (ms: number) => new Date(ms).toISOString().slice(0, 13);
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
 * The wait at fraction `p` of a histogram (counts by bucket, ascending buckets, `total` > 0): that of the resolution
 * at rank ceil(p n) in wait order (as percentile_disc), told as the middle of its bucket (within 2.5% of the wait).
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

/** Code-unit order: the same on every machine, whatever the database's collation. */
const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** What a read sums per value: counts, the wait histogram (sparse, by bucket) and providers excluded per code. */
interface ValueTally {
  resolutions: number;
  zeroResults: number;
  waits: Map<number, number>;
  exclusions: Map<string, number>;
}

/** Sums per value, over rolled-up days and raw rows alike. */
function createTally() {
  const byValue = new Map<string, ValueTally>();
  const of = (value: string) => {
    let t = byValue.get(value);
    if (!t) byValue.set(value, (t = { resolutions: 0, zeroResults: 0, waits: new Map(), exclusions: new Map() }));
    return t;
  };
  return {
    byValue,
    counts(value: string, resolutions: number, zeroResults: number) {
      const t = of(value);
      t.resolutions += resolutions;
      t.zeroResults += zeroResults;
    },
    wait(value: string, bucket: number, n: number) {
      const w = of(value).waits;
      w.set(bucket, (w.get(bucket) ?? 0) + n);
    },
    exclusion(value: string, code: string, n: number) {
      const e = of(value).exclusions;
      e.set(code, (e.get(code) ?? 0) + n);
    },
    sum(sum: DemandSum) {
      for (const v of sum) {
        const t = of(v.value);
        t.resolutions += v.resolutions;
        t.zeroResults += v.zeroResults;
        for (let i = 0; i < v.waitBuckets.length; i++)
          t.waits.set(v.waitBuckets[i]!, (t.waits.get(v.waitBuckets[i]!) ?? 0) + v.waitCounts[i]!);
        for (let i = 0; i < v.exclusionCodes.length; i++)
          t.exclusions.set(
            v.exclusionCodes[i]!,
            (t.exclusions.get(v.exclusionCodes[i]!) ?? 0) + v.exclusionProviders[i]!,
          );
      }
    },
  };
}

/** A tally as a DemandSum (the sum of a run of days, to cache). */
function demandSumOf(tally: ReturnType<typeof createTally>): DemandSum {
  return [...tally.byValue].map(([value, t]) => {
    const waits = [...t.waits].sort((a, b) => a[0] - b[0]);
    return {
      value,
      resolutions: t.resolutions,
      zeroResults: t.zeroResults,
      waitBuckets: Int32Array.from(waits, ([k]) => k),
      waitCounts: Float64Array.from(waits, ([, n]) => n),
      exclusionCodes: [...t.exclusions.keys()],
      exclusionProviders: Float64Array.from(t.exclusions.values()),
    };
  });
}

/**
 * An aggregate the statements below answer, [kind, value, code, a, b]: kind 0 counts (a resolutions, b zero results),
 * 1 a wait bucket (a bucket, b resolutions), 2 an exclusion code (a providers).
 */
type Aggregate = [kind: 0 | 1 | 2, value: string, code: string | null, a: number, b: number];

/** Adds aggregates to a tally. */
function addAggregates(tally: ReturnType<typeof createTally>, rows: readonly Aggregate[]) {
  for (const [kind, value, code, a, b] of rows)
    if (kind === 0) tally.counts(value, a, b);
    else if (kind === 1) tally.wait(value, a, b);
    else tally.exclusion(value, code!, a);
}

/**
 * Runs `q` (columns kind, value, code, a, b) with its rows folded into one JSON array: one value for the driver to
 * parse (JSON.parse) instead of hundreds of rows of text columns, ~5x less CPU in the service.
 */
async function readAggregates(
  db: Queryable,
  q: { name?: string; text: string; values: unknown[] },
): Promise<Aggregate[]> {
  const r = await db.query({
    ...q,
    text: `SELECT coalesce(json_agg(json_build_array(kind, value, code, a, b)), '[]') AS rows FROM (${q.text}) AS q`,
  });
  return r.rows[0].rows as Aggregate[];
}

/**
 * Sums the rollups of the organization's dimension over the days [firstDay, endDay) but `readRaw` into `tally`, in one
 * statement. The days read raw are left out even when rolled up by now (by another process since this one looked), so
 * no day counts twice.
 */
async function readRolledRun(
  db: Queryable,
  organizationId: string,
  dimension: string,
  days: { firstDay: string; endDay: string; readRaw: readonly string[] },
  tally: ReturnType<typeof createTally>,
): Promise<void> {
  const where = `organization_id = $1 AND dimension = $2 AND day >= $3::date AND day < $4::date AND day <> ALL($5::date[])`;
  const rows = await readAggregates(db, {
    name: 'network-adequacy-rolled-run',
    text: `SELECT 0 AS kind, value, NULL::text AS code, sum(resolutions)::float8 AS a, sum(zero_results)::float8 AS b
         FROM resolution_demand_days WHERE ${where} GROUP BY value
       UNION ALL
       SELECT 1, value, NULL, bucket, sum(resolutions)::float8 FROM resolution_demand_day_waits WHERE ${where}
         GROUP BY value, bucket
       UNION ALL
       SELECT 2, value, code, sum(providers)::float8, 0 FROM resolution_demand_day_exclusions WHERE ${where}
         GROUP BY value, code`,
    values: [organizationId, dimension, days.firstDay, days.endDay, days.readRaw],
  });
  addAggregates(tally, rows);
}

/** A range of created_at read from resolution_demands itself, each end in or out. */
interface RawRange {
  a: Date;
  b: Date;
  aIn: boolean;
  bIn: boolean;
}

/** The condition on `r.created_at` of a raw range, its bounds added as parameters by `bound`. */
const rawRangeSql = (g: RawRange, bound: (at: Date) => string) =>
  `(r.created_at ${g.aIn ? '>=' : '>'} ${bound(g.a)} AND r.created_at ${g.bIn ? '<=' : '<'} ${bound(g.b)})`;

/**
 * The three aggregates (Aggregate's kinds 0, 1, 2) of the demand rows `r` of `from` that match `cond`, as statements
 * to UNION ALL; `byHour` adds each row's hour `r.h` after the kind, and groups by it.
 */
function aggregatesOf(from: string, cond: string, o: { byHour?: boolean } = {}): string[] {
  const h = o.byHour ? 'r.h, ' : '';
  // Positions of the value and the bucket in the wait statement's select list.
  const waitGroup = o.byHour ? '2, 3, 5' : '2, 4';
  return [
    `SELECT 0 AS kind, ${h}r.value, NULL::text AS code, count(*)::float8 AS a,
       count(*) FILTER (WHERE r.zero_results)::float8 AS b FROM ${from} WHERE ${cond} GROUP BY ${h}r.value`,
    `SELECT 1 AS kind, ${h}r.value, NULL::text AS code, ${BUCKET_SQL.replace('days_to_first_option', 'r.days_to_first_option')}::float8 AS a,
       count(*)::float8 AS b FROM ${from} WHERE ${cond} AND r.days_to_first_option IS NOT NULL GROUP BY ${waitGroup}`,
    `SELECT 2 AS kind, ${h}r.value, x.code, sum(x.n)::float8 AS a, 0::float8 AS b
       FROM ${from}, unnest(r.exclusion_codes, r.exclusion_counts) AS x(code, n) WHERE ${cond} GROUP BY ${h}r.value, x.code`,
  ];
}

/** Sums the raw demand rows of the organization's dimension created in `ranges` into `tally`, in one statement. */
async function readRawRanges(
  db: Queryable,
  organizationId: string,
  dimension: string,
  ranges: readonly RawRange[],
  tally: ReturnType<typeof createTally>,
): Promise<void> {
  const values: unknown[] = [organizationId, dimension];
  const bound = (at: Date) => {
    values.push(at);
    return `$${values.length}`;
  };
  const rangeSql = ranges.map((g) => rawRangeSql(g, bound));
  const where = `r.organization_id = $1 AND r.dimension = $2 AND (${rangeSql.join(' OR ')})`;
  // The ranges are written out (one index range scan of resolution_demands_by_period each, OR-ed in a bitmap), so the
  // statements are unnamed: planned each time with their own bounds. Only the partial days (about a day of rows): one
  // statement, the rows read once for the three aggregates. With whole days not rolled up yet too (a first read over
  // up to 90 days past), three statements side by side: one over all those rows, materialized, ran past
  // statement_timeout on a loaded machine.
  const rows =
    ranges.length <= 2
      ? await readAggregates(db, {
          text: `WITH raw AS MATERIALIZED (
             SELECT r.value, r.zero_results, r.days_to_first_option, r.exclusion_codes, r.exclusion_counts
             FROM resolution_demands r WHERE ${where})
           ${aggregatesOf('raw r', 'true').join(' UNION ALL ')}`,
          values,
        })
      : (
          await Promise.all(
            aggregatesOf('resolution_demands r', where).map((text) => readAggregates(db, { text, values })),
          )
        ).flat();
  addAggregates(tally, rows);
}

/** What the rows of a DemandSum count: one resolution per demand row. */
const rowsOf = (sum: DemandSum) => sum.reduce((n, v) => n + v.resolutions, 0);

/** Hours [a, b) (epoch ms, whole hours), as runs to read or check. */
interface HourRun {
  a: number;
  b: number;
}

/** The runs of consecutive hours in `hours` (ascending epoch ms of whole hours). */
function runsOf(hours: readonly number[]): HourRun[] {
  const runs: HourRun[] = [];
  for (const h of hours) {
    const last = runs[runs.length - 1];
    if (last && last.b === h) last.b = h + HOUR_MS;
    else runs.push({ a: h, b: h + HOUR_MS });
  }
  return runs;
}

/**
 * In one statement: sums the raw demand rows of the organization's dimension created in `edges` into `tally`, sums
 * those of each hour in `load` (answered by hour, an hour without rows as an empty sum), and counts the rows of each
 * run of consecutive hours in `check` now (answered by the run's first hour; index-only range scans: as rows are only
 * ever added, kept hours with as many rows as they were summed from have no other rows). Hours are UTC hours, as
 * epoch ms of their start.
 */
async function readEdgesAndHours(
  db: Queryable,
  organizationId: string,
  dimension: string,
  o: { edges: readonly RawRange[]; load: readonly number[]; check: readonly number[] },
  tally: ReturnType<typeof createTally>,
): Promise<{ loaded: Map<number, DemandSum>; counts: Map<number, number> }> {
  const values: unknown[] = [organizationId, dimension];
  const bound = (at: Date | number) => {
    values.push(typeof at === 'number' ? new Date(at) : at);
    return `$${values.length}`;
  };
  const hourSql = (col: string) => `floor(extract(epoch FROM ${col}) / 3600)::float8`;
  const rowRanges = [
    ...o.edges.map((g) => rawRangeSql(g, bound)),
    ...runsOf(o.load).map((g) => `(r.created_at >= ${bound(g.a)} AND r.created_at < ${bound(g.b)})`),
  ];
  const parts: string[] = [];
  let raw = '';
  if (rowRanges.length > 0) {
    // Every row is tagged with its hour: an hour to load takes its rows, the edges (never in such an hour) the rest.
    raw = `WITH raw AS MATERIALIZED (
        SELECT ${hourSql('r.created_at')} AS h, r.value, r.zero_results, r.days_to_first_option, r.exclusion_codes,
          r.exclusion_counts
        FROM resolution_demands r
        WHERE r.organization_id = $1 AND r.dimension = $2 AND (${rowRanges.join(' OR ')}))`;
    parts.push(...aggregatesOf('raw r', 'true', { byHour: true }));
  }
  // One index-only range scan per run (an OR of ranges would be a bitmap scan reading the table's pages).
  for (const g of runsOf(o.check))
    parts.push(
      `SELECT 3 AS kind, ${g.a / HOUR_MS}::float8 AS h, NULL::text AS value, NULL::text AS code, count(*)::float8 AS a,
         0::float8 AS b FROM resolution_demands c
         WHERE c.organization_id = $1 AND c.dimension = $2 AND c.created_at >= ${bound(g.a)} AND c.created_at < ${bound(g.b)}`,
    );
  const loaded = new Map<number, ReturnType<typeof createTally>>(o.load.map((h) => [h, createTally()]));
  const counts = new Map<number, number>();
  if (parts.length === 0) return { loaded: new Map(), counts };
  // Unnamed: the ranges are written out, so each statement is planned with its own bounds.
  const r = await db.query({
    text: `${raw} SELECT coalesce(json_agg(json_build_array(kind, h, value, code, a, b)), '[]') AS rows
           FROM (${parts.join(' UNION ALL ')}) AS q`,
    values,
  });
  const byHour: [kind: 0 | 1 | 2 | 3, hour: number, value: string, code: string | null, a: number, b: number][] =
    r.rows[0].rows;
  const edgeRows: Aggregate[] = [];
  const hourRows = new Map<number, Aggregate[]>();
  for (const [kind, hourIndex, value, code, a, b] of byHour) {
    const h = hourIndex * HOUR_MS;
    if (kind === 3) counts.set(h, a);
    else if (loaded.has(h)) {
      let rows = hourRows.get(h);
      if (!rows) hourRows.set(h, (rows = []));
      rows.push([kind, value, code, a, b]);
    } else edgeRows.push([kind, value, code, a, b]);
  }
  addAggregates(tally, edgeRows);
  for (const [h, rows] of hourRows) addAggregates(loaded.get(h)!, rows);
  return { loaded: new Map([...loaded].map(([h, t]) => [h, demandSumOf(t)])), counts };
}

/** Reads network adequacy's demand side (see createNetworkAdequacyDemand). */
export interface NetworkAdequacyDemand {
  /**
   * What the organization's resolutions created after `from` and up to `to` asked of each value of `dimension`, the
   * most asked first (ties by value).
   */
  read(
    scope: { organizationId: string; platformId: string },
    dimension: string,
    from: Date,
    to: Date,
  ): Promise<DemandRowData[]>;
  /** The sums over whole days it keeps (read-only use: their count and weight). */
  readonly sums: Pick<DemandSumCache, 'size' | 'weight'>;
  /** The sums over settled hours of partial days it keeps (read-only use: their count and weight). */
  readonly hours: Pick<DemandSumCache, 'size' | 'weight'>;
}

/**
 * Creates the reader of network adequacy's demand side: counts, zero results, median and p90 days to the first option,
 * and the top exclusion codes per value. Whole days past come from the daily rollups (made here on first read of a
 * day, ROLLUP_DAYS_PER_READ days per read at most, migration 0014), summed by PostgreSQL over the period's run of
 * whole days; once all of them are rolled up that sum is final and kept in `sums` (a rollup never changes). The partial
 * days at either end are kept by the hour in `hours` once an hour has been over for HOUR_SETTLE_MS (those of the
 * current day checked by their row count on every read), so a steady read runs one statement: the raw rows before the
 * period's first whole hour and since the last settled one, and the counts. The run of days moves on once a day (the
 * first read an hour past midnight UTC sums it anew).
 */
export function createNetworkAdequacyDemand(deps: {
  db: Queryable;
  sums: DemandSumCache;
  hours: DemandSumCache;
}): NetworkAdequacyDemand {
  const { db, sums: cache, hours } = deps;

  /**
   * Sums the partial days at either end of a period with whole days into `tally`: their settled hours from `hours`
   * (summed by PostgreSQL on first need), each checked by its row count in the statement that reads the raw rows
   * left (before the first whole hour, and since the last settled hour); an hour whose count moved is summed again.
   */
  async function readPartialDays(
    organizationId: string,
    dimension: string,
    from: Date,
    to: Date,
    split: { headEnd: Date; tailStart: Date },
    tally: ReturnType<typeof createTally>,
  ): Promise<void> {
    const keyOf = (h: number) => [organizationId, dimension, hourKey(h), hourKey(h + HOUR_MS)] as const;
    const firstHour = Math.floor(from.getTime() / HOUR_MS) * HOUR_MS + HOUR_MS;
    const settled = Math.floor((to.getTime() - HOUR_SETTLE_MS) / HOUR_MS) * HOUR_MS;
    const wanted: number[] = [];
    for (let h = firstHour; h < split.headEnd.getTime(); h += HOUR_MS) wanted.push(h);
    for (let h = split.tailStart.getTime(); h < settled; h += HOUR_MS) wanted.push(h);
    const kept = new Map<number, DemandSum>();
    const load: number[] = [];
    for (const h of wanted) {
      const sum = hours.get(...keyOf(h));
      if (sum) kept.set(h, sum);
      else load.push(h);
    }
    const edges: RawRange[] = [
      { a: from, b: new Date(Math.min(firstHour, split.headEnd.getTime())), aIn: false, bIn: false },
      { a: new Date(Math.max(settled, split.tailStart.getTime())), b: to, aIn: true, bIn: true },
    ];
    // Hours of days over (for an hour, as the rollups judge them) are final like those days' rollups; those of the day
    // still partial at the end are checked by their count.
    const check = [...kept.keys()].filter((h) => h >= split.tailStart.getTime());
    const first = await readEdgesAndHours(db, organizationId, dimension, { edges, load, check }, tally);
    const stale = runsOf(check)
      .filter(
        (g) =>
          first.counts.get(g.a) !== check.reduce((n, h) => (h >= g.a && h < g.b ? n + rowsOf(kept.get(h)!) : n), 0),
      )
      .flatMap((g) => check.filter((h) => h >= g.a && h < g.b));
    const again =
      stale.length > 0
        ? await readEdgesAndHours(db, organizationId, dimension, { edges: [], load: stale, check: [] }, tally)
        : undefined;
    for (const [h, sum] of [...first.loaded, ...(again?.loaded ?? [])]) {
      hours.set(...keyOf(h), sum);
      kept.set(h, sum);
    }
    for (const sum of kept.values()) tally.sum(sum);
  }

  return {
    sums: cache,
    hours,
    async read(scope, dimension, from, to) {
      const { organizationId } = scope;
      const split = splitPeriod(from, to);
      const tally = createTally();
      const days = split.days;
      if (!days) {
        await readEdgesAndHours(
          db,
          organizationId,
          dimension,
          { edges: [{ a: from, b: to, aIn: false, bIn: true }], load: [], check: [] },
          tally,
        );
      } else {
        const cached = cache.get(organizationId, dimension, days.firstDay, days.endDay);
        let wholeDays: Promise<void> | undefined;
        let rawDays: Promise<void> | undefined;
        if (cached) tally.sum(cached);
        else {
          const notRolled = await rollUpDays(
            db,
            organizationId,
            scope.platformId,
            dimension,
            days.firstDay,
            days.endDay,
          );
          // Whole days not rolled up yet are read raw (their rollups are empty).
          const ranges: RawRange[] = notRolled.map((d) => {
            const start = Date.parse(`${d}T00:00:00Z`);
            return { a: new Date(start), b: new Date(start + DAY_MS), aIn: true, bIn: false };
          });
          if (ranges.length > 0) rawDays = readRawRanges(db, organizationId, dimension, ranges, tally);
          const whole = createTally();
          wholeDays = readRolledRun(db, organizationId, dimension, { ...days, readRaw: notRolled }, whole).then(() => {
            const sum = demandSumOf(whole);
            // Once every day of the run is rolled up its sum is final: the next reads of the period add only raw rows.
            if (notRolled.length === 0) cache.set(organizationId, dimension, days.firstDay, days.endDay, sum);
            tally.sum(sum);
          });
        }
        await Promise.all([wholeDays, rawDays, readPartialDays(organizationId, dimension, from, to, split, tally)]);
      }
      return [...tally.byValue]
        .sort(([va, a], [vb, b]) => b.resolutions - a.resolutions || byCodeUnits(va, vb))
        .map(([value, t]) => {
          const buckets = [...t.waits].sort((x, y) => x[0] - y[0]);
          const waited = buckets.reduce((s, [, n]) => s + n, 0);
          return {
            value,
            resolutions: t.resolutions,
            zeroResults: t.zeroResults,
            medianDays: waited === 0 ? null : percentileOf(buckets, waited, 0.5),
            p90Days: waited === 0 ? null : percentileOf(buckets, waited, 0.9),
            topExclusionCodes: [...t.exclusions]
              .sort(([ca, a], [cb, b]) => b - a || byCodeUnits(ca, cb))
              .slice(0, 5)
              .map(([code, count]) => ({ code, count })),
          };
        });
    },
  };
}
