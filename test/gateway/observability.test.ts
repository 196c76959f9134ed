import test from 'ava';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { buildCapabilities, buildOpenApi } from '../../src/contract/build-openapi.js';
import { ALL_ROUTES } from '../../src/contract/routes/all-routes.js';
import { createGateway } from '../../src/gateway/create-gateway.js';
import { closeGrpcClients, createGrpcClients, type GrpcClients } from '../../src/gateway/grpc-clients.js';
import { createLogger } from '../../src/observability/create-logger.js';
import { createServiceMetrics } from '../../src/observability/service-metrics.js';
import { findFreePort } from '../../src/launcher/find-free-port.js';
import { newOrganization, providerWithService } from '../helpers/graph-fixtures.js';
import { client, request } from '../helpers/http.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { scrapeMetrics, TEST_METRICS_TOKEN } from '../helpers/metric-sample.js';

/** A logger writing its JSON lines into memory. */
function memoryLogger() {
  const lines: Record<string, any>[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split('\n')) if (l) lines.push(JSON.parse(l));
      done();
    },
  });
  return { logger: createLogger({ level: 'info', destination }), lines };
}

const mem = memoryLogger();
let svc: TestService;
test.before(async () => {
  svc = await startTestService({ logger: mem.logger, env: { METRICS_TOKEN: TEST_METRICS_TOKEN } });
});
test.after.always(async () => {
  await svc?.stop();
});

/** Starts a gateway of its own in front of `clients` (e.g. an unreachable or strict gRPC target). */
async function gatewayOn(clients: GrpcClients, opts: { rpcDeadlineMs?: number } = {}) {
  const m = memoryLogger();
  const app = createGateway({
    routes: ALL_ROUTES,
    clients,
    streamClients: clients,
    ready: async () => true,
    logger: m.logger,
    metrics: createServiceMetrics(),
    ...opts,
    openapi: () => buildOpenApi(ALL_ROUTES, { version: 't', today: new Date() }),
    capabilities: () => buildCapabilities(ALL_ROUTES, { version: 't', limits: {} as never }),
  });
  const server: Server = createServer(app.callback());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    lines: m.lines,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
        closeGrpcClients(clients);
      }),
  };
}

test('every request leaves one access-log line: method, route template, status, duration, request id, correlation id, error code; never the key', async (t) => {
  const o = await newOrganization(svc, 'obs-log');
  const before = mem.lines.length;
  const ok = await o.api.get(`/api/v2/organizations/${o.org.id}`, { 'x-request-id': 'trace-abc-123' });
  const missing = await o.api.get('/api/v2/no-such-route');
  const invalid = await o.api.get('/api/v2/providers?limit=abc');
  const anonymous = await request(svc.url, 'GET', `/api/v2/organizations/${o.org.id}`, {
    headers: { 'x-request-id': 'has space' },
  });
  t.is(ok.status, 200);
  t.is(ok.headers.get('x-request-id'), 'trace-abc-123', 'the correlation id is echoed');
  t.is(anonymous.headers.get('x-request-id'), null, 'an unusable X-Request-Id is ignored');
  const ids = [ok, missing, invalid, anonymous].map((r) => r.headers.get('x-service-request-id'));
  const lines = mem.lines.slice(before).filter((l) => l.door === 'rest' && ids.includes(l.requestId));
  t.is(lines.length, 4, 'exactly one line per request');
  const byId = (r: { headers: Headers }) => lines.find((l) => l.requestId === r.headers.get('x-service-request-id'));
  t.like(byId(ok), {
    level: 'info',
    msg: 'request',
    method: 'GET',
    route: '/api/v2/organizations/:id',
    status: 200,
    correlationId: 'trace-abc-123',
  });
  t.is(typeof byId(ok)!.durationMs, 'number');
  t.is(byId(ok)!.errorCode, undefined);
  t.like(byId(missing), { route: 'unmatched', status: 404, errorCode: 'ROUTE_NOT_FOUND' });
  t.like(byId(invalid), { route: '/api/v2/providers', status: 400, errorCode: 'VALIDATION_ERROR' });
  t.like(byId(anonymous), { status: 401, errorCode: 'UNAUTHENTICATED' });
  t.false(JSON.stringify(mem.lines).includes(o.key), 'no line holds the API key');
});

test('console pages and assets are logged by their path, not as unmatched; without CORS_ORIGINS a preflight is no route', async (t) => {
  const before = mem.lines.length;
  const asset = await fetch(`${svc.url}/console/assets/console.css`);
  t.is(asset.status, 200);
  await asset.arrayBuffer();
  const page = await fetch(`${svc.url}/console/bookings/bkg_somewhere`);
  t.is(page.status, 200);
  await page.text();
  const missing = await fetch(`${svc.url}/console/assets/no-such-file.js`);
  t.is(missing.status, 404);
  await missing.arrayBuffer();
  const preflight = await fetch(`${svc.url}/api/v2/organizations`, {
    method: 'OPTIONS',
    headers: { origin: 'http://127.0.0.1:1', 'access-control-request-method': 'GET' },
  });
  t.is(preflight.status, 404);
  t.is(preflight.headers.get('access-control-allow-origin'), null);
  await preflight.arrayBuffer();
  const ids = [asset, page, missing, preflight].map((r) => r.headers.get('x-service-request-id'));
  const routes = ids.map((id) => mem.lines.slice(before).find((l) => l.requestId === id)?.route);
  t.deepEqual(routes, ['/console/assets/console.css', '/console', 'unmatched', 'unmatched']);
});

