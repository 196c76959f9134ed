import test from 'ava';
import {
  compileEligibilityRequest,
  evaluateProvider,
  evaluateProviders,
  isLicenseRegionRejection,
  reachedLicenseStep,
  summarizeEligibility,
} from '../../src/domain/eligibility.js';
import type { EligibilityRequest, ExclusionCode, ProviderEligibility } from '../../src/domain/eligibility.js';
import type { LicenseRecord, Provider } from '../../src/domain/provider.js';

const NOW = new Date('2025-06-15T12:00:00Z');
const DAY = 86_400_000;
const daysAgo = (n: number) => new Date(NOW.getTime() - n * DAY).toISOString();

function license(patch: Partial<LicenseRecord> = {}): LicenseRecord {
  return {
    licenseTypeCode: 'psy',
    regionCode: 'US-CA',
    status: 'active',
    expiresAt: '2026-06-30',
    verifiedAt: daysAgo(30),
    ...patch,
  };
}

function provider(patch: Partial<Provider> = {}): Provider {
  return {
    id: 'prv_1',
    organizationId: 'org_1',
    externalId: 'ext-1',
    displayName: 'Dr. Ana Ruiz',
    status: 'active',
    searchable: true,
    professionCode: 'psychologist',
    specialtyCodes: ['anxiety', 'depression'],
    languageCodes: ['en', 'es'],
    modalityCodes: ['virtual'],
    serviceRegionCodes: ['US-CA'],
    insurancePlanCodes: ['uhc', 'self_pay'],
    ageGroupCodes: ['adult'],
    licenseRecords: [license()],
    acceptsNewClients: true,
    panelCapacity: 10,
    panelCurrentCount: 3,
    profileVersion: 1,
    createdAt: '2025-01-01T00:00:00Z',
    updatedAt: '2025-01-01T00:00:00Z',
    ...patch,
  };
}

const FULL: EligibilityRequest = {
  serviceSlug: 'initial-consultation',
  professionCodes: ['psychologist'],
  specialtyCodes: ['anxiety'],
  ageGroupCodes: ['adult'],
  modalityCodes: ['virtual'],
  serviceRegionCodes: ['US-CA'],
  licenseRegionCodes: ['US-CA'],
  insurancePlanCodes: ['uhc'],
  languageCodes: ['es'],
  acceptsNewClients: true,
};

const compile = (request: EligibilityRequest = FULL) => compileEligibilityRequest(request, { now: NOW });
const evaluate = (p: Partial<Provider>, request: EligibilityRequest = FULL, offersService = true) =>
  evaluateProvider(provider(p), compile(request), offersService);
const codes = (r: ProviderEligibility) => r.exclusions.map((e) => `${e.code}:${e.status}`);

test('a provider meeting every constraint is matched with every constraint listed in pipeline order', (t) => {
  const r = evaluate({});
  t.is(r.status, 'matched');
  t.is(r.firstExclusionCode, null);
  t.deepEqual(r.exclusions, []);
  t.deepEqual(
    r.matchedConstraints.map((m) => m.code),
    [
      'PROFESSION_MATCH',
      'SPECIALTY_MATCH',
      'AGE_GROUP_MATCH',
      'MODALITY_MATCH',
      'SERVICE_REGION_MATCH',
      'LICENSE_REGION_MATCH',
      'INSURANCE_MATCH',
      'LANGUAGE_MATCH',
      'ACCEPTS_NEW_CLIENTS_MATCH',
    ],
  );
  const language = r.matchedConstraints.find((m) => m.code === 'LANGUAGE_MATCH');
  t.deepEqual(language, {
    code: 'LANGUAGE_MATCH',
    field: 'languageCodes',
    status: 'matched',
    required: ['es'],
    actual: ['en', 'es'],
    sourceStatus: 'self_reported',
    met: ['es'],
  });
  t.like(
    r.matchedConstraints.find((m) => m.code === 'ACCEPTS_NEW_CLIENTS_MATCH'),
    { field: 'acceptsNewClients', required: [true], actual: [true] },
  );
  t.like(
    r.matchedConstraints.find((m) => m.code === 'LICENSE_REGION_MATCH'),
    { field: 'licenseRegionCodes', sourceStatus: 'verified', required: ['US-CA'], actual: ['US-CA'] },
  );
  t.like(
    r.matchedConstraints.find((m) => m.code === 'PROFESSION_MATCH'),
    { field: 'professionCodes', actual: ['psychologist'] },
  );
  t.like(
    r.matchedConstraints.find((m) => m.code === 'INSURANCE_MATCH'),
    { field: 'insurancePlanCodes', required: ['uhc'], actual: ['uhc', 'self_pay'] },
  );
  t.deepEqual(r.warnings, []);
});

