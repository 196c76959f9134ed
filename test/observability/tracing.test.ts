import test from 'ava';
import { randomBytes, randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { createTracing, type Tracing } from '../../src/observability/create-tracing.js';
import { createLogger } from '../../src/observability/create-logger.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { createTestClock } from '../helpers/test-clock.js';
import { newOrganization, providerWithService } from '../helpers/graph-fixtures.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { client } from '../helpers/http.js';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGateway } from '../../src/gateway/create-gateway.js';
import { closeGrpcClients, createGrpcClients } from '../../src/gateway/grpc-clients.js';
import { ALL_ROUTES } from '../../src/contract/routes/all-routes.js';
import { createServiceMetrics } from '../../src/observability/service-metrics.js';
import { livePlatformKey } from '../helpers/live-platform-key.js';

const exporter = new InMemorySpanExporter();
let tracing: Tracing;
let svc: TestService;
let receiver: WebhookReceiver;
/** Every line the service logged, parsed. */
const logLines: Record<string, unknown>[] = [];
const clock = createTestClock('2026-03-02T12:00:00Z');

test.before(async () => {
  tracing = createTracing({ exporter, serviceName: 'scheduling-test', export: 'simple' });
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n')) if (line) logLines.push(JSON.parse(line));
      done();
    },
  });
  receiver = await startWebhookReceiver();
  svc = await startTestService({
    clock,
    tracing,
    logger: createLogger({ level: 'info', destination }),
    env: { WEBHOOK_ALLOW_INSECURE_URLS: '1' },
  });
});
test.after.always(async () => {
  await svc?.stop();
  await receiver?.stop();
  await tracing?.shutdown();
});

const hex = (bytes: number) => randomBytes(bytes).toString('hex');
const customer = { name: 'Pat Doe', email: 'pat.trace@example.com', timezone: 'America/New_York' };

/** The finished spans of trace `traceId`, once `ready` holds of them (spans of background work may end a little later). */
async function spansOf(traceId: string, ready: (spans: ReadableSpan[]) => boolean): Promise<ReadableSpan[]> {
  const until = Date.now() + 10_000;
  for (;;) {
    const spans = exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
    if (ready(spans) || Date.now() > until) return spans;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Whether `span` descends from the span `ancestorId` within `spans`. */
function descendsFrom(span: ReadableSpan, ancestorId: string, spans: ReadableSpan[]): boolean {
  const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]));
  for (let parent = span.parentSpanContext?.spanId; parent !== undefined; ) {
    if (parent === ancestorId) return true;
    parent = byId.get(parent)?.parentSpanContext?.spanId;
  }
  return false;
}

/** The spans as an indented tree (the test's log shows the trace). */
function treeOf(spans: ReadableSpan[]): string[] {
  const ids = new Set(spans.map((s) => s.spanContext().spanId));
  const lines: string[] = [];
  const walk = (parent: string | undefined, depth: number) => {
    for (const s of spans.filter((x) =>
      parent === undefined ? !ids.has(x.parentSpanContext?.spanId ?? '') : x.parentSpanContext?.spanId === parent,
    )) {
      lines.push(`${'  '.repeat(depth)}${s.name}`);
      walk(s.spanContext().spanId, depth + 1);
    }
  };
  walk(undefined, 0);
  return lines;
}

