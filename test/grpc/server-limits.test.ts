import test from 'ava';
import { connect, constants, type ClientHttp2Session } from 'node:http2';
import { once } from 'node:events';
import { credentials, status, type ServiceError } from '@grpc/grpc-js';
import { OrganizationServiceClient } from '../../src/gen/scheduling/v1/organization_service.js';
import { GRPC_CHANNEL_OPTIONS } from '../../src/grpc/grpc-channel-options.js';
import { closeGrpcClients, createGrpcClients } from '../../src/gateway/grpc-clients.js';
import { client } from '../helpers/http.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { errorCodeOfTrailers } from '../../src/grpc/error-metadata.js';
import { bearer } from '../helpers/typed-calls.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
});

const MAX_REQUEST = GRPC_CHANNEL_OPTIONS.server['grpc.max_receive_message_length'];

/** A CreateOrganization request of about `bytes` bytes (its name). */
const bigRequest = (bytes: number) => ({ externalId: 'big', name: 'x'.repeat(bytes) });

/** Calls CreateOrganization and answers the error (or null when it succeeded). */
function createOrganization(
  orgs: OrganizationServiceClient,
  request: { externalId: string; name: string },
): Promise<ServiceError | null> {
  return new Promise((resolve) =>
    orgs.createOrganization(request, bearer(svc.platformKey), { deadline: Date.now() + 10_000 }, (err) => resolve(err)),
  );
}

test('a request message over 4 MB is refused RESOURCE_EXHAUSTED by the transport, one just under is read, and the server keeps serving', async (t) => {
  const orgs = new OrganizationServiceClient(svc.grpcTarget, credentials.createInsecure());
  try {
    const over = await createOrganization(orgs, bigRequest(MAX_REQUEST + 1));
    t.is(over?.code, status.RESOURCE_EXHAUSTED, over?.message);
    t.regex(over?.details ?? '', /larger than max/);
    // Not the rate limit (also RESOURCE_EXHAUSTED): no contract code in the trailers.
    t.is(errorCodeOfTrailers(over?.metadata), undefined);

    // Just under the limit the message reaches its operation, which judges the body (a 200-character name at most).
    const under = await createOrganization(orgs, bigRequest(MAX_REQUEST - 1024));
    t.is(under?.code, status.INVALID_ARGUMENT, under?.message);
    t.is(errorCodeOfTrailers(under?.metadata), 'VALIDATION_ERROR');

    // Same client, same connection: still served.
    t.is(await createOrganization(orgs, { externalId: 'after-big', name: 'After the big one' }), null);
  } finally {
    orgs.close();
  }
  t.is((await client(svc.url, svc.platformKey).get('/api/v2/organizations')).status, 200);
});

test("the gateway's clients refuse to send what the server would refuse, before sending it", async (t) => {
  const clients = createGrpcClients(svc.grpcTarget);
  try {
    const err = await createOrganization(
      clients.OrganizationService as unknown as OrganizationServiceClient,
      bigRequest(MAX_REQUEST + 1),
    );
    t.is(err?.code, status.RESOURCE_EXHAUSTED);
    t.regex(err?.details ?? '', new RegExp(`send message with a size larger than ${MAX_REQUEST}`));
  } finally {
    closeGrpcClients(clients);
  }
});

/** A grpc.health.v1.Health/Check over a raw HTTP/2 session: the gRPC status it ends with. */
async function healthCheck(session: ClientHttp2Session): Promise<string | undefined> {
  const stream = session.request({
    [constants.HTTP2_HEADER_METHOD]: 'POST',
    [constants.HTTP2_HEADER_PATH]: '/grpc.health.v1.Health/Check',
    'content-type': 'application/grpc',
    te: 'trailers',
  });
  // One length-prefixed message: an empty HealthCheckRequest (service "", the whole server).
  stream.end(Buffer.from([0, 0, 0, 0, 0]));
  stream.resume();
  const [trailers] = (await once(stream, 'trailers')) as [Record<string, string>];
  return trailers['grpc-status'];
}

test('a client that pings far more often than every 10 s, with and without calls, is answered and never sent away', async (t) => {
  // Raw HTTP/2 so the pings are the test's own: grpc-js clients send theirs only every keepalive_time_ms.
  const session = connect(`http://${svc.grpcTarget}`);
  const goaways: number[] = [];
  session.on('goaway', (code) => goaways.push(code));
  try {
    await once(session, 'remoteSettings');
    t.is(session.remoteSettings.maxConcurrentStreams, GRPC_CHANNEL_OPTIONS.server['grpc.max_concurrent_streams']);
    const ping = () =>
      new Promise<void>((resolve, reject) => {
        session.ping((err) => (err ? reject(err) : resolve()));
      });
    // No call open: a C-core or Go server with default enforcement would answer GOAWAY too_many_pings after two.
    for (let i = 0; i < 20; i++) await ping();
    t.is(await healthCheck(session), '0');
    // Pings while calls are in flight.
    const during = await Promise.all([healthCheck(session), ping(), healthCheck(session), ping(), ping()]);
    t.deepEqual([during[0], during[2]], ['0', '0']);
    for (let i = 0; i < 20; i++) await ping();
    t.is(await healthCheck(session), '0');
    t.false(session.closed || session.destroyed);
    t.deepEqual(goaways, []);
  } finally {
    session.close();
  }
});