// CONTRACT part 4: `actual` is all of the provider's own normalized values for the field, `required` the request's.
const matchedActual: [
  code: string,
  patch: Partial<Provider>,
  request: EligibilityRequest,
  required: string[],
  actual: string[],
][] = [
  ['LANGUAGE_MATCH', { languageCodes: ['es', 'en'] }, { languageCodes: ['es'] }, ['es'], ['es', 'en']],
  [
    'LANGUAGE_MATCH',
    { languageCodes: ['en', 'fr', 'es'] },
    { languageCodes: ['es', 'fr'] },
    ['es', 'fr'],
    ['en', 'fr', 'es'],
  ],
  [
    'MODALITY_MATCH',
    { modalityCodes: ['virtual', 'in_person'] },
    { modalityCodes: ['virtual'] },
    ['virtual'],
    ['virtual', 'in_person'],
  ],
  [
    'INSURANCE_MATCH',
    { insurancePlanCodes: ['uhc', 'self_pay', 'bcbs'] },
    { insurancePlanCodes: ['bcbs'] },
    ['bcbs'],
    ['uhc', 'self_pay', 'bcbs'],
  ],
  [
    'SPECIALTY_MATCH',
    { specialtyCodes: ['anxiety', 'depression'] },
    { specialtyCodes: ['depression'] },
    ['depression'],
    ['anxiety', 'depression'],
  ],
  [
    'PROFESSION_MATCH',
    { professionCode: 'psychologist' },
    { professionCodes: ['psychologist', 'therapist'] },
    ['psychologist', 'therapist'],
    ['psychologist'],
  ],
  [
    'AGE_GROUP_MATCH',
    { ageGroupCodes: ['adult', 'senior'] },
    { ageGroupCodes: ['senior'] },
    ['senior'],
    ['adult', 'senior'],
  ],
  [
    'SERVICE_REGION_MATCH',
    { serviceRegionCodes: ['US', 'CA-ON'] },
    { serviceRegionCodes: ['US-CA'] },
    ['US-CA'],
    ['US', 'CA-ON'],
  ],
  [
    'ACCEPTS_NEW_CLIENTS_MATCH',
    { acceptsNewClients: true },
    { acceptsNewClients: true },
    [true as never],
    [true as never],
  ],
];

for (const [code, patch, request, required, actual] of matchedActual) {
  test(`${code}: actual lists all the provider's values (${actual.join(', ')}), required the request's`, (t) => {
    const r = evaluate(patch, request);
    t.is(r.status, 'matched');
    const m = r.matchedConstraints.find((c) => c.code === code);
    t.deepEqual(m?.required, required);
    t.deepEqual(m?.actual, actual);
  });
}

test("LICENSE_REGION_MATCH: actual lists the regions of all the provider's license records, valid or not", (t) => {
  const licensed = evaluate(
    {
      licenseRecords: [
        license(),
        license({ regionCode: 'US-NY' }),
        license({ regionCode: 'US-OR', status: 'revoked' }),
      ],
    },
    { licenseRegionCodes: ['US-OR', 'US-NY'] },
  );
  t.like(licensed.matchedConstraints[0], {
    code: 'LICENSE_REGION_MATCH',
    required: ['US-OR', 'US-NY'],
    actual: ['US-CA', 'US-NY', 'US-OR'],
    sourceStatus: 'verified',
  });
  // Only the valid record met it: that is what the option's reason names.
  t.deepEqual(licensed.matchedConstraints[0]?.met, ['US-NY']);
});

