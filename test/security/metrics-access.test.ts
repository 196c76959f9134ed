import test from 'ava';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { client, request } from '../helpers/http.js';
import { startServiceProcess, type ServiceProcess } from '../helpers/service-process.js';
import { startTestStores, type TestStores } from '../helpers/test-service.js';

// Two `npm start` processes on one pair of stores: `plain` with the production defaults (no METRICS_TOKEN, no
// METRICS_PORT), `guarded` with a METRICS_TOKEN and a metrics listener of its own, as a Prometheus deployment runs it.
const platformKey = `service_test_${randomBytes(24).toString('base64url')}`;
const METRICS_TOKEN = randomBytes(32).toString('hex');
let stores: TestStores;
let plain: ServiceProcess;
let guarded: ServiceProcess;

/** Starts one service process with a data directory of its own. */
async function start(name: string, env: Record<string, string>): Promise<ServiceProcess> {
  const dataDir = join(process.env.TEST_DATA_DIR ?? '/tmp', `${name}-${randomBytes(4).toString('hex')}`);
  mkdirSync(dataDir, { recursive: true });
  return startServiceProcess({ databaseUrl: stores.databaseUrl, redisUrl: stores.redisUrl, platformKey, dataDir, env });
}

test.before(async () => {
  stores = await startTestStores();
  // One after the other: the first bootstraps the platform, the second finds it.
  plain = await start('metrics-plain', {});
  guarded = await start('metrics-guarded', { METRICS_TOKEN, METRICS_PORT: '0' });
});
test.after.always(async () => {
  await plain?.kill('SIGKILL');
  await guarded?.kill('SIGKILL');
  await stores?.stop();
});

/** Makes a service answer errors of several codes and a call of an organization, so the metrics have them to show. */
async function provokeErrors(url: string): Promise<string> {
  const p = client(url, platformKey);
  const org = (await p.post('/api/v2/organizations', { externalId: `m-${randomBytes(4).toString('hex')}`, name: 'M' }))
    .body;
  if (typeof org?.id !== 'string') throw new Error(`no organization: ${JSON.stringify(org)}`);
  await p.get(`/api/v2/organizations/${org.id}`);
  await p.get('/api/v2/providers?limit=abc'); // VALIDATION_ERROR
  await request(url, 'GET', '/api/v2/organizations'); // UNAUTHENTICATED
  await p.get('/api/v2/no-such-route'); // ROUTE_NOT_FOUND
  return org.id as string;
}

/** GET /metrics with an optional Authorization header: status, headers and text. */
async function scrape(url: string, authorization?: string) {
  const res = await fetch(`${url}/metrics`, authorization ? { headers: { authorization } } : {});
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** The METRICS_PORT listener's URL, from the banner the process printed. */
function metricsListenerOf(p: ServiceProcess): string {
  const port = /metrics: +http:\/\/127\.0\.0\.1:(\d+)\/metrics/.exec(p.output())?.[1];
  if (port === undefined) throw new Error(`the service printed no metrics listener:\n${p.output()}`);
  return `http://127.0.0.1:${port}`;
}

test('with the production defaults an anonymous scrape reads no errors by code and nothing about callers', async (t) => {
  const orgId = await provokeErrors(plain.url);
  const res = await scrape(plain.url);
  t.is(res.status, 200);
  t.regex(res.headers.get('content-type') ?? '', /^text\/plain/);
  t.notRegex(res.text, /errors_total/, 'no error counts');
  t.notRegex(res.text, /code="/, 'no error code label');
  t.notRegex(res.text, /outcome="/, 'no RPC outcomes (error codes)');
  t.notRegex(res.text, /route="|status="/, 'no routes or statuses of requests');
  t.notRegex(res.text, /resolution_phase|webhook_|email_outbox|import_jobs|timers_|audit_stream/, 'no queue contents');
  t.false(res.text.includes(orgId), 'no organization id');
  t.regex(res.text, /^process_cpu_seconds_total /m, 'process metrics stay');
  t.regex(res.text, /^scheduling_admission_in_flight\{gate="rest"\} \d+/m, 'load shedding stays visible');
  t.regex(res.text, /^scheduling_pg_pool_connections \d+/m);
});

test('with METRICS_TOKEN, /metrics on the API port answers 401 without the token or with a wrong one, 200 in full with it', async (t) => {
  await provokeErrors(guarded.url);
  const refusals = [
    undefined,
    'Bearer',
    `Bearer ${METRICS_TOKEN.slice(0, -1)}`,
    `Bearer ${METRICS_TOKEN}x`,
    `Basic ${Buffer.from(`x:${METRICS_TOKEN}`).toString('base64')}`,
    `Bearer ${platformKey}`,
  ];
  for (const authorization of refusals) {
    const res = await scrape(guarded.url, authorization);
    t.is(res.status, 401, String(authorization?.slice(0, 12)));
    const body = JSON.parse(res.text);
    t.like(body.error, { code: 'UNAUTHENTICATED', status: 401 });
    t.is(typeof body.error.requestId, 'string');
    t.is(res.headers.get('www-authenticate'), 'Bearer realm="metrics"');
    t.false(res.text.includes('scheduling_'), 'nothing of the exposition');
  }
  const ok = await scrape(guarded.url, `Bearer ${METRICS_TOKEN}`);
  t.is(ok.status, 200);
  t.regex(ok.text, /^scheduling_errors_total\{code="VALIDATION_ERROR"\} [1-9]/m);
  t.regex(ok.text, /^scheduling_errors_total\{code="UNAUTHENTICATED"\} [1-9]/m);
  t.regex(ok.text, /^scheduling_email_outbox_pending \d+/m);
});

test('METRICS_PORT serves the full exposition on a listener of its own, behind METRICS_TOKEN too', async (t) => {
  const url = metricsListenerOf(guarded);
  t.not(url, guarded.url);
  t.is((await scrape(url)).status, 401);
  t.is((await scrape(url, `Bearer ${METRICS_TOKEN.toUpperCase()}x`)).status, 401);
  const ok = await scrape(url, `Bearer ${METRICS_TOKEN}`);
  t.is(ok.status, 200);
  t.regex(ok.text, /^scheduling_http_request_duration_seconds_count\{/m);
  const other = await request(url, 'GET', '/api/v2/organizations', { key: platformKey });
  t.is(other.status, 404, 'the listener serves nothing of the API');
  t.is(other.body.error.code, 'ROUTE_NOT_FOUND');
});

test("the service's metrics carry the scheduling_ prefix; Node's process metrics keep their standard names", async (t) => {
  await provokeErrors(guarded.url);
  const { text } = await scrape(guarded.url, `Bearer ${METRICS_TOKEN}`);
  const names = [...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!);
  t.deepEqual(
    names.filter((n) => !/^(scheduling|process|nodejs)_/.test(n)),
    [],
    'every metric is the service own (scheduling_) or Node process one',
  );
  for (const name of [
    'scheduling_http_request_duration_seconds',
    'scheduling_rpc_duration_seconds',
    'scheduling_errors_total',
    'scheduling_admission_in_flight',
    'scheduling_admission_shed_total',
    'scheduling_pg_pool_connections',
    'scheduling_pg_pool_wait_seconds',
    'scheduling_redis_duration_seconds',
    'scheduling_timers_due',
    'scheduling_email_outbox_pending',
    'scheduling_inspector_actor_watchers',
    'process_cpu_seconds_total',
    'nodejs_eventloop_lag_seconds',
  ])
    t.true(names.includes(name), name);
});
