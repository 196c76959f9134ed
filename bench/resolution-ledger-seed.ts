import { performance } from 'node:perf_hooks';
import pg from 'pg';
import type { SeededRandom } from '../test/helpers/seeded-random.js';

const CHUNK = 10_000;
const DAY_MS = 24 * 3600 * 1000;

/** Values and their weights: a few common, many rare, as clients ask. */
const LANGUAGES = ['en', 'es', 'zh', 'vi', 'fr', 'ar', 'ko', 'ru', 'pt', 'de', 'ht', 'tl'];
const MODALITIES = ['virtual', 'in_person'];
const INSURANCE = ['aetna', 'bcbs', 'cigna', 'uhc', 'humana', 'medicaid', 'medicare', 'kaiser'];
const SPECIALTIES = ['anxiety', 'depression', 'trauma', 'grief', 'adhd', 'ocd', 'eating', 'couples', 'child'];
const REGIONS = ['US-CA', 'US-NY', 'US-TX', 'US-FL', 'US-IL', 'US-WA', 'US-MA', 'US-NJ', 'US-PA', 'US-OH'];
const CODES = [
  'LANGUAGE_MISMATCH',
  'INSURANCE_MISMATCH',
  'MODALITY_MISMATCH',
  'LICENSE_REGION_MISMATCH',
  'SPECIALTY_MISMATCH',
  'NO_VERIFIED_AVAILABILITY',
  'PANEL_FULL',
  'NOT_ACCEPTING_NEW_CLIENTS',
  'LICENSE_EXPIRED',
  'SERVICE_NOT_OFFERED',
];

/** One of `xs`, the first ones more often (weight 1/(i+1)). */
function skewed<T>(rnd: SeededRandom, xs: readonly T[]): T {
  const total = xs.reduce((s, _, i) => s + 1 / (i + 1), 0);
  let x = rnd.next() * total;
  for (let i = 0; i < xs.length; i++) {
    x -= 1 / (i + 1);
    if (x < 0) return xs[i]!;
  }
  return xs[xs.length - 1]!;
}

/**
 * Writes `count` resolutions of an organization straight into PostgreSQL, created over the 90 days before `nowMs`:
 * their ledger rows and the demand rows network adequacy reads (migration 0014), as insertResolution writes them
 * (multi-row INSERTs of 10,000), then vacuums and analyzes both tables (as autovacuum would have by the time they are
 * read). Each names one language (two for 15%), and a modality,
 * insurance plan, specialty or licence region some of the time; 12% end with zero results, the others with a first
 * option 0-14 days out; each excluded providers under 2-6 codes. No events, no audit, no actors: a shortcut for the
 * network-adequacy row only. Answers the demand rows written and the time taken.
 */
export async function seedResolutionLedger(o: {
  databaseUrl: string;
  organizationId: string;
  count: number;
  nowMs: number;
  rnd: SeededRandom;
}): Promise<{ resolutions: number; demandRows: number; ms: number }> {
  const t0 = performance.now();
  const db = new pg.Client({ connectionString: o.databaseUrl });
  await db.connect();
  let demandRows = 0;
  try {
    const org = (await db.query('SELECT platform_id FROM organizations WHERE id = $1', [o.organizationId])).rows[0];
    if (!org) throw new Error(`seedResolutionLedger: no organization ${o.organizationId}`);
    const { rnd } = o;
    for (let start = 0; start < o.count; start += CHUNK) {
      const n = Math.min(CHUNK, o.count - start);
      const res = { id: [] as string[], created: [] as Date[], options: [] as number[] };
      const dm = {
        id: [] as string[],
        dimension: [] as string[],
        value: [] as string[],
        created: [] as Date[],
        zero: [] as boolean[],
        days: [] as (number | null)[],
        codes: [] as string[],
        counts: [] as string[],
      };
      for (let i = 0; i < n; i++) {
        const id = `res_seed${String(start + i).padStart(7, '0')}`;
        const created = new Date(o.nowMs - rnd.next() * 89.9 * DAY_MS);
        const zero = rnd.chance(0.12);
        const days = zero ? null : Math.min(14, -Math.log(1 - rnd.next()) * 3);
        const codes = rnd.sample(CODES, rnd.int(2, 6));
        const counts = codes.map(() => rnd.int(1, 400));
        res.id.push(id);
        res.created.push(created);
        res.options.push(zero ? 0 : rnd.int(1, 10));
        const values: [string, string][] = [['language', skewed(rnd, LANGUAGES)]];
        if (rnd.chance(0.15)) values.push(['language', skewed(rnd, LANGUAGES)]);
        if (rnd.chance(0.6)) values.push(['modality', rnd.pick(MODALITIES)]);
        if (rnd.chance(0.4)) values.push(['insurance', skewed(rnd, INSURANCE)]);
        if (rnd.chance(0.5)) values.push(['specialty', skewed(rnd, SPECIALTIES)]);
        if (rnd.chance(0.3)) values.push(['license_region', skewed(rnd, REGIONS)]);
        const seen = new Set<string>();
        for (const [dimension, value] of values) {
          if (seen.has(`${dimension}:${value}`)) continue;
          seen.add(`${dimension}:${value}`);
          dm.id.push(id);
          dm.dimension.push(dimension);
          dm.value.push(value);
          dm.created.push(created);
          dm.zero.push(zero);
          dm.days.push(days);
          // Arrays of arrays must be rectangular in one parameter: each row's arrays travel as text literals.
          dm.codes.push(`{${codes.join(',')}}`);
          dm.counts.push(`{${counts.join(',')}}`);
        }
      }
      await db.query('BEGIN');
      await db.query(
        `INSERT INTO resolutions (id, platform_id, organization_id, status, request_id, service_slug, policy_id, policy_version, graph_version, options_returned, evaluated_slots, providers_scanned, created_at, expires_at)
         SELECT x.id, $2, $3, 'expired', 'req_seed', 'intake-session', 'default', 1, 1, x.options, 100, 1000, x.created, x.created + interval '15 minutes'
         FROM unnest($1::text[], $4::timestamptz[], $5::int[]) AS x(id, created, options)`,
        [res.id, org.platform_id, o.organizationId, res.created, res.options],
      );
      await db.query(
        `INSERT INTO resolution_demands (resolution_id, platform_id, organization_id, dimension, value, created_at, zero_results, days_to_first_option, exclusion_codes, exclusion_counts)
         SELECT x.id, $2, $3, x.dimension, x.value, x.created, x.zero, x.days, x.codes::text[], x.counts::int[]
         FROM unnest($1::text[], $4::text[], $5::text[], $6::timestamptz[], $7::boolean[], $8::float8[], $9::text[], $10::text[])
           AS x(id, dimension, value, created, zero, days, codes, counts)`,
        [
          dm.id,
          org.platform_id,
          o.organizationId,
          dm.dimension,
          dm.value,
          dm.created,
          dm.zero,
          dm.days,
          dm.codes,
          dm.counts,
        ],
      );
      await db.query('COMMIT');
      demandRows += dm.id.length;
    }
    // What autovacuum does to rows this old: statistics, and the visibility map index-only scans rely on.
    await db.query('VACUUM (ANALYZE) resolutions, resolution_demands');
    return { resolutions: o.count, demandRows, ms: performance.now() - t0 };
  } finally {
    await db.end();
  }
}