test('verdicts shared between providers are frozen', (t) => {
  const c = compile();
  const a = evaluateProvider(provider({ id: 'a', languageCodes: [] }), c);
  const b = evaluateProvider(provider({ id: 'b', languageCodes: [] }), c);
  t.is(a.exclusions[0], b.exclusions[0]);
  t.true(Object.isFrozen(a.exclusions[0]));
  t.true(Object.isFrozen(evaluateProvider(provider(), c).exclusions));
});

test('constraints that are not requested are not evaluated', (t) => {
  const r = evaluate({ languageCodes: [], professionCode: undefined, acceptsNewClients: false }, {});
  t.is(r.status, 'matched');
  t.deepEqual(r.matchedConstraints, []);
  t.deepEqual(r.exclusions, []);
});

const failing: [
  title: string,
  patch: Partial<Provider>,
  code: ExclusionCode,
  field: string,
  offersService?: boolean,
][] = [
  ['inactive', { status: 'inactive' }, 'PROVIDER_INACTIVE', 'status'],
  ['suspended', { status: 'suspended' }, 'PROVIDER_INACTIVE', 'status'],
  ['not searchable', { searchable: false }, 'NOT_SEARCHABLE', 'searchable'],
  ['service not offered', {}, 'SERVICE_NOT_OFFERED', 'serviceId', false],
  ['other profession', { professionCode: 'psychiatrist' }, 'PROFESSION_MISMATCH', 'professionCodes'],
  ['other specialty', { specialtyCodes: ['trauma'] }, 'SPECIALTY_MISMATCH', 'specialtyCodes'],
  ['other age group', { ageGroupCodes: ['child'] }, 'AGE_GROUP_MISMATCH', 'ageGroupCodes'],
  ['other modality', { modalityCodes: ['in_person'] }, 'MODALITY_MISMATCH', 'modalityCodes'],
  ['other service region', { serviceRegionCodes: ['US-NY'] }, 'SERVICE_REGION_MISMATCH', 'serviceRegionCodes'],
  [
    'license revoked',
    { licenseRecords: [license({ status: 'revoked' })] },
    'LICENSE_REGION_MISMATCH',
    'licenseRegionCodes',
  ],
  [
    'license expired',
    { licenseRecords: [license({ expiresAt: '2025-06-14' })] },
    'LICENSE_EXPIRED',
    'licenseRegionCodes',
  ],
  ['other insurance', { insurancePlanCodes: ['aetna'] }, 'INSURANCE_NOT_ACCEPTED', 'insurancePlanCodes'],
  ['panel full', { panelCapacity: 5, panelCurrentCount: 5 }, 'PANEL_FULL', 'panelCapacity'],
  ['panel over capacity', { panelCapacity: 5, panelCurrentCount: 7 }, 'PANEL_FULL', 'panelCapacity'],
  ['panel capacity zero', { panelCapacity: 0, panelCurrentCount: undefined }, 'PANEL_FULL', 'panelCapacity'],
  ['other language', { languageCodes: ['fr'] }, 'LANGUAGE_MISMATCH', 'languageCodes'],
  ['not accepting new clients', { acceptsNewClients: false }, 'NOT_ACCEPTING_NEW_CLIENTS', 'acceptsNewClients'],
];

for (const [title, patch, code, field, offersService] of failing) {
  test(`fails one constraint: ${title} -> ${code}`, (t) => {
    const r = evaluate(patch, FULL, offersService ?? true);
    t.is(r.status, 'excluded');
    t.is(r.firstExclusionCode, code);
    t.is(r.exclusions.length, 1);
    t.like(r.exclusions[0], { code, field, status: 'failed' });
  });
}