test('one confirm is one trace: REST span under the caller traceparent, its RPC span, SQL and Redis spans', async (t) => {
  const o = await newOrganization(svc, `trace-${randomUUID().slice(0, 8)}`);
  const p = await providerWithService(o, { externalId: 'p1', languageCodes: ['en'] });
  const r = await o.api.post(
    '/api/v2/resolutions',
    { serviceId: p.service.id, dateRange: { from: '2026-03-03', to: '2026-03-04' } },
    { 'idempotency-key': randomUUID() },
  );
  t.is(r.status, 200, JSON.stringify(r.body));
  const option = r.body.options[0];
  const hold = await o.api.post(`/api/v2/resolutions/${r.body.resolutionId}/options/${option.optionId}/hold`);
  t.is(hold.status, 200);

  const traceId = hex(16);
  const callerSpanId = hex(8);
  const confirmed = await o.api.post(
    `/api/v2/resolutions/${r.body.resolutionId}/confirm`,
    { optionId: option.optionId, holdId: hold.body.holdId, customer },
    { 'idempotency-key': randomUUID(), traceparent: `00-${traceId}-${callerSpanId}-01`, tracestate: 'caller=7' },
  );
  t.is(confirmed.status, 200, JSON.stringify(confirmed.body));

  // The REST span ends last of the request's own (the RPC's and the store's end within it).
  const spans = await spansOf(traceId, (s) => s.some((x) => x.kind === SpanKind.SERVER && x.name.startsWith('POST')));
  t.log(treeOf(spans).join('\n'));
  const rest = spans.find((s) => s.kind === SpanKind.SERVER && s.name === 'POST /api/v2/resolutions/:id/confirm');
  t.truthy(rest, `no REST span among ${spans.map((s) => s.name).join(', ')}`);
  t.is(rest!.parentSpanContext?.spanId, callerSpanId, 'the REST span is a child of the caller span');
  t.is(rest!.attributes['http.route'], '/api/v2/resolutions/:id/confirm');
  t.is(rest!.attributes['http.response.status_code'], 200);

  const rpcs = spans.filter((s) => s.attributes['rpc.system'] === 'grpc');
  t.deepEqual(
    rpcs.map((s) => s.name),
    ['scheduling.v1.ResolutionService/ConfirmResolution'],
  );
  const rpc = rpcs[0]!;
  t.is(rpc.kind, SpanKind.SERVER);
  t.is(rpc.parentSpanContext?.spanId, rest!.spanContext().spanId, 'the RPC span is a child of the REST span');
  t.is(rpc.attributes['rpc.grpc.status_code'], 0);
  t.is(rpc.spanContext().traceState?.get('caller'), '7', 'tracestate travels with the context through gRPC');

  const sql = spans.filter((s) => s.attributes['db.system'] === 'postgresql');
  const redis = spans.filter((s) => s.attributes['db.system'] === 'redis');
  t.true(sql.length >= 2, `SQL spans: ${sql.map((s) => s.name).join(', ')}`);
  t.true(redis.length >= 1, `Redis spans: ${redis.map((s) => s.name).join(', ')}`);
  for (const s of [...sql, ...redis]) {
    t.is(s.kind, SpanKind.CLIENT);
    t.true(descendsFrom(s, rpc.spanContext().spanId, spans), `${s.name} descends from the RPC span`);
  }
  // The confirm is one statement (confirm-booking-statement.ts): a WITH on bookings that inserts the booking.
  t.true(
    sql.some((s) => s.attributes['db.operation.name'] === 'WITH' && s.attributes['db.collection.name'] === 'bookings'),
    `the confirm statement's span among ${sql.map((s) => s.name).join(', ')}`,
  );
  t.true(sql.every((s) => s.attributes['db.namespace'] !== undefined && s.attributes['server.port'] !== undefined));
  t.true(redis.every((s) => s.name === s.attributes['db.operation.name'] && /^[A-Z]+$/.test(s.name)));

  // Never a parameter, a key or a customer's data in a span.
  const recorded = JSON.stringify(spans.map((s) => s.attributes));
  for (const secret of [customer.email, customer.name, o.key, hold.body.holdId])
    t.false(recorded.includes(secret), `${secret} is not in any span`);

  // The access-log line of the request names the trace.
  const line = logLines.find((l) => l.route === '/api/v2/resolutions/:id/confirm' && l.traceId === traceId);
  t.truthy(line, 'the access-log line carries the trace id');
});

test('every access-log line carries a trace id, a new trace when the request came without traceparent', async (t) => {
  const before = logLines.length;
  const res = await fetch(`${svc.url}/healthz`);
  t.is(res.status, 200);
  const garbled = await fetch(`${svc.url}/api/v2/organizations`, { headers: { traceparent: 'not-a-traceparent' } });
  t.is(garbled.status, 401);
  const lines = logLines.slice(before).filter((l) => l.door === 'rest');
  t.is(lines.length, 2);
  for (const l of lines) t.regex(String(l.traceId), /^[0-9a-f]{32}$/);
  t.not(lines[0]!.traceId, lines[1]!.traceId);
});

