import test from 'ava';
import { client } from '../helpers/http.js';
import { startTestService, type TestService } from '../helpers/test-service.js';

let svc: TestService;

const NOW = new Date('2026-04-01T12:00:00Z');
const daysAgo = (d: number) => new Date(NOW.getTime() - d * 24 * 3600 * 1000);

/** A platform client acting inside an organization. */
const platformIn = (orgId: string) => client(svc.url, svc.platformKey, { 'service-organization-id': orgId });

/** Makes a fresh organization with its own test key, one provider and one service. */
async function newOrg(externalId: string) {
  const p = client(svc.url, svc.platformKey);
  const org = (await p.post('/api/v2/organizations', { externalId, name: externalId })).body;
  const key = (
    await p.post('/api/v2/api-keys', { type: 'organization_test', organizationId: org.id, name: externalId })
  ).body.key as string;
  const provider = (
    await platformIn(org.id).post('/api/v2/providers', { externalId: `${externalId}-prov`, displayName: 'Dr. Metrics' })
  ).body;
  const service = (
    await platformIn(org.id).post('/api/v2/services', { providerId: provider.id, title: 'Visit', duration: 30 })
  ).body;
  return { org, key, provider, service };
}

type Org = Awaited<ReturnType<typeof newOrg>>;
let seq = 0;

/** Inserts a resolutions row as the resolution code does. */
async function resolution(
  o: Org,
  status: 'resolved' | 'zero_results',
  createdAt: Date,
  evaluatedSlots: number,
  bookingId: string | null = null,
) {
  const id = `res_test${++seq}`;
  await svc.service.deps.db.query(
    `INSERT INTO resolutions (id, platform_id, organization_id, status, request_id, service_slug, policy_id, policy_version, graph_version, options_returned, evaluated_slots, providers_scanned, booking_id, created_at, expires_at)
     VALUES ($1,$2,$3,$4,'req','visit','default',1,1,$5,$6,1,$7,$8,$9)`,
    [
      id,
      o.org.platformId,
      o.org.id,
      status,
      status === 'resolved' ? 1 : 0,
      evaluatedSlots,
      bookingId,
      createdAt,
      new Date(createdAt.getTime() + 300_000),
    ],
  );
  return id;
}

/** Inserts a bookings row. */
async function booking(o: Org, status: string, createdAt: Date, resolutionId: string | null = null) {
  const id = `bkg_test${++seq}`;
  const start = new Date(NOW.getTime() + seq * 3600_000);
  await svc.service.deps.db.query(
    `INSERT INTO bookings (id, platform_id, organization_id, provider_id, service_id, resolution_id, source, status, start_at, end_at, timezone, customer, mode, created_at, updated_at)
     VALUES ($1,$2,$3,$4,$5,$6,'v2',$7,$8,$9,'UTC',$10,'test',$11,$11)`,
    [
      id,
      o.org.platformId,
      o.org.id,
      o.provider.id,
      o.service.id,
      resolutionId,
      status,
      start,
      new Date(start.getTime() + 1800_000),
      JSON.stringify({ name: 'C', email: 'c@example.com' }),
      createdAt,
    ],
  );
  return id;
}

let main: Org;
let other: Org;

test.before(async () => {
  svc = await startTestService();
  svc.clock.set(NOW);
  main = await newOrg('an-main');
  other = await newOrg('an-other');

  const r1 = await resolution(main, 'resolved', daysAgo(1), 10);
  await resolution(main, 'resolved', daysAgo(10), 20, 'bkg_elsewhere');
  await resolution(main, 'zero_results', daysAgo(20), 1);
  await resolution(main, 'resolved', daysAgo(40), 100);
  await resolution(main, 'resolved', daysAgo(100), 7);
  await resolution(main, 'resolved', new Date(NOW.getTime() + 60_000), 7);
  await resolution(other, 'resolved', daysAgo(1), 500);

  await booking(main, 'confirmed', daysAgo(1), r1);
  await booking(main, 'completed', daysAgo(5));
  await booking(main, 'pending', daysAgo(2));
  await booking(main, 'cancelled', daysAgo(8));
  await booking(main, 'rescheduled', daysAgo(20));
  await booking(main, 'confirmed', daysAgo(60));
  await booking(other, 'cancelled', daysAgo(1));
});
test.after.always(async () => {
  await svc?.stop();
});

const expected: [string, string, unknown][] = [
  [
    'last_7_days',
    '?period=last_7_days',
    {
      resolutions: { total: 1, resolved: 1, zeroResults: 0, avgEvaluatedSlots: 10 },
      bookings: { total: 3, confirmed: 2, cancelled: 0, rescheduled: 0 },
      conversionRate: 1,
    },
  ],
  [
    'last_30_days (default)',
    '',
    {
      resolutions: { total: 3, resolved: 2, zeroResults: 1, avgEvaluatedSlots: 10.33 },
      bookings: { total: 5, confirmed: 2, cancelled: 1, rescheduled: 1 },
      conversionRate: 0.6667,
    },
  ],
  [
    'last_90_days',
    '?period=last_90_days',
    {
      resolutions: { total: 4, resolved: 3, zeroResults: 1, avgEvaluatedSlots: 32.75 },
      bookings: { total: 6, confirmed: 3, cancelled: 1, rescheduled: 1 },
      conversionRate: 0.5,
    },
  ],
];
for (const [title, query, body] of expected) {
  test(`analytics over ${title}`, async (t) => {
    const r = await client(svc.url, main.key).get(`/api/v2/analytics${query}`);
    t.is(r.status, 200);
    t.deepEqual(r.body, { ...(body as object), period: title.split(' ')[0] });
  });
}

test('an organization without activity answers zeros, not NaN', async (t) => {
  const empty = await client(svc.url, svc.platformKey).post('/api/v2/organizations', {
    externalId: 'an-empty',
    name: 'Empty',
  });
  const r = await platformIn(empty.body.id).get('/api/v2/analytics?period=last_7_days');
  t.deepEqual(r.body, {
    resolutions: { total: 0, resolved: 0, zeroResults: 0, avgEvaluatedSlots: 0 },
    bookings: { total: 0, confirmed: 0, cancelled: 0, rescheduled: 0 },
    conversionRate: 0,
    period: 'last_7_days',
  });
});

test('another organization sees only its own rows', async (t) => {
  const r = await client(svc.url, other.key).get('/api/v2/analytics?period=last_7_days');
  t.like(r.body, {
    resolutions: { total: 1, avgEvaluatedSlots: 500 },
    bookings: { total: 1, cancelled: 1 },
    conversionRate: 0,
  });
});

for (const bad of ['yesterday', 'last_8_days', 'LAST_7_DAYS', '']) {
  test(`period=${bad || '(empty)'} is 400 VALIDATION_ERROR on period`, async (t) => {
    const r = await client(svc.url, main.key).get(`/api/v2/analytics?period=${bad}`);
    t.is(r.status, 400);
    t.is(r.body.error.code, 'VALIDATION_ERROR');
    t.is(r.body.error.field, 'period');
  });
}