test('failed exclusions carry required and actual normalized values', (t) => {
  t.like(evaluate({ languageCodes: ['fr', 'de'] }).exclusions[0], {
    required: ['es'],
    actual: ['fr', 'de'],
    sourceStatus: 'self_reported',
  });
  t.like(evaluate({ acceptsNewClients: false }).exclusions[0], { required: [true], actual: [false] });
  t.like(evaluate({ panelCapacity: 5, panelCurrentCount: 5 }).exclusions[0], { required: [5], actual: [5] });
  t.like(evaluate({ status: 'inactive' }).exclusions[0], { required: ['active'], actual: ['inactive'] });
  t.like(evaluate({}, FULL, false).exclusions[0], { required: ['initial-consultation'], actual: [] });
  t.like(
    evaluate({
      licenseRecords: [
        license({ regionCode: 'US-NY' }),
        license({ regionCode: 'US-NY', status: 'inactive' }),
        license({ regionCode: 'US-OR' }),
      ],
    }).exclusions[0],
    {
      code: 'LICENSE_MISSING',
      required: ['US-CA'],
      actual: ['US-NY', 'US-OR'],
    },
  );
});

test('always-applied rules hold without any requested constraint', (t) => {
  t.deepEqual(
    codes(evaluate({ status: 'inactive', searchable: false, panelCapacity: 1, panelCurrentCount: 1 }, {}, false)),
    ['PROVIDER_INACTIVE:failed', 'NOT_SEARCHABLE:failed', 'SERVICE_NOT_OFFERED:failed', 'PANEL_FULL:failed'],
  );
});

test('absent panel capacity means unlimited', (t) => {
  t.is(evaluate({ panelCapacity: undefined, panelCurrentCount: 100_000 }).status, 'matched');
});

const unknowns: [title: string, patch: Partial<Provider>, code: ExclusionCode, field: string][] = [
  ['no profession', { professionCode: undefined }, 'PROFESSION_MISMATCH', 'professionCodes'],
  ['no specialties', { specialtyCodes: [] }, 'SPECIALTY_MISMATCH', 'specialtyCodes'],
  ['no age groups', { ageGroupCodes: [] }, 'AGE_GROUP_MISMATCH', 'ageGroupCodes'],
  ['no modalities', { modalityCodes: [] }, 'MODALITY_MISMATCH', 'modalityCodes'],
  ['no service regions', { serviceRegionCodes: [] }, 'SERVICE_REGION_MISMATCH', 'serviceRegionCodes'],
  ['no license records', { licenseRecords: [] }, 'LICENSE_MISSING', 'licenseRegionCodes'],
  ['no insurance plans', { insurancePlanCodes: [] }, 'INSURANCE_NOT_ACCEPTED', 'insurancePlanCodes'],
  ['no languages', { languageCodes: [] }, 'LANGUAGE_MISMATCH', 'languageCodes'],
  ['acceptsNewClients not stated', { acceptsNewClients: undefined }, 'NOT_ACCEPTING_NEW_CLIENTS', 'acceptsNewClients'],
];

for (const [title, patch, code, field] of unknowns) {
  test(`unknown data: ${title} -> ${code} unknown, never failed`, (t) => {
    const r = evaluate(patch);
    t.is(r.status, 'unknown');
    t.is(r.firstExclusionCode, code);
    t.is(r.exclusions.length, 1);
    t.like(r.exclusions[0], { code, field, status: 'unknown', sourceStatus: 'missing', actual: [] });
  });
}

test('a failed constraint makes the provider excluded even when another is unknown', (t) => {
  const r = evaluate({ languageCodes: [], insurancePlanCodes: ['aetna'] });
  t.is(r.status, 'excluded');
  t.deepEqual(codes(r), ['INSURANCE_NOT_ACCEPTED:failed', 'LANGUAGE_MISMATCH:unknown']);
  t.is(r.firstExclusionCode, 'INSURANCE_NOT_ACCEPTED');

  const earlierUnknown = evaluate({ professionCode: undefined, languageCodes: ['fr'] });
  t.is(earlierUnknown.status, 'excluded');
  t.is(earlierUnknown.firstExclusionCode, 'PROFESSION_MISMATCH');
});

