import test from 'ava';
import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import {
  compileEligibilityRequest,
  evaluateProviders,
  isLicenseRegionRejection,
  summarizeEligibility,
  type EligibilityRequest,
  type ProviderEligibility,
} from '../../src/domain/eligibility.js';
import {
  buildEligibilityIndex,
  providerSetOf,
  screenEligibility,
  type EligibilityScreen,
} from '../../src/domain/eligibility/eligibility-index.js';
import { positions } from '../../src/domain/eligibility/provider-set.js';
import { reviewReasonOf, type ReviewReason } from '../../src/domain/eligibility/review-reason.js';
import type { LicenseRecord, Provider } from '../../src/domain/provider.js';

const DAY = 86_400_000;
const BASE = Date.parse('2026-03-01T12:00:00Z');
const REGIONS = ['US-CA', 'US-NY', 'US-TX', 'US-FL'];

/** A verifiedAt in one of the forms stored data may hold, or none; `at` is its instant. */
const verifiedAtArb = fc.oneof(
  { weight: 1, arbitrary: fc.constant(undefined) },
  {
    weight: 6,
    arbitrary: fc
      .record({
        daysAgo: fc.integer({ min: -5, max: 420 }),
        ms: fc.integer({ min: 0, max: DAY - 1 }),
        form: fc.constantFrom('seconds', 'millis', 'offset', 'garbage'),
      })
      .map(({ daysAgo, ms, form }) => {
        const at = new Date(BASE - daysAgo * DAY + ms);
        const iso = at.toISOString();
        if (form === 'seconds') return `${iso.slice(0, 19)}Z`;
        if (form === 'millis') return iso;
        // Same instant written with an offset (parsed with Date.parse), and a timestamp no parser reads.
        if (form === 'offset') return new Date(at.getTime() + 2 * 3600_000).toISOString().replace('Z', '+02:00');
        return 'last spring';
      }),
  },
);

const licenseArb: fc.Arbitrary<LicenseRecord> = fc.record({
  licenseTypeCode: fc.constant('psy'),
  regionCode: fc.constantFrom(...REGIONS),
  status: fc.constantFrom('active', 'active', 'active', 'inactive', 'expired', 'revoked', 'pending'),
  expiresAt: fc.option(
    fc.integer({ min: -40, max: 80 }).map((d) => new Date(BASE + d * DAY).toISOString().slice(0, 10)),
    { nil: undefined },
  ),
  verifiedAt: verifiedAtArb,
});

const providerArb = (i: number): fc.Arbitrary<Provider> =>
  fc
    .record({
      licenseRecords: fc.array(licenseArb, { maxLength: 4 }),
      languageCodes: fc.subarray(['en', 'es']),
      insurancePlanCodes: fc.subarray(['bcbs', 'uhc']),
      acceptsNewClients: fc.option(fc.boolean(), { nil: undefined }),
      inactive: fc.boolean(),
    })
    .map((p) => ({
      id: `prv_${String(i).padStart(3, '0')}`,
      organizationId: 'org_1',
      externalId: `e${i}`,
      displayName: `P ${i}`,
      status: p.inactive && i % 5 === 0 ? ('inactive' as const) : ('active' as const),
      searchable: true,
      specialtyCodes: [],
      languageCodes: p.languageCodes,
      modalityCodes: [],
      serviceRegionCodes: [],
      insurancePlanCodes: p.insurancePlanCodes,
      ageGroupCodes: [],
      licenseRecords: p.licenseRecords,
      acceptsNewClients: p.acceptsNewClients,
      profileVersion: 1,
      createdAt: '2025-01-01T00:00:00Z',
      updatedAt: '2025-01-01T00:00:00Z',
    }));

const graphArb = fc
  .integer({ min: 0, max: 70 })
  .chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => providerArb(i))))
  .map((providers) => providers as Provider[]);

const requestArb: fc.Arbitrary<EligibilityRequest> = fc.record({
  serviceSlug: fc.constant('intake'),
  licenseRegionCodes: fc.subarray(REGIONS, { minLength: 1, maxLength: 3 }),
  languageCodes: fc.option(fc.subarray(['en', 'es'], { minLength: 1 }), { nil: undefined }),
  insurancePlanCodes: fc.option(fc.constant(['bcbs']), { nil: undefined }),
  acceptsNewClients: fc.option(fc.constant(true), { nil: undefined }),
});

/**
 * The instants a request is judged at: around the base day, and at the edges the records' dates make (the day a
 * license expires and the day after, the instant a verification turns a year old and the millisecond after).
 */
