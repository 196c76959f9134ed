import test from 'ava';
import { randomUUID } from 'node:crypto';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { createTestClock } from '../helpers/test-clock.js';
import { newOrganization, providerWithService } from '../helpers/graph-fixtures.js';
import { recordHandedOffReview } from '../helpers/review-recording.js';

let svc: TestService;
// Monday 2 March 2026, 07:00 in New York.
const clock = createTestClock('2026-03-02T12:00:00Z');
test.before(async () => {
  svc = await startTestService({ clock, env: { RESOLUTION_TTL_SECONDS: '300' } });
});
test.after.always(async () => {
  await svc?.stop();
});

const idem = () => ({ 'idempotency-key': randomUUID() });
const license = (region: string, extra: Record<string, unknown> = {}) => ({
  licenseTypeCode: 'psy',
  regionCode: region,
  status: 'active',
  expiresAt: '2030-01-01',
  verifiedAt: '2026-01-01T00:00:00Z',
  ...extra,
});

test('resolves eligible providers into ranked options with reasons, and excludes the rest with codes', async (t) => {
  const o = await newOrganization(svc, 'res-basic');
  const a = await providerWithService(o, {
    externalId: 'ana',
    languageCodes: ['es', 'en'],
    insurancePlanCodes: ['uhc'],
    licenseRecords: [license('US-NY')],
  });
  await providerWithService(o, {
    externalId: 'ben',
    languageCodes: ['en'],
    insurancePlanCodes: ['uhc'],
    licenseRecords: [license('US-NY')],
  });
  await providerWithService(
    o,
    { externalId: 'cat', languageCodes: ['es'], insurancePlanCodes: ['uhc'] },
    { schedule: null },
  );
  const r = await o.api.post(
    '/api/v2/resolutions',
    {
      serviceId: a.service.id,
      constraints: { languageCodes: { anyOf: ['ES'] }, insurancePlanCodes: { anyOf: ['UnitedHealthcare'] } },
      preferences: { earliestAvailable: true },
      dateRange: { from: '2026-03-02', to: '2026-03-05' },
    },
    idem(),
  );
  t.is(r.status, 200, JSON.stringify(r.body));
  t.is(r.body.status, 'resolved');
  t.regex(r.body.resolutionId, /^res_/);
  t.is(r.body.organizationId, o.org.id);
  t.deepEqual(r.body.policy, { id: 'default', version: 1 });
  t.true(r.body.options.length > 0 && r.body.options.length <= 10);
  t.true(r.body.options.every((opt: any) => opt.provider.id === a.provider.id));
  t.is(r.body.options.length, 3, 'maxOptionsPerProvider defaults to 3');
  const first = r.body.options[0];
  t.is(first.rank, 1);
  t.is(first.slot.timezone, 'America/New_York');
  t.is(first.slot.start, '2026-03-02T14:00:00.000Z', 'first free slot is 09:00 New York on the first day');
  t.is(first.availabilityStatus, 'verified_available');
  t.deepEqual(first.matchedConstraints.map((m: any) => m.code).sort(), ['INSURANCE_MATCH', 'LANGUAGE_MATCH']);
  t.deepEqual(first.matchedConstraints.find((m: any) => m.code === 'INSURANCE_MATCH').required, ['uhc']);
  // CONTRACT part 4: `actual` is all the provider's own normalized values for the field, `required` the request's.
  t.like(
    first.matchedConstraints.find((m: any) => m.code === 'LANGUAGE_MATCH'),
    { field: 'languageCodes', required: ['es'], actual: ['es', 'en'] },
  );
  t.true(typeof first.reason === 'string' && first.reason.includes('Dr. ana'));
  t.true(first.reason.includes('speaks Spanish') && !first.reason.includes('English'), first.reason);
  t.like(r.body.summary, { providersScanned: 3, eligibleProviders: 2, providersWithVerifiedAvailability: 1 });
  t.deepEqual(r.body.exclusionSummary, { LANGUAGE_MISMATCH: 1, NO_VERIFIED_AVAILABILITY: 1 });
  t.is(r.headers.get('x-service-request-id'), r.body.requestId);

  const read = await o.api.get(`/api/v2/resolutions/${r.body.resolutionId}`);
  t.is(read.status, 200);
  t.deepEqual(read.body.options, r.body.options);

  const cands = await o.api.get(`/api/v2/resolutions/${r.body.resolutionId}/candidates`);
  t.is(cands.status, 200);
  t.deepEqual(cands.body.summary, { total: 3, matched: 1, excluded: 2, unknown: 0 });
  t.is(cands.body.candidates[0].providerId, a.provider.id);
  t.like(
    cands.body.candidates[0].matchedConstraints.find((m: any) => m.code === 'LANGUAGE_MATCH'),
    { required: ['es'], actual: ['es', 'en'] },
  );
  const excluded = await o.api.get(
    `/api/v2/resolutions/${r.body.resolutionId}/candidates?exclusionCode=LANGUAGE_MISMATCH`,
  );
  t.is(excluded.body.candidates.length, 1);
  t.like(excluded.body.candidates[0].exclusions[0], {
    code: 'LANGUAGE_MISMATCH',
    field: 'languageCodes',
    required: ['es'],
    actual: ['en'],
  });

  const ev = await svc.service.deps.db.query(
    `SELECT data FROM events WHERE organization_id = $1 AND type = 'resolution.resolved'`,
    [o.org.id],
  );
  t.is(ev.rows[0]?.data.resolutionId, r.body.resolutionId);
});