test('every constraint is evaluated, and exclusions come in pipeline order', (t) => {
  const r = evaluate(
    { acceptsNewClients: false, languageCodes: ['fr'], status: 'inactive', modalityCodes: [], panelCapacity: 3 },
    FULL,
    false,
  );
  t.deepEqual(codes(r), [
    'PROVIDER_INACTIVE:failed',
    'SERVICE_NOT_OFFERED:failed',
    'MODALITY_MISMATCH:unknown',
    'PANEL_FULL:failed',
    'LANGUAGE_MISMATCH:failed',
    'NOT_ACCEPTING_NEW_CLIENTS:failed',
  ]);
  // Constraints that held are still reported as matched.
  t.true(r.matchedConstraints.some((m) => m.code === 'INSURANCE_MATCH'));
});

const anyOfCases: [title: string, patch: Partial<Provider>, request: EligibilityRequest, matched: boolean][] = [
  ['one of several languages suffices', { languageCodes: ['fr'] }, { languageCodes: ['de', 'fr'] }, true],
  ['none of several languages', { languageCodes: ['fr'] }, { languageCodes: ['de', 'it'] }, false],
  [
    'one of several insurance plans',
    { insurancePlanCodes: ['bcbs', 'cigna'] },
    { insurancePlanCodes: ['uhc', 'cigna'] },
    true,
  ],
  ['one of several professions', { professionCode: 'lcsw' }, { professionCodes: ['psychologist', 'lcsw'] }, true],
  ['either modality', { modalityCodes: ['in_person'] }, { modalityCodes: ['virtual', 'in_person'] }, true],
  [
    'served country covers a requested subdivision',
    { serviceRegionCodes: ['US'] },
    { serviceRegionCodes: ['US-CA'] },
    true,
  ],
  [
    'requested country met by a served subdivision',
    { serviceRegionCodes: ['US-NY'] },
    { serviceRegionCodes: ['US'] },
    true,
  ],
  [
    'other subdivision of the same country',
    { serviceRegionCodes: ['US-NY'] },
    { serviceRegionCodes: ['US-CA'] },
    false,
  ],
  ['other country', { serviceRegionCodes: ['CA'] }, { serviceRegionCodes: ['US-CA'] }, false],
  [
    'license in one of several regions',
    { licenseRecords: [license({ regionCode: 'US-NY' })] },
    { licenseRegionCodes: ['US-CA', 'US-NY'] },
    true,
  ],
  [
    'verified timestamps with milliseconds and offsets are read too',
    { licenseRecords: [license({ verifiedAt: '2025-01-01T09:00:00.123+02:00' })] },
    { licenseRegionCodes: ['US-CA'] },
    true,
  ],
  [
    'license region is exact: a country-wide request is not met by a state license',
    {},
    { licenseRegionCodes: ['US'] },
    false,
  ],
];

for (const [title, patch, request, matched] of anyOfCases) {
  test(`anyOf: ${title}`, (t) => {
    const r = evaluate(patch, request);
    t.is(r.status === 'matched', matched, JSON.stringify(r.exclusions));
    if (matched) t.is(r.matchedConstraints.length, 1);
  });
}

