import test from 'ava';
import { createHash, randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { createTestClock } from '../helpers/test-clock.js';
import { newOrganization, providerWithService } from '../helpers/graph-fixtures.js';
import { payloadHash } from '../../src/application/idempotency.js';

let svc: TestService;
// Monday 2 March 2026, 07:00 in New York.
const clock = createTestClock('2026-03-02T12:00:00Z');
test.before(async () => {
  svc = await startTestService({ clock, env: { RESOLUTION_TTL_SECONDS: '300' } });
});
test.after.always(async () => {
  await svc?.stop();
});

/**
 * The answers POST /api/v1/resolutions gave on c930a30, when it had an RPC of its own (CreateResolutionV1), recorded
 * with RECORD_V1_ANSWERS=1: the v1 REST form mapped onto CreateResolution must answer each of them the same.
 */
const GOLDEN = new URL('../fixtures/v1-resolution-answers.json', import.meta.url);

const range = { from: '2026-03-02', to: '2026-03-04' };
const ok = (constraints: unknown, extra: Record<string, unknown> = {}) => ({
  service: 'couples-therapy',
  constraints,
  dateRange: range,
  ...extra,
});

/** v1 bodies and what they exercise: every v1 form and each way v1 refuses one. */
const CASES: Record<string, (f: Fixture) => unknown> = {
  'slug, one code as text': () => ok({ languages: 'es' }),
  'id, a list of codes': (f) => ({ ...ok({ languages: ['es', 'fr'] }), service: f.serviceId }),
  'v2 names, one code as text, upper case': () => ok({ languageCodes: 'ES' }),
  'both names: the v2 name wins': () => ok({ languages: 'en', languageCodes: ['es'] }),
  'an empty list is no constraint': () => ok({ languages: [] }),
  'an empty v2 list leaves the v1 one': () => ok({ languageCodes: [], languages: 'es' }),
  'license regions are ignored': () => ok({ licenseRegionCodes: ['US-ZZ'] }),
  'license regions of any JSON are ignored': () => ok({ licenseRegionCodes: 42 }),
  'every other constraint, one as text': () =>
    ok({
      modality: 'virtual',
      insurance: ['UnitedHealthcare'],
      specialty: 'couples',
      profession: ['psychologist'],
      ageGroupCodes: 'adult',
      serviceRegionCodes: ['US-NY'],
      acceptsNewClients: true,
    }),
  'their v2 names': () =>
    ok({
      modalityCodes: ['virtual'],
      insurancePlanCodes: 'uhc',
      specialtyCodes: ['couples'],
      professionCodes: 'psychologist',
    }),
  'preferences and maxOptionsPerProvider': () =>
    ok(undefined, { preferences: { dayParts: ['morning'], earliestAvailable: true }, maxOptionsPerProvider: 1 }),
  'an unknown constraint member is ignored': () => ok({ foo: 'bar', languages: 'es' }),
  'no constraints': () => ok(undefined),
  'service left out': () => ({ dateRange: range }),
  'service empty': () => ok(undefined, { service: '' }),
  'service too long': () => ok(undefined, { service: 'x'.repeat(201) }),
  'service a number': () => ok(undefined, { service: 7 }),
  'one invalid code as text': () => ok({ languages: 'not a language' }),
  'an invalid code in a list': () => ok({ languages: ['es', 'not a language'] }),
  'an invalid code under the v2 name': () => ok({ languageCodes: ['not a language'] }),
  'an invalid code under the losing name': () => ok({ languageCodes: ['es'], languages: ['not a language'] }),
  'a code of another JSON type': () => ok({ languages: 42 }),
  'a list item of another JSON type': () => ok({ modality: ['virtual', 7] }),
  'constraints not an object': () => ok('es'),
  'acceptsNewClients as text': () => ok({ acceptsNewClients: 'yes' }),
  'maxOptionsPerProvider 0': () => ok(undefined, { maxOptionsPerProvider: 0 }),
  'maxOptionsPerProvider 11': () => ok(undefined, { maxOptionsPerProvider: 11 }),
  'maxOptionsPerProvider 1.5': () => ok(undefined, { maxOptionsPerProvider: 1.5 }),
  'maxOptionsPerProvider as text': () => ok(undefined, { maxOptionsPerProvider: '2' }),
  'an unknown day part': () => ok(undefined, { preferences: { dayParts: ['night'] } }),
  'dateRange left out': () => ({ service: 'couples-therapy' }),
  'dateRange backwards': () => ok(undefined, { dateRange: { from: '2026-03-04', to: '2026-03-02' } }),
  'dateRange over 14 days': () => ok(undefined, { dateRange: { from: '2026-03-02', to: '2026-03-30' } }),
  'dateRange not dates': () => ok(undefined, { dateRange: { from: 1, to: 'x' } }),
  'an unknown service': () => ok(undefined, { service: 'no-such-service' }),
  "another organization's service": (f) => ok(undefined, { service: f.otherServiceId }),
  'a body that is a list': () => [ok(undefined)],
  'several problems at once': () => ({ service: '', constraints: { languages: ['??'] }, maxOptionsPerProvider: 0 }),
  'service too long and an invalid code': () => ok({ languages: ['??'] }, { service: 'x'.repeat(201) }),
  'codes given twice': () => ok({ languages: ['es', 'ES', 'es'] }),
};

interface Fixture {
  serviceId: string;
  otherServiceId: string;
  ids: Map<string, string>;
}

/** An answer with what differs from run to run (ids, request ids) named by what it is. */
function stable(value: unknown, ids: Map<string, string>): unknown {
  if (Array.isArray(value)) return value.map((v) => stable(v, ids));
  if (typeof value === 'string') return ids.get(value) ?? value;
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === 'resolutionId' || k === 'requestId' || k === 'optionId') out[k] = typeof v;
    else out[k] = stable(v, ids);
  }
  return out;
}