test('a webhook delivery is a trace of its own and carries traceparent to the receiver', async (t) => {
  const o = await newOrganization(svc, `trace-hook-${randomUUID().slice(0, 8)}`, { plan: 'launch' });
  const configured = await o.api.put('/api/v2/webhooks', { url: receiver.url, events: ['professional.created'] });
  t.is(configured.status, 200, JSON.stringify(configured.body));
  // A live key's change is delivered (a test key's is suppressed); providers are a platform key's to create.
  const platform = client(svc.url, await livePlatformKey(svc), { 'service-organization-id': o.org.id });
  const created = await platform.post('/api/v2/providers', { externalId: 'hooked', displayName: 'Dr. Hooked' });
  t.is(created.status, 200, JSON.stringify(created.body));

  const [delivery] = await receiver.waitFor(1, (r) => r.body?.organizationId === o.org.id);
  const header = String(delivery!.headers.traceparent);
  const m = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(header);
  t.truthy(m, `traceparent: ${header}`);
  const [, traceId, postSpanId] = m!;
  const spans = await spansOf(traceId!, (s) => s.some((x) => x.name === 'webhook delivery'));
  const job = spans.find((s) => s.name === 'webhook delivery');
  const post = spans.find((s) => s.spanContext().spanId === postSpanId);
  t.truthy(job);
  t.is(job!.parentSpanContext, undefined, 'a worker job starts its own trace');
  t.is(job!.attributes['webhook.event_type'], 'professional.created');
  t.truthy(post);
  t.is(post!.kind, SpanKind.CLIENT);
  t.is(post!.parentSpanContext?.spanId, job!.spanContext().spanId);
  t.is(post!.attributes['http.response.status_code'], 200);
  t.is(post!.attributes['server.address'], '127.0.0.1');
  t.true(
    spans.some((s) => s.attributes['db.system'] === 'postgresql' && descendsFrom(s, job!.spanContext().spanId, spans)),
    'recording the attempt is traced under the job',
  );
  // The receiver's signature check is untouched: traceparent is a header beside the signed ones.
  t.truthy(delivery!.headers['webhook-signature']);
});

test('"send a test" carries the trace of the request that asked for it', async (t) => {
  const o = await newOrganization(svc, `trace-test-${randomUUID().slice(0, 8)}`, { plan: 'launch' });
  t.is((await o.api.put('/api/v2/webhooks', { url: receiver.url, events: ['*'] })).status, 200);
  const traceId = hex(16);
  const sent = await o.api.post('/api/v2/webhooks/test', undefined, { traceparent: `00-${traceId}-${hex(8)}-01` });
  t.is(sent.status, 200, JSON.stringify(sent.body));
  t.true(sent.body.delivered);
  const [got] = await receiver.waitFor(
    1,
    (r) => r.body?.organizationId === o.org.id && r.body?.type === 'webhook.test',
  );
  t.regex(String(got!.headers.traceparent), new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
});

test('a gateway of its own process passes the context over the network: the RPC span is its child', async (t) => {
  const clients = createGrpcClients(svc.grpcTarget);
  const app = createGateway({
    routes: ALL_ROUTES,
    clients,
    streamClients: clients,
    ready: async () => true,
    logger: createLogger({ level: 'silent' }),
    metrics: createServiceMetrics(),
    openapi: () => ({}),
    capabilities: () => ({}),
    tracing,
  });
  const server = createServer(app.callback());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  try {
    const traceId = hex(16);
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v2/organizations`, {
      headers: { authorization: `Bearer ${svc.platformKey}`, traceparent: `00-${traceId}-${hex(8)}-01` },
    });
    t.is(res.status, 200);
    const spans = await spansOf(traceId, (s) => s.some((x) => x.name === 'GET /api/v2/organizations'));
    t.log(treeOf(spans).join('\n'));
    const rest = spans.find((s) => s.name === 'GET /api/v2/organizations');
    const rpc = spans.find((s) => s.name === 'scheduling.v1.OrganizationService/ListOrganizations');
    t.truthy(rest);
    t.truthy(rpc, 'the RPC span is in the same trace');
    t.is(rpc!.parentSpanContext?.spanId, rest!.spanContext().spanId);
    t.is(rpc!.parentSpanContext?.isRemote, true, 'its parent came over the wire, in metadata');
    const sql = spans.filter((s) => s.attributes['db.system'] === 'postgresql');
    t.true(sql.length >= 1, 'the list query is traced');
    for (const s of sql) t.true(descendsFrom(s, rpc!.spanContext().spanId, spans));
  } finally {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
    closeGrpcClients(clients);
  }
});