test('idempotency: replay answers the first response, a different payload is 409, a missing key is 400', async (t) => {
  const o = await newOrganization(svc, 'res-idem');
  const a = await providerWithService(o, { externalId: 'solo', languageCodes: ['en'] });
  const body = { serviceId: a.service.id, dateRange: { from: '2026-03-02', to: '2026-03-04' } };
  const key = { 'idempotency-key': `k-${randomUUID()}` };
  const first = await o.api.post('/api/v2/resolutions', body, key);
  t.is(first.status, 200);
  const again = await o.api.post(
    '/api/v2/resolutions',
    { dateRange: { to: '2026-03-04', from: '2026-03-02' }, serviceId: a.service.id },
    key,
  );
  t.is(again.status, 200);
  t.is(again.body.resolutionId, first.body.resolutionId);
  t.is(again.headers.get('idempotent-replayed'), 'true');
  const other = await o.api.post(
    '/api/v2/resolutions',
    { ...body, dateRange: { from: '2026-03-02', to: '2026-03-05' } },
    key,
  );
  t.is(other.status, 409);
  t.is(other.body.error.code, 'IDEMPOTENCY_KEY_REUSED');
  const none = await o.api.post('/api/v2/resolutions', body);
  t.is(none.status, 400);
  t.is(none.body.error.code, 'IDEMPOTENCY_KEY_REQUIRED');
  const burstKey = { 'idempotency-key': `burst-${randomUUID()}` };
  const burst = await Promise.all(Array.from({ length: 8 }, () => o.api.post('/api/v2/resolutions', body, burstKey)));
  const ids = new Set(burst.filter((b) => b.status === 200).map((b) => b.body.resolutionId));
  t.is(ids.size, 1, 'concurrent duplicates make one resolution');
  t.true(burst.every((b) => b.status === 200 || b.body.error.code === 'IDEMPOTENCY_REQUEST_IN_PROGRESS'));
});

test.serial('expiry: after the TTL every access is 410 even before the timer fires', async (t) => {
  const o = await newOrganization(svc, 'res-exp');
  const a = await providerWithService(o, { externalId: 'exp' });
  const local = createTestClock(clock());
  void local;
  const r = await o.api.post(
    '/api/v2/resolutions',
    { serviceId: a.service.id, dateRange: { from: '2026-03-03', to: '2026-03-04' } },
    idem(),
  );
  t.is(r.status, 200);
  clock.advance(301_000);
  try {
    const read = await o.api.get(`/api/v2/resolutions/${r.body.resolutionId}`);
    t.is(read.status, 410);
    t.is(read.body.error.code, 'RESOLUTION_EXPIRED');
    t.is((await o.api.get(`/api/v2/resolutions/${r.body.resolutionId}/candidates`)).status, 410);
  } finally {
    clock.advance(-301_000);
  }
});

const badRanges: [string, unknown][] = [
  ['to before from', { from: '2026-03-05', to: '2026-03-02' }],
  ['same day', { from: '2026-03-05', to: '2026-03-05' }],
  ['15 days', { from: '2026-03-01', to: '2026-03-16' }],
  ['impossible date', { from: '2026-02-30', to: '2026-03-02' }],
  ['wrong format', { from: '03/02/2026', to: '2026-03-04' }],
];
for (const [name, dateRange] of badRanges) {
  test(`INVALID_DATE_RANGE: ${name}`, async (t) => {
    const o = await newOrganization(svc, `res-range-${name.replace(/\W/g, '')}`);
    const a = await providerWithService(o, { externalId: 'x' });
    const r = await o.api.post('/api/v2/resolutions', { serviceId: a.service.id, dateRange }, idem());
    t.is(r.status, 400);
    t.is(r.body.error.code, 'INVALID_DATE_RANGE');
  });
}

