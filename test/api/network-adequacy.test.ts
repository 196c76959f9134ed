import test from 'ava';
import { randomUUID } from 'node:crypto';
import { client } from '../helpers/http.js';
import { createTestClock } from '../helpers/test-clock.js';
import { newOrganization, providerWithService } from '../helpers/graph-fixtures.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { createSeededRandom } from '../helpers/seeded-random.js';

let svc: TestService;
// Monday 2 March 2026, 07:00 in New York.
const NOW = new Date('2026-03-02T12:00:00Z');
const clock = createTestClock(NOW);
const DAY_MS = 24 * 3600 * 1000;
const daysAgo = (d: number) => new Date(NOW.getTime() - d * DAY_MS);
const idem = () => ({ 'idempotency-key': randomUUID() });
/** Waits are told as the middle of their 5% histogram bucket: within 2.5% of the wait. */
const near = (actual: number | null, expected: number) =>
  actual !== null && Math.abs(actual - expected) <= expected * 0.025 + 0.01;
const license = (region: string, expiresAt = '2030-01-01') => ({
  licenseTypeCode: 'psy',
  regionCode: region,
  status: 'active',
  expiresAt,
  verifiedAt: '2026-01-01T00:00:00Z',
});

type Org = Awaited<ReturnType<typeof newOrganization>>;
let main: Org;
let other: Org;
let serviceId: string;

test.before(async () => {
  svc = await startTestService({ clock });
  main = await newOrganization(svc, 'na-main');
  other = await newOrganization(svc, 'na-other');
  const ana = await providerWithService(main, {
    externalId: 'ana',
    languageCodes: ['es', 'en'],
    insurancePlanCodes: ['uhc'],
    specialtyCodes: ['anxiety'],
    modalityCodes: ['virtual'],
    licenseRecords: [license('US-NY')],
    acceptsNewClients: true,
  });
  serviceId = ana.service.id;
  await providerWithService(main, {
    externalId: 'ben',
    languageCodes: ['en'],
    insurancePlanCodes: ['uhc'],
    specialtyCodes: ['anxiety', 'grief'],
    modalityCodes: ['virtual', 'in_person'],
    licenseRecords: [license('US-NY', '2026-01-31'), license('US-NJ')],
    acceptsNewClients: false,
  });
  await providerWithService(
    main,
    { externalId: 'cat', languageCodes: ['es'], modalityCodes: ['in_person'], acceptsNewClients: true },
    { schedule: null },
  );
  // Inactive and unsearchable providers serve nobody.
  await providerWithService(main, { externalId: 'dan', languageCodes: ['es'], status: 'inactive' });
  await providerWithService(main, { externalId: 'eve', languageCodes: ['es'], searchable: false });
  await providerWithService(other, { externalId: 'oz', languageCodes: ['es', 'fr'], acceptsNewClients: true });
});
test.after.always(async () => {
  await svc?.stop();
});

const adequacy = (o: Org, query: string) => o.api.get(`/api/v2/analytics/network-adequacy?${query}`);

