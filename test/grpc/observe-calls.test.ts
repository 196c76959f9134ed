import test from 'ava';
import { Writable } from 'node:stream';
import { credentials, makeGenericClientConstructor, Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { OrganizationServiceClient } from '../../src/gen/scheduling/v1/organization_service.js';
import { createLogger } from '../../src/observability/create-logger.js';
import { client } from '../helpers/http.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { scrapeMetrics, TEST_METRICS_TOKEN } from '../helpers/metric-sample.js';
import { decodeServiceError, errorCodeOfTrailers } from '../../src/grpc/error-metadata.js';

const lines: Record<string, any>[] = [];
const destination = new Writable({
  write(chunk, _enc, done) {
    for (const l of String(chunk).split('\n')) if (l) lines.push(JSON.parse(l));
    done();
  },
});
let svc: TestService;
test.before(async () => {
  svc = await startTestService({
    logger: createLogger({ level: 'info', destination }),
    env: { METRICS_TOKEN: TEST_METRICS_TOKEN },
  });
});
test.after.always(async () => {
  await svc?.stop();
});

const metadata = (entries: Record<string, string>) => {
  const md = new Metadata();
  for (const [k, v] of Object.entries(entries)) md.set(k, v);
  return md;
};

test('a direct gRPC call leaves one log line (door grpc) and a sample in scheduling_rpc_duration_seconds; a REST call leaves no rpc line', async (t) => {
  const orgs = new OrganizationServiceClient(svc.grpcTarget, credentials.createInsecure());
  try {
    await new Promise<void>((resolve, reject) =>
      orgs.listOrganizations(
        {},
        metadata({
          authorization: `Bearer ${svc.platformKey}`,
          'x-service-request-id': 'req_direct_observed',
          'x-request-id': 'corr-1',
        }),
        (err) => (err ? reject(err) : resolve()),
      ),
    );
    const failed = await new Promise<ServiceError>((resolve) =>
      orgs.listOrganizations(
        {},
        metadata({ authorization: 'Bearer nope', 'x-service-request-id': 'req_direct_refused' }),
        (err) => resolve(err!),
      ),
    );
    t.is(failed.code, status.UNAUTHENTICATED);
  } finally {
    orgs.close();
  }
  const rest = await client(svc.url, svc.platformKey).get('/api/v2/organizations');
  t.like(
    lines.find((l) => l.requestId === 'req_direct_observed'),
    {
      level: 'info',
      msg: 'rpc',
      door: 'grpc',
      rpc: 'scheduling.v1.OrganizationService/ListOrganizations',
      code: 'OK',
      correlationId: 'corr-1',
    },
  );
  t.like(
    lines.find((l) => l.requestId === 'req_direct_refused'),
    { msg: 'rpc', door: 'grpc', code: 'UNAUTHENTICATED', errorCode: 'UNAUTHENTICATED' },
  );
  const restId = rest.headers.get('x-service-request-id');
  t.deepEqual(
    lines.filter((l) => l.requestId === restId).map((l) => l.msg),
    ['request'],
    'the gateway logs the REST call; the server adds no line of its own',
  );
  const text = await scrapeMetrics(svc.url, TEST_METRICS_TOKEN);
  t.regex(
    text,
    /scheduling_rpc_duration_seconds_count\{service="OrganizationService",method="ListOrganizations",outcome="OK"\} [1-9]/,
  );
  t.regex(
    text,
    /scheduling_rpc_duration_seconds_count\{service="OrganizationService",method="ListOrganizations",outcome="UNAUTHENTICATED"\} [1-9]/,
  );
});

test('a request message the server cannot decode is 400 VALIDATION_ERROR on field body, not a bare INTERNAL; it is logged', async (t) => {
  // A client that sends bytes which are not a valid request message of the method.
  const Raw = makeGenericClientConstructor(
    {
      ListOrganizations: {
        path: '/scheduling.v1.OrganizationService/ListOrganizations',
        requestStream: false,
        responseStream: false,
        requestSerialize: () => Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]),
        requestDeserialize: (b: Buffer) => b,
        responseSerialize: (b: Buffer) => b,
        responseDeserialize: (b: Buffer) => b,
      },
    },
    'Raw',
  );
  const raw = new Raw(svc.grpcTarget, credentials.createInsecure()) as unknown as {
    ListOrganizations(req: unknown, md: Metadata, cb: (err: ServiceError | null) => void): void;
    close(): void;
  };
  try {
    const err = await new Promise<ServiceError>((resolve) =>
      raw.ListOrganizations(
        {},
        metadata({ authorization: `Bearer ${svc.platformKey}`, 'x-service-request-id': 'req_garbled' }),
        (e) => resolve(e!),
      ),
    );
    t.is(err.code, status.INVALID_ARGUMENT);
    t.is(errorCodeOfTrailers(err.metadata), 'VALIDATION_ERROR');
    t.is(decodeServiceError(err).field, 'body');
  } finally {
    raw.close();
  }
  t.like(
    lines.find((l) => l.requestId === 'req_garbled'),
    { msg: 'rpc', door: 'grpc', code: 'INVALID_ARGUMENT', errorCode: 'VALIDATION_ERROR' },
  );
});