test('GET /metrics answers Prometheus text: request histogram by route template and status, errors by code, process metrics', async (t) => {
  const o = await newOrganization(svc, 'obs-metrics');
  await o.api.get(`/api/v2/organizations/${o.org.id}`);
  await o.api.get('/api/v2/providers?limit=abc');
  const res = await fetch(`${svc.url}/metrics`, { headers: { authorization: `Bearer ${TEST_METRICS_TOKEN}` } });
  t.is(res.status, 200);
  t.regex(res.headers.get('content-type') ?? '', /text\/plain/);
  const text = await res.text();
  t.regex(
    text,
    /scheduling_http_request_duration_seconds_count\{method="GET",route="\/api\/v2\/organizations\/:id",status="200"\} [1-9]/,
  );
  t.regex(text, /scheduling_errors_total\{code="VALIDATION_ERROR"\} [1-9]/);
  t.regex(text, /process_cpu_seconds_total/);
  for (const gauge of [
    'scheduling_pg_pool_connections',
    'scheduling_pg_pool_idle',
    'scheduling_pg_pool_waiting',
    'scheduling_timers_due',
    'scheduling_timers_leased',
    'scheduling_audit_stream_pending',
    'scheduling_review_stream_pending',
    'scheduling_import_jobs_pending',
    'scheduling_email_outbox_pending',
    'scheduling_webhook_events_undispatched',
    'scheduling_webhook_deliveries_due',
    'scheduling_webhook_deliveries_leased',
    'scheduling_pg_pool_wait_seconds_count',
    'scheduling_redis_duration_seconds_count\\{op="ratelimit"\\}',
  ])
    t.regex(text, new RegExp(`^${gauge} \\d+`, 'm'), gauge);
  t.false(text.includes(o.org.id), 'no organization id in any label');
});

test('an unreachable internal API is 503 SERVICE_UNAVAILABLE, recoverable, with Retry-After, and the failure is logged', async (t) => {
  const closed = await findFreePort();
  const gw = await gatewayOn(createGrpcClients(`127.0.0.1:${closed}`));
  try {
    const r = await client(gw.url, svc.platformKey).get('/api/v2/organizations');
    t.is(r.status, 503);
    t.like(r.body.error, { code: 'SERVICE_UNAVAILABLE', recoverable: true });
    t.is(r.headers.get('retry-after'), '1');
    const line = gw.lines.find((l) => l.requestId === r.headers.get('x-service-request-id'));
    t.like(line, { level: 'error', status: 503, errorCode: 'SERVICE_UNAVAILABLE' });
    t.regex(JSON.stringify(line?.err), /UNAVAILABLE/);
  } finally {
    await gw.close();
  }
});

test('a passed deadline and an answer over the transport limit are 503 SERVICE_UNAVAILABLE too, never 500', async (t) => {
  const late = await gatewayOn(createGrpcClients(svc.grpcTarget), { rpcDeadlineMs: 0 });
  const small = await gatewayOn(createGrpcClients(svc.grpcTarget, { 'grpc.max_receive_message_length': 16 }));
  try {
    for (const gw of [late, small]) {
      const r = await client(gw.url, svc.platformKey).get('/api/v2/organizations');
      t.is(r.status, 503, JSON.stringify(r.body));
      t.like(r.body.error, { code: 'SERVICE_UNAVAILABLE', recoverable: true });
      t.is(r.headers.get('retry-after'), '1');
    }
  } finally {
    await late.close();
    await small.close();
  }
});

test('a resolution records the time of each of its phases', async (t) => {
  const o = await newOrganization(svc, 'obs-phases');
  const { service } = await providerWithService(o, { externalId: 'phased', languageCodes: ['en'] });
  const from = new Date(svc.clock().getTime() + 86_400_000).toISOString().slice(0, 10);
  const to = new Date(Date.parse(from) + 7 * 86_400_000).toISOString().slice(0, 10);
  const r = await o.api.post(
    '/api/v2/resolutions',
    { serviceId: service.id, dateRange: { from, to } },
    { 'idempotency-key': `obs-${Date.now()}` },
  );
  t.is(r.status, 200, JSON.stringify(r.body));
  const text = await scrapeMetrics(svc.url, TEST_METRICS_TOKEN);
  for (const phase of ['context', 'graph', 'screen', 'busy', 'feeds', 'compute', 'store'])
    t.regex(text, new RegExp(`scheduling_resolution_phase_seconds_count\\{phase="${phase}"\\} [1-9]`), phase);
});