/** Inserts a demand row as insertResolution writes it, for a resolution of `o` (the ledger row is not needed). */
async function demand(
  o: Org,
  dimension: string,
  value: string,
  createdAt: Date,
  days: number | null,
  exclusions: Record<string, number> = {},
) {
  const codes = Object.keys(exclusions);
  await svc.service.deps.db.query(
    `INSERT INTO resolution_demands (resolution_id, platform_id, organization_id, dimension, value, created_at, zero_results, days_to_first_option, exclusion_codes, exclusion_counts)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [
      `res_${randomUUID()}`,
      o.org.platformId,
      o.org.id,
      dimension,
      value,
      createdAt,
      days === null,
      days,
      codes,
      codes.map((c) => exclusions[c]),
    ],
  );
}

test.serial(
  'a resolution records what it asked for: rows per value with providers, outcome and exclusions',
  async (t) => {
    const es = await main.api.post(
      '/api/v2/resolutions',
      {
        serviceId,
        constraints: { languageCodes: { anyOf: ['ES'] }, modalityCodes: { anyOf: ['virtual'] } },
        dateRange: { from: '2026-03-02', to: '2026-03-05' },
      },
      idem(),
    );
    t.is(es.status, 200, JSON.stringify(es.body));
    t.is(es.body.status, 'resolved');
    const fr = await main.api.post(
      '/api/v2/resolutions',
      {
        serviceId,
        constraints: { languageCodes: { anyOf: ['fr'] } },
        dateRange: { from: '2026-03-02', to: '2026-03-05' },
      },
      idem(),
    );
    t.is(fr.status, 200, JSON.stringify(fr.body));
    t.is(fr.body.status, 'zero_results');

    const earliest = Math.min(...es.body.options.map((o: any) => Date.parse(o.slot.start)));
    const days = Math.round(((earliest - Date.parse(es.body.createdAt)) / DAY_MS) * 100) / 100;
    t.true(days > 0);
    const top = (summary: Record<string, number>) =>
      Object.entries(summary)
        .map(([code, count]) => ({ code, count }))
        .sort((a, b) => b.count - a.count || a.code.localeCompare(b.code))
        .slice(0, 5);

    const r = await adequacy(main, 'dimension=language');
    t.is(r.status, 200, JSON.stringify(r.body));
    t.deepEqual(r.body, {
      period: 'last_30_days',
      dimension: 'language',
      rows: [
        {
          value: 'es',
          providers: 2,
          acceptingNewClients: 2,
          resolutions: 1,
          zeroResultRate: 0,
          medianDaysToFirstOption: days,
          p90DaysToFirstOption: days,
          topExclusionCodes: top(es.body.exclusionSummary),
        },
        {
          value: 'fr',
          providers: 0,
          acceptingNewClients: 0,
          resolutions: 1,
          zeroResultRate: 1,
          medianDaysToFirstOption: null,
          p90DaysToFirstOption: null,
          topExclusionCodes: top(fr.body.exclusionSummary),
        },
      ],
    });
    t.true(r.body.rows[1].topExclusionCodes.some((c: any) => c.code === 'LANGUAGE_MISMATCH'));

    const m = await adequacy(main, 'dimension=modality&period=last_7_days');
    t.deepEqual(
      m.body.rows.map((x: any) => [x.value, x.providers, x.acceptingNewClients, x.resolutions]),
      [['virtual', 2, 1, 1]],
      'only the value asked for, served by ana and ben',
    );
    // Nothing asked of the other dimensions yet.
    t.deepEqual((await adequacy(main, 'dimension=insurance')).body.rows, []);
    // The other organization asked nothing and sees none of it.
    t.deepEqual((await adequacy(other, 'dimension=language')).body, {
      period: 'last_30_days',
      dimension: 'language',
      rows: [],
    });
    await svc.service.deps.db.query('DELETE FROM resolution_demands WHERE organization_id = $1', [main.org.id]);
  },
);

test.serial('median, p90, zero-result rate, top exclusion codes and the period window, from the ledger', async (t) => {
  const o = await newOrganization(svc, 'na-numbers');
  // In last_7_days: five resolved (1, 2, 3, 4, 10 days) and two with zero results.
  await demand(o, 'specialty', 'grief', daysAgo(1), 1, { LANGUAGE_MISMATCH: 3, INSURANCE_MISMATCH: 1 });
  await demand(o, 'specialty', 'grief', daysAgo(2), 10, { LANGUAGE_MISMATCH: 1, INSURANCE_MISMATCH: 2 });
  await demand(o, 'specialty', 'grief', daysAgo(3), 3, { MODALITY_MISMATCH: 2, AGE_GROUP_MISMATCH: 2 });
  await demand(o, 'specialty', 'grief', daysAgo(4), 2, { SPECIALTY_MISMATCH: 2, LICENSE_EXPIRED: 1 });
  await demand(o, 'specialty', 'grief', daysAgo(5), 4);
  await demand(o, 'specialty', 'grief', daysAgo(6), null, { NO_VERIFIED_AVAILABILITY: 1 });
  await demand(o, 'specialty', 'grief', daysAgo(6.5), null, { PROVIDER_INACTIVE: 1 });
  await demand(o, 'specialty', 'anxiety', daysAgo(2), 0.5);
  // Outside last_7_days, inside last_30_days; outside every period; in the future.
  await demand(o, 'specialty', 'grief', daysAgo(8), null, { LANGUAGE_MISMATCH: 100 });
  await demand(o, 'specialty', 'grief', daysAgo(100), 50);
  await demand(o, 'specialty', 'grief', new Date(NOW.getTime() + 60_000), 50);
  // Other dimensions and another organization are never mixed in.
  await demand(o, 'language', 'grief', daysAgo(1), 50);
  await demand(other, 'specialty', 'grief', daysAgo(1), 50, { LANGUAGE_MISMATCH: 1000 });

  const week = await adequacy(o, 'dimension=specialty&period=last_7_days');
  t.is(week.status, 200);
  const [grief, anxiety] = week.body.rows;
  // The median and p90 are those of the resolutions at rank ceil(0.5 n) and ceil(0.9 n) in wait order: 3 and 10 days.
  t.true(near(grief.medianDaysToFirstOption, 3), String(grief.medianDaysToFirstOption));
  t.true(near(grief.p90DaysToFirstOption, 10), String(grief.p90DaysToFirstOption));
  t.true(near(anxiety.medianDaysToFirstOption, 0.5), String(anxiety.medianDaysToFirstOption));
  t.deepEqual(week.body.rows, [
    {
      value: 'grief',
      providers: 0,
      acceptingNewClients: 0,
      resolutions: 7,
      zeroResultRate: 0.2857,
      medianDaysToFirstOption: grief.medianDaysToFirstOption,
      p90DaysToFirstOption: grief.p90DaysToFirstOption,
      topExclusionCodes: [
        { code: 'LANGUAGE_MISMATCH', count: 4 },
        { code: 'INSURANCE_MISMATCH', count: 3 },
        { code: 'AGE_GROUP_MISMATCH', count: 2 },
        { code: 'MODALITY_MISMATCH', count: 2 },
        { code: 'SPECIALTY_MISMATCH', count: 2 },
      ],
    },
    {
      value: 'anxiety',
      providers: 0,
      acceptingNewClients: 0,
      resolutions: 1,
      zeroResultRate: 0,
      medianDaysToFirstOption: anxiety.medianDaysToFirstOption,
      p90DaysToFirstOption: anxiety.medianDaysToFirstOption,
      topExclusionCodes: [],
    },
  ]);
  const month = await adequacy(o, 'dimension=specialty&period=last_30_days');
  t.like(month.body.rows[0], {
    value: 'grief',
    resolutions: 8,
    zeroResultRate: 0.375,
    medianDaysToFirstOption: grief.medianDaysToFirstOption,
    topExclusionCodes: [{ code: 'LANGUAGE_MISMATCH', count: 104 }],
  });
  // The whole days were rolled up by the first read; read again, from the rollups, the answer is the same.
  const rolled = await svc.service.deps.db.query(
    'SELECT count(*)::int AS n FROM resolution_demand_days_done WHERE organization_id = $1 AND dimension = $2',
    [o.org.id, 'specialty'],
  );
  t.true(rolled.rows[0].n >= 7, `${rolled.rows[0].n} days rolled up`);
  t.deepEqual((await adequacy(o, 'dimension=specialty&period=last_7_days')).body, week.body);
  const quarter = await adequacy(o, 'dimension=specialty&period=last_90_days');
  t.is(quarter.body.rows[0].resolutions, 8, 'a resolution 100 days old is in no period');
});

test.serial(
  'providers and those accepting new clients, per dimension, of the caller’s organization only',
  async (t) => {
    // Today, read raw (earlier days of this organization's language were rolled up by the first test).
    for (const [dimension, value] of [
      ['language', 'es'],
      ['language', 'en'],
      ['insurance', 'uhc'],
      ['specialty', 'anxiety'],
      ['specialty', 'grief'],
      ['modality', 'in_person'],
      ['license_region', 'US-NY'],
      ['license_region', 'US-NJ'],
      ['license_region', 'US-CA'],
    ])
      await demand(main, dimension!, value!, new Date(NOW.getTime() - 3600_000), 1);
    const served = async (dimension: string) =>
      Object.fromEntries(
        (await adequacy(main, `dimension=${dimension}`)).body.rows.map((r: any) => [
          r.value,
          [r.providers, r.acceptingNewClients],
        ]),
      );
    // ana (es, en; accepting), ben (en; not accepting), cat (es; accepting); dan inactive, eve unsearchable.
    t.deepEqual(await served('language'), { es: [2, 2], en: [2, 1] });
    t.deepEqual(await served('insurance'), { uhc: [2, 1] });
    t.deepEqual(await served('specialty'), { anxiety: [2, 1], grief: [1, 0] });
    t.deepEqual(await served('modality'), { in_person: [2, 1] });
    // ben's US-NY licence expired on 2026-01-31; his US-NJ one is valid.
    t.deepEqual(await served('license_region'), { 'US-NY': [1, 1], 'US-NJ': [1, 0], 'US-CA': [0, 0] });
    // The other organization's provider oz speaks es and fr, and counts only there.
    await demand(other, 'language', 'es', new Date(NOW.getTime() - 3600_000), 1);
    const theirs = await adequacy(other, 'dimension=language');
    t.like(
      theirs.body.rows.find((r: any) => r.value === 'es'),
      { providers: 1, acceptingNewClients: 1 },
    );
  },
);

test('a platform key acting in the organization reads the same answer', async (t) => {
  const viaPlatform = await main.platform.get('/api/v2/analytics/network-adequacy?dimension=modality');
  const viaOrg = await adequacy(main, 'dimension=modality');
  t.is(viaPlatform.status, 200);
  t.deepEqual(viaPlatform.body, viaOrg.body);
});

for (const [query, field] of [
  ['dimension=city', 'dimension'],
  ['dimension=LANGUAGE', 'dimension'],
  ['dimension=', 'dimension'],
  ['', 'dimension'],
  ['period=yesterday', 'period'],
  ['dimension=language&period=last_8_days', 'period'],
] as const) {
  test(`?${query || '(nothing)'} is 400 VALIDATION_ERROR on ${field}`, async (t) => {
    const r = await client(svc.url, main.key).get(`/api/v2/analytics/network-adequacy?${query}`);
    t.is(r.status, 400);
    t.is(r.body.error.code, 'VALIDATION_ERROR');
    t.is(r.body.error.field, field);
  });
}

test.serial('today’s resolutions are read raw, and the same once their day is rolled up', async (t) => {
  const o = await newOrganization(svc, 'na-rollover');
  const at = (h: number) => new Date(Date.UTC(2026, 2, 2, h));
  // Today (2 March) before 12:00, and yesterday late: both partial or raw at first.
  await demand(o, 'modality', 'virtual', at(1), 2, { PANEL_FULL: 2 });
  await demand(o, 'modality', 'virtual', at(11), null, { PANEL_FULL: 1, LANGUAGE_MISMATCH: 5 });
  await demand(o, 'modality', 'virtual', new Date(Date.UTC(2026, 2, 1, 23)), 8);
  const before = (await adequacy(o, 'dimension=modality&period=last_7_days')).body;
  t.like(before.rows[0], {
    value: 'virtual',
    resolutions: 3,
    zeroResultRate: 0.3333,
    topExclusionCodes: [
      { code: 'LANGUAGE_MISMATCH', count: 5 },
      { code: 'PANEL_FULL', count: 3 },
    ],
  });
  t.true(near(before.rows[0].medianDaysToFirstOption, 2));
  t.true(near(before.rows[0].p90DaysToFirstOption, 8));
  // Two days later 2 March is over and rolled up: the same resolutions, the same answer.
  clock.set(new Date(NOW.getTime() + 2 * DAY_MS));
  try {
    const after = (await adequacy(o, 'dimension=modality&period=last_7_days')).body;
    const done = await svc.service.deps.db.query(
      `SELECT day::text FROM resolution_demand_days_done WHERE organization_id = $1 AND dimension = 'modality' ORDER BY day`,
      [o.org.id],
    );
    t.true(
      done.rows.some((r) => r.day === '2026-03-02'),
      JSON.stringify(done.rows),
    );
    t.deepEqual(after.rows, before.rows);
  } finally {
    clock.set(NOW);
  }
});

/**
 * What GET network-adequacy answers for `o`'s `dimension` over `period` at `now`, computed straight from
 * resolution_demands (no rollup, no cache): the same ranks, 5% buckets and rounding the endpoint documents, and
 * `providers` as given.
 */
async function directAdequacy(
  o: Org,
  dimension: string,
  period: 'last_7_days' | 'last_30_days' | 'last_90_days',
  now: Date,
  providers: Record<string, [number, number]>,
) {
  const days = { last_7_days: 7, last_30_days: 30, last_90_days: 90 }[period];
  const r = await svc.service.deps.db.query(
    `SELECT value, zero_results, floor(ln(1 + 24 * days_to_first_option) / ln(1.05))::int AS bucket,
            exclusion_codes, exclusion_counts
     FROM resolution_demands WHERE organization_id = $1 AND dimension = $2 AND created_at > $3 AND created_at <= $4`,
    [o.org.id, dimension, new Date(now.getTime() - days * DAY_MS), now],
  );
  const byValue = new Map<string, { n: number; zero: number; buckets: number[]; cuts: Map<string, number> }>();
  for (const row of r.rows) {
    let v = byValue.get(row.value);
    if (!v) byValue.set(row.value, (v = { n: 0, zero: 0, buckets: [], cuts: new Map() }));
    v.n += 1;
    if (row.zero_results) v.zero += 1;
    if (row.bucket !== null) v.buckets.push(row.bucket);
    row.exclusion_codes.forEach((c: string, i: number) =>
      v.cuts.set(c, (v.cuts.get(c) ?? 0) + row.exclusion_counts[i]),
    );
  }
  const start = (k: number) => (1.05 ** k - 1) / 24;
  const at = (sorted: number[], p: number) => {
    if (sorted.length === 0) return null;
    const k = sorted[Math.max(1, Math.ceil(p * sorted.length)) - 1]!;
    return Math.round(((start(k) + start(k + 1)) / 2) * 100) / 100;
  };
  const codeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return {
    period,
    dimension,
    rows: [...byValue]
      .sort(([a, x], [b, y]) => y.n - x.n || codeUnits(a, b))
      .map(([value, v]) => {
        const sorted = v.buckets.sort((a, b) => a - b);
        return {
          value,
          providers: providers[value]?.[0] ?? 0,
          acceptingNewClients: providers[value]?.[1] ?? 0,
          resolutions: v.n,
          zeroResultRate: Math.round((v.zero / v.n) * 10_000) / 10_000,
          medianDaysToFirstOption: at(sorted, 0.5),
          p90DaysToFirstOption: at(sorted, 0.9),
          topExclusionCodes: [...v.cuts]
            .sort(([a, x], [b, y]) => y - x || codeUnits(a, b))
            .slice(0, 5)
            .map(([code, count]) => ({ code, count })),
        };
      }),
  };
}

/** Inserts `count` demand rows of `o` for `dimension`, created at random within `spanDays` before `before`. */
async function seedDemand(o: Org, dimension: string, count: number, before: Date, spanDays: number, seed: number) {
  const rnd = createSeededRandom(seed);
  const rows = Array.from({ length: count }, () => {
    const codes = rnd.sample(
      ['LANGUAGE_MISMATCH', 'PANEL_FULL', 'NO_VERIFIED_AVAILABILITY', 'LICENSE_EXPIRED'],
      rnd.int(0, 3),
    );
    return {
      value: rnd.pick(['en', 'en', 'en', 'es', 'es', 'fr', 'de']),
      createdAt: new Date(before.getTime() - rnd.next() * spanDays * DAY_MS),
      days: rnd.chance(0.15) ? null : rnd.next() * 12,
      codes,
      counts: codes.map(() => rnd.int(1, 50)),
    };
  });
  await svc.service.deps.db.query(
    `INSERT INTO resolution_demands (resolution_id, platform_id, organization_id, dimension, value, created_at, zero_results, days_to_first_option, exclusion_codes, exclusion_counts)
     SELECT 'res_' || gen_random_uuid(), $1, $2, $3, x.value, x.created_at, x.days IS NULL, x.days, x.codes::text[], x.counts::int[]
     FROM unnest($4::text[], $5::timestamptz[], $6::float8[], $7::text[], $8::text[]) AS x(value, created_at, days, codes, counts)`,
    [
      o.org.platformId,
      o.org.id,
      dimension,
      rows.map((x) => x.value),
      rows.map((x) => x.createdAt),
      rows.map((x) => x.days),
      rows.map((x) => `{${x.codes.join(',')}}`),
      rows.map((x) => `{${x.counts.join(',')}}`),
    ],
  );
}

test.serial(
  'the cached sums over whole days answer as a direct computation from the ledger, as resolutions arrive and days turn',
  async (t) => {
    const o = await newOrganization(svc, 'na-direct');
    const { service } = await providerWithService(o, {
      externalId: 'dia',
      languageCodes: ['en', 'es'],
      acceptsNewClients: true,
    });
    const served: Record<string, [number, number]> = { en: [1, 1], es: [1, 1] };
    await seedDemand(o, 'language', 400, NOW, 40, 24_04);
    const sums = svc.service.deps.adequacyDemand.sums;
    const periods = ['last_7_days', 'last_30_days', 'last_90_days'] as const;
    const check = async (now: Date, what: string) => {
      for (const period of periods)
        t.deepEqual(
          (await adequacy(o, `dimension=language&period=${period}`)).body,
          await directAdequacy(o, 'language', period, now, served),
          `${period}, ${what}`,
        );
    };
    // The first reads roll up a week of days each, the rest read raw: every answer is already the direct one.
    const before = sums.size;
    for (let i = 1; i <= 15 && sums.size < before + periods.length; i++) await check(NOW, `read ${i}`);
    t.is(sums.size, before + periods.length, 'each period’s whole days summed once all are rolled up, and kept');
    await check(NOW, 'from the kept sums');
    t.is(sums.size, before + periods.length, 'kept, not summed again');

    // New resolutions: one through the API, forty more written as it writes them; and a new provider for fr.
    const made = await o.api.post(
      '/api/v2/resolutions',
      {
        serviceId: service.id,
        constraints: { languageCodes: { anyOf: ['fr'] } },
        dateRange: { from: '2026-03-02', to: '2026-03-05' },
      },
      idem(),
    );
    t.is(made.status, 200, JSON.stringify(made.body));
    await seedDemand(o, 'language', 40, NOW, 0.4, 24_05);
    await providerWithService(o, { externalId: 'fia', languageCodes: ['fr'], acceptsNewClients: false });
    served.fr = [1, 0];
    const week = (await adequacy(o, 'dimension=language&period=last_7_days')).body;
    t.is(
      week.rows.find((r: any) => r.value === 'fr').providers,
      1,
      'the new provider counts at once (a new graph version)',
    );
    await check(NOW, 'after new resolutions');

    // A day and two hours later today is a whole day: rolled up, summed into new runs, and those kept.
    const later = new Date(NOW.getTime() + DAY_MS + 2 * 3600_000);
    clock.set(later);
    try {
      await check(later, 'the next day');
      await seedDemand(o, 'language', 30, later, 0.05, 24_06);
      await check(later, 'the next day, after new resolutions');
      t.true(sums.size >= before + 2 * periods.length, `${sums.size} sums kept`);
    } finally {
      clock.set(NOW);
    }
  },
);