function clocksOf(providers: readonly Provider[], offsets: readonly number[]): Date[] {
  const out = offsets.map((o) => new Date(BASE + o));
  for (const p of providers)
    for (const r of p.licenseRecords.slice(0, 1)) {
      if (r.expiresAt !== undefined) {
        const end = Date.parse(`${r.expiresAt}T00:00:00Z`);
        out.push(new Date(end + 3600_000), new Date(end + DAY + 3600_000));
      }
      const at = r.verifiedAt === undefined ? Number.NaN : Date.parse(r.verifiedAt);
      if (!Number.isNaN(at)) out.push(new Date(at + 365 * DAY), new Date(at + 365 * DAY + 1));
    }
  return out;
}

/** The manual-review rows `evaluateProvider`'s verdicts give (what resolutions recorded per provider before). */
function reviewRowsOfVerdicts(providers: readonly Provider[], verdicts: readonly ProviderEligibility[]) {
  return verdicts.flatMap((v, i) =>
    v.status === 'unknown'
      ? [
          {
            providerId: providers[i]!.id,
            reasons: v.exclusions.filter((x) => x.status === 'unknown').map((x) => reviewReasonOf(x)),
          },
        ]
      : [],
  );
}

/** The manual-review rows of a screening's groups, in provider order. */
function reviewRowsOfScreen(providers: readonly Provider[], screen: EligibilityScreen) {
  const rows: { providerId: string; reasons: readonly ReviewReason[]; at: number }[] = [];
  for (const g of screen.reviewGroups)
    for (const i of positions(g.providers)) rows.push({ providerId: providers[i]!.id, reasons: g.reasons, at: i });
  return rows.sort((a, b) => a.at - b.at).map(({ providerId, reasons }) => ({ providerId, reasons }));
}

/** What one screening answers, and what evaluating every provider gives for the same request and clock. */
function bothWays(
  providers: readonly Provider[],
  index: ReturnType<typeof buildEligibilityIndex>,
  request: EligibilityRequest,
  now: Date,
  range?: { from: string; to: string },
) {
  const compiled = compileEligibilityRequest(request, { now, range });
  const verdicts = evaluateProviders(providers, compiled);
  const screen = screenEligibility(index, compiled, providerSetOf(index, providers.keys()));
  const summary = summarizeEligibility(verdicts);
  return {
    byIndex: {
      matched: screen.matched,
      unknown: screen.unknown,
      exclusionSummary: Object.entries(screen.exclusionSummary),
      excluded: screen.excludedCount,
      licenseRegionRejected: screen.licenseRegionRejected,
      review: reviewRowsOfScreen(providers, screen),
      validThrough: [...screen.licenseValidThrough]
        .filter(([i]) => screen.matched.includes(i))
        .sort((a, b) => a[0] - b[0]),
    },
    perProvider: {
      matched: verdicts.flatMap((v, i) => (v.status === 'matched' ? [i] : [])),
      unknown: verdicts.flatMap((v, i) => (v.status === 'unknown' ? [i] : [])),
      exclusionSummary: Object.entries(summary.exclusionSummary),
      excluded: summary.excludedProviders,
      licenseRegionRejected: isLicenseRegionRejection(compiled, verdicts),
      review: reviewRowsOfVerdicts(providers, verdicts),
      // CONTRACT part 8: matched providers whose matching licence ends before the range's last date.
      validThrough: verdicts.flatMap((v, i): [number, string][] => {
        const through = v.licenseValidThrough?.expiresAt;
        return v.status === 'matched' &&
          through !== undefined &&
          compiled.rangeLastDate !== undefined &&
          through < compiled.rangeLastDate
          ? [[i, through]]
          : [];
      }),
    },
  };
}

/**
 * Every (clock, request) of a case, against one index of its graph, one at a time: a case reaches thousands of them,
 * and holding them all at once made the property spend most of its time collecting garbage.
 */
function* casesOf([providers, requests, offsets]: [Provider[], EligibilityRequest[], number[]]) {
  // One index per graph version, asked at many clocks: nothing in it may depend on the time it was built.
  const index = buildEligibilityIndex(providers);
  for (const now of clocksOf(providers, offsets))
    for (const request of requests) {
      // Without dates, and over a week starting a few days ahead (a licence may end before it or inside it).
      const day = (d: number) => new Date(now.getTime() + d * DAY).toISOString().slice(0, 10);
      const range = { from: day(3), to: day(10) };
      yield {
        where: `at ${now.toISOString()}, ${JSON.stringify(request)}`,
        ...bothWays(providers, index, request, now),
      };
      yield {
        where: `at ${now.toISOString()} over ${range.from}..${range.to}, ${JSON.stringify(request)}`,
        ...bothWays(providers, index, request, now, range),
      };
    }
}