type LicenseCase = [
  title: string,
  records: LicenseRecord[],
  regions: string[],
  expected: string,
  sourceStatus: string,
  warning: boolean,
];
const licenseCases: LicenseCase[] = [
  [
    'expires today (valid through expiresAt)',
    [license({ expiresAt: '2025-06-15' })],
    ['US-CA'],
    'matched',
    'verified',
    true,
  ],
  ['expired yesterday', [license({ expiresAt: '2025-06-14' })], ['US-CA'], 'LICENSE_EXPIRED:failed', 'verified', false],
  ['expires in 30 days', [license({ expiresAt: '2025-07-15' })], ['US-CA'], 'matched', 'verified', true],
  ['expires in 31 days', [license({ expiresAt: '2025-07-16' })], ['US-CA'], 'matched', 'verified', false],
  ['no expiry date', [license({ expiresAt: undefined })], ['US-CA'], 'matched', 'verified', false],
  ['verified 365 days ago', [license({ verifiedAt: daysAgo(365) })], ['US-CA'], 'matched', 'verified', false],
  [
    'verified 365 days ago, with milliseconds',
    [license({ verifiedAt: daysAgo(365).replace('.000Z', '.001Z') })],
    ['US-CA'],
    'matched',
    'verified',
    false,
  ],
  [
    'verified 365 days and 1 second ago',
    [license({ verifiedAt: new Date(NOW.getTime() - 365 * DAY - 1000).toISOString().slice(0, 19) + 'Z' })],
    ['US-CA'],
    'LICENSE_UNVERIFIED:unknown',
    'stale',
    false,
  ],
  [
    'verified 366 days ago',
    [license({ verifiedAt: daysAgo(366) })],
    ['US-CA'],
    'LICENSE_UNVERIFIED:unknown',
    'stale',
    false,
  ],
  [
    'never verified',
    [license({ verifiedAt: undefined })],
    ['US-CA'],
    'LICENSE_UNVERIFIED:unknown',
    'self_reported',
    false,
  ],
  [
    'only a revoked record',
    [license({ status: 'revoked' })],
    ['US-CA'],
    'LICENSE_REGION_MISMATCH:failed',
    'verified',
    false,
  ],
  [
    'only inactive and pending records',
    [license({ status: 'inactive', verifiedAt: undefined }), license({ status: 'pending', verifiedAt: undefined })],
    ['US-CA'],
    'LICENSE_REGION_MISMATCH:failed',
    'self_reported',
    false,
  ],
  [
    'a record with status expired is non-active',
    [license({ status: 'expired' })],
    ['US-CA'],
    'LICENSE_REGION_MISMATCH:failed',
    'verified',
    false,
  ],
  [
    'a record only in another region',
    [license({ regionCode: 'US-NY' })],
    ['US-CA'],
    'LICENSE_MISSING:unknown',
    'missing',
    false,
  ],
  ['no records', [], ['US-CA'], 'LICENSE_MISSING:unknown', 'missing', false],
  [
    'expired active record wins over an unverified one (first rule that applies)',
    [license({ expiresAt: '2025-01-01' }), license({ verifiedAt: undefined })],
    ['US-CA'],
    'LICENSE_EXPIRED:failed',
    'verified',
    false,
  ],
  [
    'a valid record wins over an expired one',
    [license({ expiresAt: '2025-01-01' }), license()],
    ['US-CA'],
    'matched',
    'verified',
    false,
  ],
  [
    'an unverified active record beats an inactive one',
    [license({ status: 'inactive' }), license({ verifiedAt: undefined })],
    ['US-CA'],
    'LICENSE_UNVERIFIED:unknown',
    'self_reported',
    false,
  ],
  [
    'anyOf: one region unknown, one failed -> unknown',
    [license({ expiresAt: '2025-01-01' })],
    ['US-CA', 'US-NY'],
    'LICENSE_MISSING:unknown',
    'missing',
    false,
  ],
  [
    'anyOf: all failed -> earliest code in pipeline order',
    [license({ expiresAt: '2025-01-01' }), license({ regionCode: 'US-NY', status: 'revoked' })],
    ['US-CA', 'US-NY'],
    'LICENSE_REGION_MISMATCH:failed',
    'verified',
    false,
  ],
  [
    'anyOf: unverified and missing -> LICENSE_UNVERIFIED',
    [license({ regionCode: 'US-NY', verifiedAt: daysAgo(400) })],
    ['US-CA', 'US-NY'],
    'LICENSE_UNVERIFIED:unknown',
    'stale',
    false,
  ],
  [
    'anyOf: no warning while another region stays valid',
    [license({ expiresAt: '2025-06-20' }), license({ regionCode: 'US-NY' })],
    ['US-CA', 'US-NY'],
    'matched',
    'verified',
    false,
  ],
  [
    'anyOf: warning when every matching region expires soon',
    [license({ expiresAt: '2025-06-20' }), license({ regionCode: 'US-NY', expiresAt: '2025-06-25' })],
    ['US-CA', 'US-NY'],
    'matched',
    'verified',
    true,
  ],
];