test('bad input: missing dateRange and serviceId are VALIDATION_ERROR; unknown service 404; other org 403', async (t) => {
  const o = await newOrganization(svc, 'res-bad');
  const other = await newOrganization(svc, 'res-bad-other');
  const b = await providerWithService(other, { externalId: 'b' });
  const a = await providerWithService(o, { externalId: 'a' });
  const cases: [unknown, number, string, string?][] = [
    [{ serviceId: a.service.id }, 400, 'VALIDATION_ERROR', 'dateRange'],
    [{ dateRange: { from: '2026-03-02', to: '2026-03-03' } }, 400, 'VALIDATION_ERROR', 'serviceId'],
    [
      {
        serviceId: a.service.id,
        dateRange: { from: '2026-03-02', to: '2026-03-03' },
        constraints: { languageCodes: ['es'] },
      },
      400,
      'VALIDATION_ERROR',
      'constraints.languageCodes',
    ],
    [
      {
        serviceId: a.service.id,
        dateRange: { from: '2026-03-02', to: '2026-03-03' },
        constraints: { modalityCodes: { anyOf: ['hologram'] } },
      },
      400,
      'VALIDATION_ERROR',
      'constraints.modalityCodes.anyOf.0',
    ],
    [
      { serviceId: a.service.id, dateRange: { from: '2026-03-02', to: '2026-03-03' }, maxOptionsPerProvider: 11 },
      400,
      'VALIDATION_ERROR',
      'maxOptionsPerProvider',
    ],
    [{ serviceId: 'svc_missing', dateRange: { from: '2026-03-02', to: '2026-03-03' } }, 404, 'SERVICE_NOT_FOUND'],
    [{ serviceId: b.service.id, dateRange: { from: '2026-03-02', to: '2026-03-03' } }, 403, 'FORBIDDEN'],
  ];
  for (const [body, status, code, field] of cases) {
    const r = await o.api.post('/api/v2/resolutions', body, idem());
    t.is(r.status, status, JSON.stringify(body));
    t.is(r.body.error.code, code);
    if (field) t.is(r.body.error.field, field);
  }
  const foreign = await o.api.post(
    '/api/v2/resolutions',
    { serviceId: a.service.id, dateRange: { from: '2026-03-02', to: '2026-03-03' } },
    idem(),
  );
  const cross = await other.api.get(`/api/v2/resolutions/${foreign.body.resolutionId}`);
  t.is(cross.status, 403);
  t.is((await o.api.get('/api/v2/resolutions/res_nope')).body.error.code, 'RESOLUTION_NOT_FOUND');
});

test('zero results explain themselves; unknown license data routes to manual review; 422 when no license matches', async (t) => {
  const o = await newOrganization(svc, 'res-zero');
  const a = await providerWithService(o, {
    externalId: 'z1',
    languageCodes: ['en'],
    licenseRecords: [license('US-NY', { verifiedAt: undefined })],
  });
  await providerWithService(o, {
    externalId: 'z2',
    languageCodes: ['en'],
    licenseRecords: [license('US-NY', { status: 'inactive' })],
  });
  const zero = await o.api.post(
    '/api/v2/resolutions',
    {
      serviceId: a.service.id,
      constraints: { languageCodes: { anyOf: ['de'] } },
      dateRange: { from: '2026-03-02', to: '2026-03-04' },
    },
    idem(),
  );
  t.is(zero.status, 200);
  t.is(zero.body.status, 'zero_results');
  t.deepEqual(zero.body.options, []);
  t.is(zero.body.totalProviders, 2);
  t.is(zero.body.zeroResultReasons[0].reasonCode, 'NO_LANGUAGE_MATCH');
  t.is(zero.body.zeroResultReasons[0].affectedProviders, 2);
  const lic = await o.api.post(
    '/api/v2/resolutions',
    {
      serviceId: a.service.id,
      constraints: { licenseRegionCodes: { anyOf: ['US-NY'] } },
      dateRange: { from: '2026-03-02', to: '2026-03-04' },
    },
    idem(),
  );
  t.is(lic.status, 422);
  t.is(lic.body.error.code, 'LICENSE_REGION_MISMATCH');
  t.is(lic.body.error.field, 'constraints.licenseRegionCodes');
  await recordHandedOffReview(svc);
  const review = await svc.service.deps.db.query(
    'SELECT provider_id, status, reasons FROM manual_review_entries WHERE organization_id = $1',
    [o.org.id],
  );
  t.is(review.rowCount, 1);
  t.is(review.rows[0].provider_id, a.provider.id);
  t.is(review.rows[0].reasons[0].code, 'LICENSE_UNVERIFIED');
});

test('v1 resolution takes a slug and plain values and carries v1 headers', async (t) => {
  const o = await newOrganization(svc, 'res-v1');
  await providerWithService(o, { externalId: 'v1a', languageCodes: ['es'] }, { title: 'Couples Therapy' });
  const r = await o.api.post('/api/v1/resolutions', {
    service: 'couples-therapy',
    constraints: { languages: 'es' },
    dateRange: { from: '2026-03-02', to: '2026-03-04' },
  });
  t.is(r.status, 200, JSON.stringify(r.body));
  t.is(r.body.status, 'resolved');
  t.is(r.headers.get('deprecation'), 'false');
});
