import test from 'ava';
import { insurerName } from '../../../src/domain/ranking/insurer-name.js';
import { languageName } from '../../../src/domain/ranking/language-name.js';
import { optionReason } from '../../../src/domain/ranking/option-reason.js';
import type { RankingFactor } from '../../../src/domain/ranking/ranking-factor.js';

// Tue 3 Mar 2026 14:00 UTC = 9:00 AM in New York.
const START = Date.UTC(2026, 2, 3, 14);
const provider = {
  displayName: 'Dr. Ana Ruiz',
  languageCodes: ['es', 'en'],
  specialtyCodes: ['anxiety'],
  location: 'Brooklyn, NY',
};

function option(factors: RankingFactor[], isEarliestOpening = false, timezone = 'America/New_York') {
  return { slot: { start: START, end: START + 3_600_000, timezone }, rankingFactors: factors, isEarliestOpening };
}

test('the example sentence: language, insurance, earliest opening', (t) => {
  const s = optionReason(
    option([{ code: 'PREFERRED_LANGUAGE', points: 30 }], true),
    provider,
    [{ code: 'INSURANCE_MATCH', required: ['uhc'], actual: ['uhc', 'bcbs'] }],
    { languageCodes: ['es'] },
  );
  t.is(
    s,
    'Dr. Ana Ruiz speaks Spanish, accepts UnitedHealthcare and has the earliest opening on Tue 3 Mar at 9:00 AM (America/New_York).',
  );
});

const cases: {
  title: string;
  factors: RankingFactor[];
  constraints: { code: string; required?: unknown[]; actual?: unknown[] }[];
  prefs?: object;
  earliest?: boolean;
  expected: string;
}[] = [
  {
    title: 'only an opening',
    factors: [],
    constraints: [],
    expected: 'Dr. Ana Ruiz has an opening on Tue 3 Mar at 9:00 AM (America/New_York).',
  },
  {
    title: 'language from the hard constraint, self-pay',
    factors: [],
    constraints: [
      { code: 'LANGUAGE_MATCH', required: ['en', 'fr'], actual: ['es', 'en'] },
      { code: 'INSURANCE_MATCH', required: ['self_pay'], actual: ['self_pay'] },
    ],
    expected:
      'Dr. Ana Ruiz speaks English, accepts self-pay and has an opening on Tue 3 Mar at 9:00 AM (America/New_York).',
  },
  {
    title: 'continuity, specialty, location and a morning opening',
    factors: [
      { code: 'PROVIDER_CONTINUITY', points: 40 },
      { code: 'PREFERRED_SPECIALTY', points: 10 },
      { code: 'PREFERRED_LOCATION', points: 15 },
      { code: 'PREFERRED_DAY_PART', points: 15 },
    ],
    constraints: [],
    prefs: { specialtyCodes: ['anxiety'], dayParts: ['morning'] },
    expected:
      'Dr. Ana Ruiz has seen this client before, specializes in anxiety, is located in Brooklyn, NY and has a morning opening on Tue 3 Mar at 9:00 AM (America/New_York).',
  },
  {
    title: 'told in the preference timezone',
    factors: [],
    constraints: [{ code: 'MODALITY_MATCH', required: ['virtual'], actual: ['virtual'] }],
    prefs: { timezone: 'Europe/Berlin' },
    expected: 'Dr. Ana Ruiz offers virtual visits and has an opening on Tue 3 Mar at 3:00 PM (Europe/Berlin).',
  },
  {
    title: 'at most four clauses before the opening',
    factors: [{ code: 'PROVIDER_CONTINUITY', points: 40 }],
    constraints: [
      { code: 'LANGUAGE_MATCH', required: ['es'], actual: ['es'] },
      { code: 'INSURANCE_MATCH', required: ['bcbs', 'cigna'], actual: ['bcbs', 'cigna'] },
      { code: 'SPECIALTY_MATCH', required: ['grief'], actual: ['grief'] },
      { code: 'LICENSE_REGION_MATCH', required: ['US-NY'], actual: ['US-NY'] },
      { code: 'AGE_GROUP_MATCH', required: ['adult'], actual: ['adult'] },
    ],
    earliest: true,
    expected:
      'Dr. Ana Ruiz speaks Spanish, accepts Blue Cross Blue Shield and Cigna, has seen this client before, specializes in grief and has the earliest opening on Tue 3 Mar at 9:00 AM (America/New_York).',
  },
];

for (const c of cases) {
  test(`optionReason: ${c.title}`, (t) => {
    t.is(optionReason(option(c.factors, c.earliest ?? false), provider, c.constraints, c.prefs ?? {}), c.expected);
  });
}

test('language names for common codes', (t) => {
  const codes = ['en', 'es', 'fr', 'de', 'pt', 'zh', 'vi', 'ar', 'ko', 'ru', 'tl', 'hi'];
  t.deepEqual(codes.map(languageName), [
    'English',
    'Spanish',
    'French',
    'German',
    'Portuguese',
    'Chinese',
    'Vietnamese',
    'Arabic',
    'Korean',
    'Russian',
    'Tagalog',
    'Hindi',
  ]);
  t.is(languageName('so'), 'Somali');
  t.is(languageName('xx-nope'), 'xx-nope');
});

test('insurer names', (t) => {
  t.deepEqual(['bcbs', 'uhc', 'cigna', 'aetna', 'self_pay'].map(insurerName), [
    'Blue Cross Blue Shield',
    'UnitedHealthcare',
    'Cigna',
    'Aetna',
    'self-pay',
  ]);
  t.is(insurerName('blue_shield_ca'), 'Blue Shield Ca');
});