async function fixture(name: string) {
  const o = await newOrganization(svc, `${name}-${randomUUID().slice(0, 6)}`);
  const a = await providerWithService(
    o,
    {
      externalId: 'v1a',
      languageCodes: ['es', 'en'],
      modalityCodes: ['virtual'],
      insurancePlanCodes: ['uhc'],
      specialtyCodes: ['couples'],
      professionCode: 'psychologist',
      ageGroupCodes: ['adult'],
      serviceRegionCodes: ['US-NY'],
    },
    { title: 'Couples Therapy' },
  );
  const b = await providerWithService(o, { externalId: 'v1b', languageCodes: ['en'] }, { title: 'Couples Therapy' });
  const other = await newOrganization(svc, `${name}-other-${randomUUID().slice(0, 6)}`);
  const c = await providerWithService(other, { externalId: 'v1c' }, { title: 'Couples Therapy' });
  const ids = new Map<string, string>([
    [o.org.id, '<org>'],
    [a.provider.id, '<provider a>'],
    [b.provider.id, '<provider b>'],
    [a.service.id, '<service a>'],
    [b.service.id, '<service b>'],
    [c.service.id, '<other service>'],
  ]);
  return { o, f: { serviceId: a.service.id, otherServiceId: c.service.id, ids } satisfies Fixture };
}

test('POST /api/v1/resolutions answers every v1 form and refusal as it did with an RPC of its own', async (t) => {
  const { o, f } = await fixture('v1-parity');
  const answers: Record<string, unknown> = {};
  for (const [name, body] of Object.entries(CASES)) {
    const r = await o.api.post('/api/v1/resolutions', body(f));
    answers[name] = { status: r.status, deprecation: r.headers.get('deprecation'), body: stable(r.body, f.ids) };
  }
  if (process.env.RECORD_V1_ANSWERS === '1') {
    writeFileSync(GOLDEN, `${JSON.stringify(answers, null, 1)}\n`);
    t.pass();
    return;
  }
  const golden = JSON.parse(readFileSync(GOLDEN, 'utf8')) as Record<string, unknown>;
  for (const name of Object.keys(CASES)) t.deepEqual(answers[name], golden[name], name);
});

test('a v1 Idempotency-Key replays its answer, refuses another payload, and is apart from v2 keys', async (t) => {
  const { o, f } = await fixture('v1-idem');
  const key = { 'idempotency-key': randomUUID() };
  const first = await o.api.post('/api/v1/resolutions', ok({ languages: 'es' }), key);
  t.is(first.status, 200, JSON.stringify(first.body));
  t.is(first.headers.get('idempotent-replayed'), null);
  const replay = await o.api.post('/api/v1/resolutions', ok({ languages: 'es' }), key);
  t.is(replay.status, 200);
  t.is(replay.headers.get('idempotent-replayed'), 'true');
  t.deepEqual(replay.body, first.body);
  const reused = await o.api.post('/api/v1/resolutions', ok({ languages: 'en' }), key);
  t.is(reused.status, 409);
  t.is(reused.body.error.code, 'IDEMPOTENCY_KEY_REUSED');
  // The same key on v2 is a key of its own.
  const v2 = await o.api.post('/api/v2/resolutions', { serviceId: f.serviceId, dateRange: range }, key);
  t.is(v2.status, 200, JSON.stringify(v2.body));
  t.not(v2.body.resolutionId, first.body.resolutionId);
  t.is(v2.headers.get('idempotent-replayed'), null);
  // Without a key, each request is a resolution of its own.
  const a = await o.api.post('/api/v1/resolutions', ok({ languages: 'es' }));
  const b = await o.api.post('/api/v1/resolutions', ok({ languages: 'es' }));
  t.not(a.body.resolutionId, b.body.resolutionId);
  const long = await o.api.post('/api/v1/resolutions', ok(undefined), { 'idempotency-key': 'k'.repeat(256) });
  t.is(long.status, 400);
  t.is(long.body.error.message, 'Idempotency-Key must be at most 255 characters.');
});

test('an answer stored under a v1 key before v1 was mapped onto CreateResolution is replayed', async (t) => {
  const { o } = await fixture('v1-stored');
  const made = await o.api.post('/api/v1/resolutions', ok({ languages: 'es' }));
  t.is(made.status, 200);
  // As CreateResolutionV1 stored it: scoped to `v1-resolutions`, hashed over the v1 body with its codes as lists.
  const key = randomUUID();
  const stored = { ...made.body, requestId: 'req_stored_before' };
  const hash = payloadHash({ service: 'couples-therapy', constraints: { languages: ['es'] }, dateRange: range });
  const keyHash = createHash('sha256').update(key).digest('hex');
  await svc.service.deps.redis.set(
    `idem:{${o.org.id}}:v1-resolutions:${keyHash}`,
    JSON.stringify({ state: 'done', hash, response: stored }),
    { PX: 60_000 },
  );
  const replay = await o.api.post('/api/v1/resolutions', ok({ languages: 'es' }), { 'idempotency-key': key });
  t.is(replay.status, 200, JSON.stringify(replay.body));
  t.is(replay.headers.get('idempotent-replayed'), 'true');
  t.deepEqual(replay.body, stored);
  const other = await o.api.post('/api/v1/resolutions', ok({ languages: 'en' }), { 'idempotency-key': key });
  t.is(other.status, 409);
});
