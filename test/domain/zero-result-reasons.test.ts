import test from 'ava';
import { buildZeroResultReasons } from '../../src/domain/zero-result-reasons.js';
import type { ZeroResultInput } from '../../src/domain/zero-result-reasons.js';

const base: ZeroResultInput = {
  exclusionSummary: {},
  totalProviders: 10,
  eligibleProviders: 0,
  providersWithVerifiedAvailability: 0,
  dateRange: { from: '2025-06-16', to: '2025-06-23' },
};

const single: [code: keyof ZeroResultInput['exclusionSummary'], reason: string][] = [
  ['SERVICE_NOT_OFFERED', 'NO_SERVICE_MATCH'],
  ['PROFESSION_MISMATCH', 'NO_PROFESSION_MATCH'],
  ['SPECIALTY_MISMATCH', 'NO_SPECIALTY_MATCH'],
  ['AGE_GROUP_MISMATCH', 'NO_AGE_GROUP_MATCH'],
  ['MODALITY_MISMATCH', 'NO_MODALITY_MATCH'],
  ['SERVICE_REGION_MISMATCH', 'NO_SERVICE_REGION_MATCH'],
  ['INSURANCE_NOT_ACCEPTED', 'NO_INSURANCE_MATCH'],
  ['PANEL_FULL', 'NO_CAPACITY'],
  ['LANGUAGE_MISMATCH', 'NO_LANGUAGE_MATCH'],
  ['NOT_ACCEPTING_NEW_CLIENTS', 'NOT_ACCEPTING_NEW_CLIENTS'],
];

for (const [code, reason] of single) {
  test(`${code} becomes ${reason}`, (t) => {
    const reasons = buildZeroResultReasons({ ...base, exclusionSummary: { [code]: 4 } });
    t.is(reasons.length, 1);
    t.like(reasons[0], { reasonCode: reason, affectedProviders: 4 });
    t.regex(reasons[0]!.description, /^4 providers were left out because they /);
    t.true(reasons[0]!.suggestion.length > 10);
  });
}

test('reasons come in pipeline order and name the requested values', (t) => {
  const reasons = buildZeroResultReasons({
    ...base,
    exclusionSummary: { LANGUAGE_MISMATCH: 2, PROVIDER_INACTIVE: 1, INSURANCE_NOT_ACCEPTED: 1, MODALITY_MISMATCH: 6 },
    request: { languageCodes: ['es', 'fr'], insurancePlanCodes: ['uhc'] },
  });
  t.deepEqual(
    reasons.map((r) => [r.reasonCode, r.affectedProviders]),
    [
      ['NO_MODALITY_MATCH', 6],
      ['NO_INSURANCE_MATCH', 1],
      ['NO_LANGUAGE_MATCH', 2],
    ],
  );
  t.is(
    reasons[1]!.description,
    "1 provider was left out because they do not accept the client's insurance (uhc) or have no accepted plans on file.",
  );
  t.regex(reasons[2]!.description, /\(es or fr\)/);
});

test('eligible providers without free time give NO_AVAILABILITY_IN_RANGE', (t) => {
  const reasons = buildZeroResultReasons({
    ...base,
    eligibleProviders: 3,
    exclusionSummary: { LANGUAGE_MISMATCH: 7, NO_VERIFIED_AVAILABILITY: 3 },
  });
  t.deepEqual(
    reasons.map((r) => r.reasonCode),
    ['NO_LANGUAGE_MATCH', 'NO_AVAILABILITY_IN_RANGE'],
  );
  t.like(reasons[1], { affectedProviders: 3 });
  t.regex(reasons[1]!.description, /2025-06-16 and 2025-06-23/);
});

const windows: [from: string, to: string, narrow: boolean][] = [
  ['2025-06-16', '2025-06-17', true],
  ['2025-06-16', '2025-06-18', true],
  ['2025-06-16', '2025-06-19', false],
  ['2025-06-16', '2025-06-30', false],
];

for (const [from, to, narrow] of windows) {
  test(`a window ${from}..${to} ${narrow ? 'is' : 'is not'} too narrow`, (t) => {
    const reasons = buildZeroResultReasons({ ...base, eligibleProviders: 2, dateRange: { from, to } });
    const tooNarrow = reasons.find((r) => r.reasonCode === 'RANGE_TOO_NARROW');
    t.is(tooNarrow !== undefined, narrow);
    if (tooNarrow) {
      t.regex(tooNarrow.suggestion, /3 to 7 days/);
      t.is(tooNarrow.affectedProviders, 2);
    }
  });
}

test('a narrow window is not blamed when nobody is eligible', (t) => {
  const reasons = buildZeroResultReasons({
    ...base,
    exclusionSummary: { LANGUAGE_MISMATCH: 10 },
    dateRange: { from: '2025-06-16', to: '2025-06-17' },
  });
  t.deepEqual(
    reasons.map((r) => r.reasonCode),
    ['NO_LANGUAGE_MATCH'],
  );
});

test('when only steps without a reason code removed providers, NO_SERVICE_MATCH explains it', (t) => {
  const reasons = buildZeroResultReasons({
    ...base,
    totalProviders: 3,
    exclusionSummary: { PROVIDER_INACTIVE: 2, LICENSE_MISSING: 1 },
  });
  t.is(reasons.length, 1);
  t.like(reasons[0], { reasonCode: 'NO_SERVICE_MATCH', affectedProviders: 3 });
  t.regex(reasons[0]!.description, /2 providers are inactive.*1 provider has no valid, verified license/);
});

test('an organization without providers is told so', (t) => {
  const reasons = buildZeroResultReasons({ ...base, totalProviders: 0 });
  t.like(reasons[0], {
    reasonCode: 'NO_SERVICE_MATCH',
    affectedProviders: 0,
    description: 'The organization has no providers yet.',
  });
});
