import test from 'ava';
import pg from 'pg';
import { metricSample, untilMetricSample } from '../helpers/metric-sample.js';
import { client, request, type JsonResponse } from '../helpers/http.js';
import { startTestService, type TestService } from '../helpers/test-service.js';

// A gateway running two requests at once, the rest queued; its wait budget is short so a test can see it pass.
let svc: TestService;
test.before(async () => {
  // A budget long enough for the probes and pages the first test reads while a request waits, short enough to be
  // waited out before the service's own bounds (lock and statement timeouts, 2 s and more) end the held requests.
  svc = await startTestService({ env: { MAX_IN_FLIGHT_REQUESTS: '2', ADMISSION_MAX_WAIT_MS: '1500' } });
  // openapi.json is built on its first request (its examples are dated from the day served): built here, not while a
  // request waits in the first test.
  await fetch(`${svc.url}/openapi.json`);
});
test.after.always(async () => {
  await svc?.stop();
});

/** The value of one sample of the service's GET /metrics. */
const metric = (sample: string) => metricSample(svc.url, sample);

/** Waits (bounded) until a metric sample reads `value`. */
const untilMetric = (sample: string, value: number) => untilMetricSample(svc.url, sample, value);

/**
 * Holds an organization's row locked in a transaction of the test's own, so PATCHes of it wait in PostgreSQL (up to the
 * service's lock timeout, 2 s): requests the gateway has admitted and works on until `release`.
 */
async function lockOrganization(organizationId: string) {
  const db = new pg.Client({ connectionString: svc.stores.databaseUrl });
  await db.connect();
  await db.query('BEGIN');
  await db.query('SELECT 1 FROM organizations WHERE id = $1 FOR UPDATE', [organizationId]);
  return {
    async release() {
      await db.query('COMMIT');
      await db.end();
    },
  };
}

/** Creates an organization to lock. */
async function newOrganization(externalId: string): Promise<string> {
  const created = await client(svc.url, svc.platformKey).post('/api/v2/organizations', {
    externalId,
    name: externalId,
  });
  if (created.status !== 200) throw new Error(`organization not created: ${created.status}`);
  return created.body.id as string;
}

/** PATCHes an organization's name (waits while the row is locked). */
const rename = (id: string, name: string): Promise<JsonResponse> =>
  client(svc.url, svc.platformKey).patch(`/api/v2/organizations/${id}`, { name });

test.serial(
  'beyond its limit a request waits its turn instead of being refused, and is answered once work drains',
  async (t) => {
    const id = await newOrganization('queued-org');
    const lock = await lockOrganization(id);
    const held = [rename(id, 'held a'), rename(id, 'held b')];
    await untilMetric('scheduling_admission_in_flight{gate="rest"}', 2);
    const shedBefore = (await metric('scheduling_admission_shed_total{gate="rest",reason="wait_budget"}')) ?? 0;

    // A third request queues; the probes, scrapes and pages are never queued or shed.
    const queued = client(svc.url, svc.platformKey).get('/api/v2/organizations');
    await untilMetric('scheduling_admission_waiting{gate="rest"}', 1);
    t.is((await request(svc.url, 'GET', '/healthz')).status, 200);
    t.is((await request(svc.url, 'GET', '/readyz')).status, 200);
    t.is((await request(svc.url, 'GET', '/openapi.json')).status, 200);
    t.is((await fetch(`${svc.url}/console`)).status, 200);

    await lock.release();
    const answers = await Promise.all([...held, queued]);
    t.deepEqual(
      answers.map((a) => a.status),
      [200, 200, 200],
    );
    t.true(answers[2]!.body.data.some((o: { id: string }) => o.id === id));
    t.is(
      (await metric('scheduling_admission_shed_total{gate="rest",reason="wait_budget"}')) ?? 0,
      shedBefore,
      'nothing refused',
    );
    await untilMetric('scheduling_admission_in_flight{gate="rest"}', 0);
    await untilMetric('scheduling_admission_waiting{gate="rest"}', 0);
  },
);

test.serial(
  'a request that cannot start within the wait budget is answered 503 with Retry-After in its envelope',
  async (t) => {
    const id = await newOrganization('budget-org');
    const lock = await lockOrganization(id);
    try {
      const held = [rename(id, 'held c'), rename(id, 'held d')];
      await untilMetric('scheduling_admission_in_flight{gate="rest"}', 2);
      const started = Date.now();
      const [shed, v1] = await Promise.all([
        client(svc.url, svc.platformKey).get('/api/v2/organizations'),
        client(svc.url, svc.platformKey).get('/api/v1/bookings'),
      ]);
      const waited = Date.now() - started;
      t.true(waited >= 1450, `waited its budget first (${waited} ms)`);
      t.is(shed.status, 503);
      t.is(shed.headers.get('retry-after'), '1');
      t.is(shed.body.error.code, 'SERVICE_UNAVAILABLE');
      t.true(shed.body.error.recoverable);
      t.is(shed.body.error.requestId, shed.headers.get('x-service-request-id'));
      t.is(shed.headers.get('ratelimit-limit'), null, 'refused before its key was checked: no RateLimit headers');
      // A v1 request gets the v1 envelope.
      t.is(v1.status, 503);
      t.deepEqual(Object.keys(v1.body.error).sort(), ['code', 'message', 'status']);
      t.true(((await metric('scheduling_admission_shed_total{gate="rest",reason="wait_budget"}')) ?? 0) >= 2);
      await lock.release();
      t.deepEqual(
        (await Promise.all(held)).map((a) => a.status),
        [200, 200],
      );
    } finally {
      await lock.release().catch(() => undefined);
    }
  },
);

test.serial('a queued request whose client goes away leaves the queue', async (t) => {
  const id = await newOrganization('gone-org');
  const lock = await lockOrganization(id);
  const held = [rename(id, 'held e'), rename(id, 'held f')];
  await untilMetric('scheduling_admission_in_flight{gate="rest"}', 2);
  const gone = new AbortController();
  const abandoned = fetch(`${svc.url}/api/v2/organizations`, {
    headers: { authorization: `Bearer ${svc.platformKey}` },
    signal: gone.signal,
  }).catch((err: Error) => err);
  await untilMetric('scheduling_admission_waiting{gate="rest"}', 1);
  gone.abort();
  await untilMetric('scheduling_admission_waiting{gate="rest"}', 0);
  t.true((await abandoned) instanceof Error);
  await lock.release();
  t.deepEqual(
    (await Promise.all(held)).map((a) => a.status),
    [200, 200],
  );
  await untilMetric('scheduling_admission_in_flight{gate="rest"}', 0);
});
