import test from 'ava';
import { metricSample, untilMetricSample } from '../helpers/metric-sample.js';
import { request as httpRequest } from 'node:http';
import { client, request } from '../helpers/http.js';
import { startTestService, type TestService } from '../helpers/test-service.js';

// A gateway admitting two requests at once, no burst beyond (the burst rule: test/admission/admission-gate.test.ts).
let svc: TestService;
test.before(async () => {
  svc = await startTestService({ env: { MAX_IN_FLIGHT_REQUESTS: '2', MAX_IN_FLIGHT_BURST: '2' } });
});
test.after.always(async () => {
  await svc?.stop();
});

/** A request held open: its headers and the first byte of its body are sent, the rest waits for `finish`. */
interface HeldRequest {
  answered: Promise<{ status: number; body: any }>;
  /** True once the response has begun. */
  isAnswered(): boolean;
  finish(): void;
}

/** POSTs an organization whose body arrives only when `finish` is called: the gateway works on it until then. */
function holdCreateOrganization(base: string, key: string, externalId: string): HeldRequest {
  const body = JSON.stringify({ externalId, name: `Held ${externalId}` });
  const req = httpRequest(`${base}/api/v2/organizations`, {
    method: 'POST',
    agent: false,
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
    },
  });
  let answered = false;
  const done = new Promise<{ status: number; body: any }>((resolve, reject) => {
    req.on('response', (res) => {
      answered = true;
      let text = '';
      res.on('data', (d: Buffer) => {
        text += d.toString();
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject);
  });
  req.write(body.slice(0, 1));
  return { answered: done, isAnswered: () => answered, finish: () => req.end(body.slice(1)) };
}

/** The value of one sample of the service's GET /metrics. */
const metric = (sample: string) => metricSample(svc.url, sample);

/** Waits (bounded) until a metric sample reads `value`. */
const untilMetric = (sample: string, value: number) => untilMetricSample(svc.url, sample, value);

test('beyond its limit the gateway answers 503 with Retry-After at once, never sheds /healthz, /readyz or /metrics, and admits again once the load drains', async (t) => {
  const api = client(svc.url, svc.platformKey);
  t.is((await api.get('/api/v2/organizations')).status, 200);
  const shedBefore = (await metric('scheduling_admission_shed_total{gate="rest"}')) ?? 0;

  const held = [
    holdCreateOrganization(svc.url, svc.platformKey, 'held-a'),
    holdCreateOrganization(svc.url, svc.platformKey, 'held-b'),
  ];
  await untilMetric('scheduling_admission_in_flight{gate="rest"}', 2);

  // The third request is answered while the two admitted ones are still waiting for their bodies.
  const shed = await api.get('/api/v2/organizations');
  t.false(held.some((h) => h.isAnswered()));
  t.is(shed.status, 503);
  t.is(shed.headers.get('retry-after'), '1');
  t.is(shed.body.error.code, 'SERVICE_UNAVAILABLE');
  t.is(shed.body.error.status, 503);
  t.true(shed.body.error.recoverable);
  t.is(shed.body.error.requestId, shed.headers.get('x-service-request-id'));
  // A v1 request gets the v1 envelope. An unknown route is no route's work: it is refused as usual, not shed.
  const v1 = await api.get('/api/v1/bookings');
  t.is(v1.status, 503);
  t.is(v1.headers.get('retry-after'), '1');
  t.deepEqual(Object.keys(v1.body.error).sort(), ['code', 'message', 'status']);
  t.is((await api.get('/api/v2/no-such-route')).status, 404);

  // What probes, scrapers and the console's pages call is never shed.
  t.is((await request(svc.url, 'GET', '/healthz')).status, 200);
  t.is((await request(svc.url, 'GET', '/readyz')).status, 200);
  t.is((await request(svc.url, 'GET', '/openapi.json')).status, 200);
  t.is((await fetch(`${svc.url}/console`)).status, 200);
  t.is(await metric('scheduling_admission_shed_total{gate="rest"}'), shedBefore + 2);
  t.false(held.some((h) => h.isAnswered()));

  // The held requests finish with their own answers; then the gateway admits again.
  for (const h of held) h.finish();
  const answers = await Promise.all(held.map((h) => h.answered));
  t.deepEqual(
    answers.map((a) => a.status),
    [200, 200],
  );
  await untilMetric('scheduling_admission_in_flight{gate="rest"}', 0);
  const after = await api.get('/api/v2/organizations');
  t.is(after.status, 200);
  t.true(after.body.data.some((o: { externalId: string }) => o.externalId === 'held-a'));
});