for (const [title, records, regions, expected, sourceStatus, warning] of licenseCases) {
  test(`license: ${title}`, (t) => {
    const r = evaluate({ licenseRecords: records }, { licenseRegionCodes: regions });
    if (expected === 'matched') {
      t.is(r.status, 'matched', JSON.stringify(r.exclusions));
      t.like(r.matchedConstraints[0], { code: 'LICENSE_REGION_MATCH', sourceStatus, required: regions });
    } else {
      t.deepEqual(codes(r), [expected]);
      t.like(r.exclusions[0], { field: 'licenseRegionCodes', sourceStatus, required: regions });
    }
    t.is(r.warnings.length, warning ? 1 : 0);
    if (warning)
      t.like(r.warnings[0], { code: 'LICENSE_EXPIRING_SOON', providerId: 'prv_1', field: 'licenseRegionCodes' });
  });
}

test('the expiring-soon warning names the region and date of the latest matching license', (t) => {
  const r = evaluate(
    {
      licenseRecords: [license({ expiresAt: '2025-06-20' }), license({ regionCode: 'US-NY', expiresAt: '2025-06-25' })],
    },
    { licenseRegionCodes: ['US-CA', 'US-NY'] },
  );
  t.regex(r.warnings[0]?.message ?? '', /US-NY.*2025-06-25/);
});

test('an explicit today overrides the UTC date of now for expiry', (t) => {
  const c = compileEligibilityRequest({ licenseRegionCodes: ['US-CA'] }, { now: NOW, today: '2025-06-16' });
  const r = evaluateProvider(provider({ licenseRecords: [license({ expiresAt: '2025-06-15' })] }), c);
  t.deepEqual(codes(r), ['LICENSE_EXPIRED:failed']);
});

test('summarizeEligibility counts each excluded or unknown provider once under its first code', (t) => {
  const c = compile();
  const results = [
    evaluateProvider(provider({ id: 'a' }), c),
    evaluateProvider(provider({ id: 'b' }), c),
    evaluateProvider(provider({ id: 'c', languageCodes: ['fr'], insurancePlanCodes: ['aetna'] }), c),
    evaluateProvider(provider({ id: 'd', insurancePlanCodes: ['aetna'] }), c),
    evaluateProvider(provider({ id: 'e', languageCodes: [] }), c),
    evaluateProvider(provider({ id: 'f', status: 'inactive', languageCodes: ['fr'] }), c),
    evaluateProvider(provider({ id: 'g', professionCode: undefined, languageCodes: ['fr'] }), c),
  ];
  const s = summarizeEligibility(results);
  t.deepEqual(s, {
    providersScanned: 7,
    eligibleProviders: 2,
    excludedProviders: 4,
    unknownProviders: 1,
    exclusionSummary: { PROVIDER_INACTIVE: 1, PROFESSION_MISMATCH: 1, INSURANCE_NOT_ACCEPTED: 2, LANGUAGE_MISMATCH: 1 },
  });
  t.deepEqual(Object.keys(s.exclusionSummary), [
    'PROVIDER_INACTIVE',
    'PROFESSION_MISMATCH',
    'INSURANCE_NOT_ACCEPTED',
    'LANGUAGE_MISMATCH',
  ]);
});

