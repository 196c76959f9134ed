import test from 'ava';
import { metricSample, untilMetricSample } from '../helpers/metric-sample.js';
import { connect, constants, type ClientHttp2Session, type ClientHttp2Stream } from 'node:http2';
import { credentials, status, type ServiceError } from '@grpc/grpc-js';
import { OrganizationServiceClient } from '../../src/gen/scheduling/v1/organization_service.js';
import { createGateway } from '../../src/gateway/create-gateway.js';
import { closeGrpcClients, createGrpcClients } from '../../src/gateway/grpc-clients.js';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ALL_ROUTES } from '../../src/contract/routes/all-routes.js';
import { createLogger } from '../../src/observability/create-logger.js';
import { createServiceMetrics } from '../../src/observability/service-metrics.js';
import { client } from '../helpers/http.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { decodeServiceError, errorCodeOfTrailers } from '../../src/grpc/error-metadata.js';
import { bearer } from '../helpers/typed-calls.js';

// A gRPC server running two direct calls at once, the rest queued with a short wait budget; its own gateway's requests
// count at the gateway only.
let svc: TestService;
test.before(async () => {
  // A wait budget long enough for the test to see a call waiting (it polls /metrics) on a loaded machine: at 400 ms the
  // queued call was once shed (load 12) before the poll read it waiting.
  svc = await startTestService({ env: { MAX_IN_FLIGHT_CALLS: '2', ADMISSION_MAX_WAIT_MS: '2000' } });
});
test.after.always(async () => {
  await svc?.stop();
});

/**
 * The grpc-status a call over a raw session ends with: from its trailers, or from its response headers when the server
 * answered at once without a body (a trailers-only refusal); undefined when the stream closed without one, so that a
 * test fails on it instead of waiting for ever.
 */
function grpcStatusOf(stream: ClientHttp2Stream): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    stream.on('response', (headers) => {
      if (headers['grpc-status'] !== undefined) resolve(String(headers['grpc-status']));
    });
    stream.on('trailers', (trailers) => resolve(trailers['grpc-status'] as string | undefined));
    stream.on('error', reject);
    stream.on('close', () => resolve(undefined));
  });
}

/** A ListOrganizations call whose request message is held back: the server has admitted it and waits for it. */
function holdCall(session: ClientHttp2Session): {
  stream: ClientHttp2Stream;
  status: Promise<string | undefined>;
  finish(): void;
} {
  const stream = session.request({
    [constants.HTTP2_HEADER_METHOD]: 'POST',
    [constants.HTTP2_HEADER_PATH]: '/scheduling.v1.OrganizationService/ListOrganizations',
    'content-type': 'application/grpc',
    te: 'trailers',
    authorization: `Bearer ${svc.platformKey}`,
  });
  stream.resume();
  const status = grpcStatusOf(stream);
  // A test that failed before finishing the call closes the session under it: that must not crash the process.
  status.catch(() => undefined);
  // One length-prefixed empty message: a ListOrganizations request with no field set.
  return { stream, status, finish: () => stream.end(Buffer.from([0, 0, 0, 0, 0])) };
}

/** The value of one sample of the service's GET /metrics. */
const metric = (sample: string) => metricSample(svc.url, sample);

/** Waits (bounded) until a metric sample reads `value`. */
const untilMetric = (sample: string, value: number) => untilMetricSample(svc.url, sample, value);

const platformBearer = () => bearer(svc.platformKey);

/** ListOrganizations through a grpc-js client: the error, or null. */
function listOrganizations(orgs: OrganizationServiceClient): Promise<ServiceError | null> {
  return new Promise((resolve) =>
    orgs.listOrganizations({}, platformBearer(), { deadline: Date.now() + 10_000 }, (err) => resolve(err)),
  );
}

/** grpc.health.v1.Health/Check over a raw session: the gRPC status it ends with. */
async function healthCheck(session: ClientHttp2Session): Promise<string | undefined> {
  const stream = session.request({
    [constants.HTTP2_HEADER_METHOD]: 'POST',
    [constants.HTTP2_HEADER_PATH]: '/grpc.health.v1.Health/Check',
    'content-type': 'application/grpc',
    te: 'trailers',
  });
  stream.end(Buffer.from([0, 0, 0, 0, 0]));
  stream.resume();
  return grpcStatusOf(stream);
}

test('beyond its limit a call waits its turn; past the wait budget it is answered UNAVAILABLE with the error trailers; health and its own gateway are served', async (t) => {
  const orgs = new OrganizationServiceClient(svc.grpcTarget, credentials.createInsecure());
  const session = connect(`http://${svc.grpcTarget}`);
  try {
    t.is(await listOrganizations(orgs), null);
    const held = [holdCall(session), holdCall(session)];
    let answered = false;
    void Promise.all(held.map((h) => h.status)).then(() => {
      answered = true;
    });
    await untilMetric('scheduling_admission_in_flight{gate="grpc"}', 2);

    // A third call waits in the queue, and starts as soon as a held call is answered.
    const third = holdCall(session);
    third.finish();
    await untilMetric('scheduling_admission_waiting{gate="grpc"}', 1);
    held[0]!.finish();
    t.is(await held[0]!.status, '0');
    t.is(await third.status, '0', 'the queued call was served, not refused');

    // With two held again, a call that cannot start within the budget is refused once the budget has passed.
    held[0] = holdCall(session);
    await untilMetric('scheduling_admission_in_flight{gate="grpc"}', 2);
    const started = Date.now();
    const shed = await listOrganizations(orgs);
    t.true(Date.now() - started >= 1950, 'it waited its budget');
    t.false(answered);
    t.is(shed?.code, status.UNAVAILABLE);
    t.is(errorCodeOfTrailers(shed?.metadata), 'SERVICE_UNAVAILABLE');
    t.is(decodeServiceError(shed!).retryAfter, 1);
    t.regex(String(shed?.metadata.get('x-service-request-id')[0]), /^req_/);
    t.is(await metric('scheduling_admission_shed_total{gate="grpc",reason="wait_budget"}'), 1);

    // Health checks are never shed, and this process's gateway is counted by its own limit only.
    t.is(await healthCheck(session), '0');
    t.is((await client(svc.url, svc.platformKey).get('/api/v2/organizations')).status, 200);

    // A gateway in another process is one caller among others: its call is shed, and its client gets 503 + Retry-After.
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
    });
    const server = createServer(app.callback());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    try {
      const remote = await client(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, svc.platformKey).get(
        '/api/v2/organizations',
      );
      t.is(remote.status, 503);
      t.is(remote.headers.get('retry-after'), '1');
      t.is(remote.body.error.code, 'SERVICE_UNAVAILABLE');
    } finally {
      server.close();
      server.closeAllConnections();
      closeGrpcClients(clients);
    }
    t.false(answered);

    // Once the held calls have their messages they are answered, and new calls are admitted again.
    for (const h of held) h.finish();
    t.deepEqual(await Promise.all(held.map((h) => h.status)), ['0', '0']);
    await untilMetric('scheduling_admission_in_flight{gate="grpc"}', 0);
    t.is(await listOrganizations(orgs), null);
  } finally {
    orgs.close();
    session.destroy();
  }
});