const caseArb = fc.tuple(
  graphArb,
  fc.array(requestArb, { minLength: 1, maxLength: 4 }),
  fc.array(fc.integer({ min: -60 * DAY, max: 60 * DAY }), { minLength: 1, maxLength: 4 }),
);

test('license screening by index equals the per-provider rule at every clock, with the same review reasons', (t) => {
  // A property that holds vacuously proves nothing: the runs also note which verdicts and reasons they reached.
  const seen = new Set<string>();
  const note = (x: ReturnType<typeof bothWays>) => {
    for (const [code] of x.byIndex.exclusionSummary) seen.add(code);
    for (const row of x.byIndex.review) {
      for (const r of row.reasons) seen.add(r.detail.replace(/.*provider data /, 'data '));
      if (row.reasons.length > 1) seen.add('several reasons');
    }
    if (x.byIndex.licenseRegionRejected) seen.add('422');
    if (x.byIndex.validThrough.length > 0) seen.add('licence ending inside the range');
  };
  const result = fc.check(
    fc.property(caseArb, (c) => {
      for (const x of casesOf(c)) {
        note(x);
        if (!isDeepStrictEqual(x.byIndex, x.perProvider)) return false;
      }
      return true;
    }),
    { numRuns: 200 },
  );
  if (result.failed && result.counterexample)
    for (const x of casesOf(result.counterexample[0])) t.deepEqual(x.byIndex, x.perProvider, x.where);
  t.false(result.failed, fc.defaultReportMessage(result) ?? '');
  for (const expected of [
    'LICENSE_REGION_MISMATCH',
    'LICENSE_EXPIRED',
    'LICENSE_UNVERIFIED',
    'LICENSE_MISSING',
    'data stale',
    'data self_reported',
    'data missing',
    '422',
    'several reasons',
    'licence ending inside the range',
  ])
    t.true(seen.has(expected), `the runs reached ${expected}`);
});

test('a license expiring today matches, and is expired tomorrow; a verification a year and a millisecond old is stale', (t) => {
  const provider = (id: string, record: Partial<LicenseRecord>): Provider => ({
    id,
    organizationId: 'org_1',
    externalId: id,
    displayName: id,
    status: 'active',
    searchable: true,
    specialtyCodes: [],
    languageCodes: ['en'],
    modalityCodes: [],
    serviceRegionCodes: [],
    insurancePlanCodes: [],
    ageGroupCodes: [],
    licenseRecords: [{ licenseTypeCode: 'psy', regionCode: 'US-CA', status: 'active', ...record }],
    profileVersion: 1,
    createdAt: '2025-01-01T00:00:00Z',
    updatedAt: '2025-01-01T00:00:00Z',
  });
  const verifiedAt = '2025-03-01T12:00:00Z';
  const providers = [
    provider('prv_a', { expiresAt: '2026-03-01', verifiedAt: '2026-01-01T00:00:00Z' }),
    provider('prv_b', { expiresAt: '2027-01-01', verifiedAt }),
  ];
  const index = buildEligibilityIndex(providers);
  const offering = providerSetOf(index, [0, 1]);
  const at = (iso: string) => {
    const screen = screenEligibility(
      index,
      compileEligibilityRequest({ licenseRegionCodes: ['US-CA'] }, { now: new Date(iso) }),
      offering,
    );
    return { matched: screen.matched, summary: screen.exclusionSummary, review: reviewRowsOfScreen(providers, screen) };
  };
  // 2026-03-01T12:00Z is 365 days after the verification, and the day prv_a's license is valid through.
  const verifiedSince = '2026-03-01T12:00:00.000Z';
  t.deepEqual(at(verifiedSince), { matched: [0, 1], summary: {}, review: [] });
  const staleReview = [
    {
      providerId: 'prv_b',
      reasons: [
        { code: 'LICENSE_UNVERIFIED', field: 'licenseRegionCodes', detail: 'required ["US-CA"]; provider data stale' },
      ],
    },
  ];
  t.deepEqual(at('2026-03-01T12:00:00.001Z'), {
    matched: [0],
    summary: { LICENSE_UNVERIFIED: 1 },
    review: staleReview,
  });
  t.deepEqual(at('2026-03-02T00:00:00.000Z'), {
    matched: [],
    summary: { LICENSE_EXPIRED: 1, LICENSE_UNVERIFIED: 1 },
    review: staleReview,
  });
});