const LICENSE_ONLY: EligibilityRequest = {
  licenseRegionCodes: ['US-CA'],
  modalityCodes: ['virtual'],
  languageCodes: ['es'],
};
const rejectionCases: [title: string, providers: Partial<Provider>[], request: EligibilityRequest, reject: boolean][] =
  [
    ['not requested', [{ licenseRecords: [] }], { languageCodes: ['es'] }, false],
    ['a provider that reached the step matched', [{}, { licenseRecords: [] }], LICENSE_ONLY, false],
    [
      'matched on license but failing a later step still counts',
      [{ languageCodes: ['fr'] }, { licenseRecords: [] }],
      LICENSE_ONLY,
      false,
    ],
    [
      'every provider reaching the step is missing a license',
      [{ licenseRecords: [] }, { licenseRecords: [license({ regionCode: 'US-NY' })] }],
      LICENSE_ONLY,
      true,
    ],
    [
      'expired and unverified licenses only',
      [
        { licenseRecords: [license({ expiresAt: '2025-01-01' })] },
        { licenseRecords: [license({ verifiedAt: undefined })] },
      ],
      LICENSE_ONLY,
      true,
    ],
    [
      'the only license match is on a provider excluded earlier',
      [{ modalityCodes: ['in_person'] }, { licenseRecords: [] }],
      LICENSE_ONLY,
      true,
    ],
    [
      'an earlier unknown also means the step was not reached',
      [{ modalityCodes: [] }, { licenseRecords: [] }],
      LICENSE_ONLY,
      true,
    ],
    [
      'no provider reached the step: zero result, not 422',
      [{ status: 'inactive', licenseRecords: [] }, { modalityCodes: ['in_person'] }],
      LICENSE_ONLY,
      false,
    ],
    ['no providers at all', [], LICENSE_ONLY, false],
  ];

for (const [title, patches, request, reject] of rejectionCases) {
  test(`422 LICENSE_REGION_MISMATCH rule: ${title}`, (t) => {
    const c = compile(request);
    const results = patches.map((p, i) => evaluateProvider(provider({ id: `p${i}`, ...p }), c));
    t.is(isLicenseRegionRejection(c, results), reject);
  });
}

test('reachedLicenseStep looks only at steps before the license step', (t) => {
  const c = compile();
  t.true(reachedLicenseStep(evaluateProvider(provider({ languageCodes: ['fr'], panelCapacity: 0 }), c)));
  t.false(reachedLicenseStep(evaluateProvider(provider({ serviceRegionCodes: ['US-NY'] }), c)));
  t.false(reachedLicenseStep(evaluateProvider(provider(), c, false)));
});

test('evaluateProviders judges the service step per provider', (t) => {
  const c = compile({ serviceSlug: 'intake' });
  const results = evaluateProviders([provider({ id: 'a' }), provider({ id: 'b' })], c, (p) => p.id === 'a');
  t.deepEqual(
    results.map((r) => [r.providerId, r.firstExclusionCode]),
    [
      ['a', null],
      ['b', 'SERVICE_NOT_OFFERED'],
    ],
  );
});

// Speed is measured by `npm run bench` (bench/compute-resolution-bench.ts), not here: a timed assertion in a unit test
// only measures how busy the machine is.
test('10,000 providers: each is judged, and the summary counts exactly those passing every constraint', (t) => {
  const providers = Array.from({ length: 10_000 }, (_, i) =>
    provider({
      id: `p${i}`,
      languageCodes: i % 3 === 0 ? ['fr'] : ['en', 'es'],
      insurancePlanCodes: i % 7 === 0 ? [] : ['uhc'],
      licenseRecords: [license({ regionCode: i % 5 === 0 ? 'US-NY' : 'US-CA' }), license({ regionCode: 'US-OR' })],
    }),
  );
  const results = evaluateProviders(providers, compile());
  const summary = summarizeEligibility(results);
  t.is(results.length, 10_000);
  t.is(summary.providersScanned, 10_000);
  t.is(summary.eligibleProviders, providers.filter((_, i) => i % 3 !== 0 && i % 7 !== 0 && i % 5 !== 0).length);
});
