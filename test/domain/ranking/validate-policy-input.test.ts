import test from 'ava';
import { validatePolicyInput } from '../../../src/domain/ranking/validate-policy-input.js';
import { DEFAULT_POLICY, withDefaultWeights } from '../../../src/domain/ranking/ranking-policy.js';

const valid = {
  name: 'Spanish first',
  weights: { preferredLanguage: 50, workloadBalance: 0 },
  tieBreakers: ['lowest_workload', 'provider_id'],
};

const cases: { title: string; input: unknown; partial?: boolean; fields: string[] }[] = [
  { title: 'valid body', input: valid, fields: [] },
  {
    title: 'all six keys and fractional weights',
    input: { ...valid, weights: { ...DEFAULT_POLICY.weights, preferredDayPart: 12.5 } },
    fields: [],
  },
  { title: 'empty tie-breakers are allowed', input: { ...valid, tieBreakers: [] }, fields: [] },
  { title: 'not an object', input: [], fields: ['(body)'] },
  { title: 'everything missing', input: {}, fields: ['name', 'weights', 'tieBreakers'] },
  { title: 'everything missing in a PATCH is fine', input: {}, partial: true, fields: [] },
  { title: 'blank name', input: { ...valid, name: '   ' }, fields: ['name'] },
  { title: 'name of 200 code points', input: { ...valid, name: '😀'.repeat(200) }, fields: [] },
  { title: 'name of 201 characters', input: { ...valid, name: 'x'.repeat(201) }, fields: ['name'] },
  { title: 'name not a string', input: { ...valid, name: 5 }, fields: ['name'] },
  {
    title: 'hard constraint languageCodes as weight',
    input: { ...valid, weights: { languageCodes: 10 } },
    fields: ['weights.languageCodes'],
  },
  {
    title: 'hard constraint insurance as weight',
    input: { ...valid, weights: { insurance: 10, preferredLanguage: 1 } },
    fields: ['weights.insurance'],
  },
  {
    title: 'unknown weight key',
    input: { ...valid, weights: { preferredSpecialty: 10 } },
    fields: ['weights.preferredSpecialty'],
  },
  {
    title: 'negative weight',
    input: { ...valid, weights: { preferredLanguage: -1 } },
    fields: ['weights.preferredLanguage'],
  },
  {
    title: 'string weight',
    input: { ...valid, weights: { preferredLanguage: '30' } },
    fields: ['weights.preferredLanguage'],
  },
  {
    title: 'infinite weight',
    input: { ...valid, weights: { preferredLanguage: Infinity } },
    fields: ['weights.preferredLanguage'],
  },
  {
    title: 'NaN weight',
    input: { ...valid, weights: { earliestAvailable: NaN } },
    fields: ['weights.earliestAvailable'],
  },
  { title: 'weights not an object', input: { ...valid, weights: [1, 2] }, fields: ['weights'] },
  {
    title: 'unknown tie-breaker',
    input: { ...valid, tieBreakers: ['earliest_start', 'latest_start'] },
    fields: ['tieBreakers.1'],
  },
  {
    title: 'duplicate tie-breaker',
    input: { ...valid, tieBreakers: ['provider_id', 'provider_id'] },
    fields: ['tieBreakers.1'],
  },
  { title: 'tie-breakers not an array', input: { ...valid, tieBreakers: 'provider_id' }, fields: ['tieBreakers'] },
];

for (const c of cases) {
  test(`validatePolicyInput: ${c.title}`, (t) => {
    const problems = validatePolicyInput(c.input, { partial: c.partial });
    t.deepEqual(
      problems.map((p) => p.field),
      c.fields,
    );
    t.true(problems.every((p) => p.code === 'VALIDATION_ERROR' && p.message.length > 0));
  });
}

test('a hard-constraint key gets a message that says why', (t) => {
  const [p] = validatePolicyInput({ ...valid, weights: { insurancePlanCodes: 3 } });
  t.regex(p?.message ?? '', /hard constraint/);
});

test('withDefaultWeights fills left-out keys from the default policy', (t) => {
  t.deepEqual(withDefaultWeights({ preferredLanguage: 0 }), { ...DEFAULT_POLICY.weights, preferredLanguage: 0 });
});
