import test from 'ava';
import {
  compileEligibilityRequest,
  evaluateProviders,
  isLicenseRegionRejection,
  summarizeEligibility,
  type EligibilityRequest,
} from '../../src/domain/eligibility.js';
import {
  buildEligibilityIndex,
  providerSetOf,
  screenEligibility,
} from '../../src/domain/eligibility/eligibility-index.js';
import type { LicenseRecord, Provider } from '../../src/domain/provider.js';
import { createSeededRandom } from '../helpers/seeded-random.js';

const NOW = new Date('2025-06-15T12:00:00Z');
const DAY = 86_400_000;

/** The shared seeded generator (a failure names a reproducible seed), plus `some`: up to `max` distinct elements. */
function random(seed: number) {
  const r = createSeededRandom(seed);
  return { ...r, some: <T>(xs: readonly T[], max = 3): T[] => r.sample(xs, r.int(0, Math.min(max, xs.length))) };
}

const LANGS = ['en', 'es', 'zh', 'vi', 'ko'];
const REGIONS = ['US', 'US-CA', 'US-NY', 'US-TX', 'CA', 'CA-ON', 'MX-CMX'];
const INSURERS = ['uhc', 'aetna', 'self_pay', 'cigna'];
const SPECIALTIES = ['anxiety', 'depression', 'trauma'];
const AGES = ['child', 'teen', 'adult'];
const PROFESSIONS = ['psychologist', 'counselor', ''];

function randomLicense(r: ReturnType<typeof random>): LicenseRecord {
  return {
    licenseTypeCode: 'psy',
    regionCode: r.pick(REGIONS.filter((x) => x.length > 2)),
    status: r.pick(['active', 'active', 'active', 'expired', 'pending', 'revoked'] as const),
    expiresAt: r.chance(0.1)
      ? undefined
      : new Date(NOW.getTime() + (r.next() * 400 - 60) * DAY).toISOString().slice(0, 10),
    verifiedAt: r.chance(0.2) ? undefined : new Date(NOW.getTime() - r.next() * 500 * DAY).toISOString(),
  };
}

function randomProvider(r: ReturnType<typeof random>, i: number): Provider {
  const capacity = r.chance(0.3) ? Math.floor(r.next() * 5) : undefined;
  return {
    id: `prv_${String(i).padStart(4, '0')}`,
    organizationId: 'org_1',
    externalId: `e${i}`,
    displayName: `P ${i}`,
    status: r.chance(0.05) ? 'inactive' : 'active',
    searchable: !r.chance(0.05),
    professionCode: r.chance(0.1) ? undefined : r.pick(PROFESSIONS),
    specialtyCodes: r.some(SPECIALTIES),
    languageCodes: r.some(LANGS),
    modalityCodes: r.some(['virtual', 'in_person'], 2),
    serviceRegionCodes: r.some(REGIONS),
    insurancePlanCodes: r.some(INSURERS),
    ageGroupCodes: r.some(AGES),
    licenseRecords: Array.from({ length: Math.floor(r.next() * 3) }, () => randomLicense(r)),
    acceptsNewClients: r.chance(0.15) ? undefined : !r.chance(0.1),
    panelCapacity: capacity,
    panelCurrentCount: capacity === undefined ? undefined : Math.floor(r.next() * 6),
    profileVersion: 1,
    createdAt: '2025-01-01T00:00:00Z',
    updatedAt: '2025-01-01T00:00:00Z',
  };
}

function randomRequest(r: ReturnType<typeof random>): EligibilityRequest {
  const maybe = <T>(xs: T[]) => (r.chance(0.5) ? xs : undefined);
  return {
    serviceSlug: 'intake',
    professionCodes: maybe(r.some(PROFESSIONS.filter(Boolean), 2)),
    specialtyCodes: maybe(r.some(SPECIALTIES, 2)),
    ageGroupCodes: maybe(r.some(AGES, 2)),
    modalityCodes: maybe(r.some(['virtual', 'in_person'], 1)),
    serviceRegionCodes: maybe(r.some(REGIONS, 2)),
    licenseRegionCodes: maybe(
      r.some(
        REGIONS.filter((x) => x.length > 2),
        2,
      ),
    ),
    insurancePlanCodes: maybe(r.some(INSURERS, 2)),
    languageCodes: maybe(r.some(LANGS, 2)),
    acceptsNewClients: r.chance(0.5) ? true : undefined,
  };
}

test('screening on bitsets gives the same verdicts, counts and 422 rule as evaluating every provider', (t) => {
  for (let seed = 1; seed <= 60; seed++) {
    const r = random(seed);
    const providers = Array.from({ length: 1 + Math.floor(r.next() * 150) }, (_, i) => randomProvider(r, i));
    const index = buildEligibilityIndex(providers);
    for (let q = 0; q < 10; q++) {
      const request = randomRequest(r);
      const offeringIds = new Set(providers.filter(() => !r.chance(0.1)).map((p) => p.id));
      const compiled = compileEligibilityRequest(request, { now: NOW });
      const expected = evaluateProviders(providers, compiled, (p) => offeringIds.has(p.id));
      const offering = providerSetOf(
        index,
        providers.flatMap((p, i) => (offeringIds.has(p.id) ? [i] : [])),
      );
      const screen = screenEligibility(index, compiled, offering);
      const where = `seed ${seed}, request ${q}: ${JSON.stringify(request)}`;
      t.deepEqual(
        screen.matched,
        expected.flatMap((e, i) => (e.status === 'matched' ? [i] : [])),
        `matched, ${where}`,
      );
      t.deepEqual(
        screen.unknown,
        expected.flatMap((e, i) => (e.status === 'unknown' ? [i] : [])),
        `unknown, ${where}`,
      );
      const summary = summarizeEligibility(expected);
      t.is(screen.excludedCount, summary.excludedProviders, `excluded, ${where}`);
      t.deepEqual(
        Object.entries(screen.exclusionSummary),
        Object.entries(summary.exclusionSummary),
        `exclusionSummary, ${where}`,
      );
      t.is(screen.licenseRegionRejected, isLicenseRegionRejection(compiled, expected), `422 rule, ${where}`);
    }
  }
});

test('screening an organization without providers matches nobody', (t) => {
  const index = buildEligibilityIndex([]);
  const screen = screenEligibility(
    index,
    compileEligibilityRequest({ languageCodes: ['en'] }, { now: NOW }),
    providerSetOf(index, []),
  );
  t.deepEqual(screen.matched, []);
  t.deepEqual(screen.unknown, []);
  t.deepEqual(screen.exclusionSummary, {});
});
