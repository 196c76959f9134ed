import test from 'ava';
import { credentials, Metadata, status, type ServiceError as GrpcError } from '@grpc/grpc-js';
import {
  GatewayServiceClient,
  type CheckCredentialsResponse,
  type RefuseRequest,
} from '../../src/gen/scheduling/v1/gateway_service.js';
import { refuse } from '../../src/api/gateway-service/refuse.js';
import { checkCredentials } from '../../src/api/gateway-service/check-credentials.js';
import { ServiceError } from '../../src/errors/service-error.js';
import type { Caller } from '../../src/application/caller.js';
import { client, request } from '../helpers/http.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { bearer, errorInfoOf } from '../helpers/typed-calls.js';

/**
 * GatewayService on its typed messages (src/api/gateway-service/): Refuse fails with the refusal it carries after
 * counting the call (RateLimit trailers) and is audited as `request.refuse` when made with Service-Organization-Id;
 * its message is not checked for what no operation may store (it stores nothing). CheckCredentials answers an empty
 * message, uncounted. Refusals on ErrorInfo reason and field, implementations called with their deps alone, and the
 * REST answer to a refused request equal to the typed refusal.
 */

let svc: TestService;
let gateway: GatewayServiceClient;
let orgId: string;

test.before(async () => {
  svc = await startTestService();
  gateway = new GatewayServiceClient(svc.grpcTarget, credentials.createInsecure());
  const org = await client(svc.url, svc.platformKey).post('/api/v2/organizations', {
    externalId: 'tgw-org',
    name: 'tgw-org',
  });
  if (org.status !== 200) throw new Error(`organization create failed: ${JSON.stringify(org.body)}`);
  orgId = org.body.id as string;
});
test.after.always(async () => {
  gateway?.close();
  await svc?.stop();
});

const metadata = (key = svc.platformKey, headers: Record<string, string> = {}) => bearer(key, headers);

/** A unary call's answer, or its error, with the trailers it carried. */
function unary<Res>(
  method: 'refuse' | 'checkCredentials',
  req: object,
  md = metadata(),
): Promise<{ res?: Res; err?: GrpcError; trailers: Metadata }> {
  return new Promise((resolve) => {
    let trailers = new Metadata();
    const fn = (gateway as unknown as Record<string, Function>)[method]!;
    const call = fn.call(gateway, req, md, (err: GrpcError | null, res: Res) =>
      // The status event comes after the callback: wait for it so the trailers are there.
      setImmediate(() => resolve(err ? { err, trailers: err.metadata ?? trailers } : { res, trailers })),
    );
    call.on('status', (s: { metadata: Metadata }) => (trailers = s.metadata));
  });
}

const CALLER: Caller = {
  requestId: 'req_tgw',
  keyId: 'key_tgw',
  keyType: 'platform_test',
  mode: 'test',
  platformId: 'plt_tgw',
  organizationId: '',
  isPlatformKey: true,
  viaOrganizationHeader: false,
};

test('Refuse fails with the refusal it carries, counted: its trailers carry the RateLimit state', async (t) => {
  const r = await unary('refuse', {
    code: 'PAYLOAD_TOO_LARGE',
    message: 'Request body exceeds 1 MB.',
    field: '',
  } satisfies RefuseRequest);
  t.truthy(r.err, 'always an error');
  const info = errorInfoOf(r.err!);
  t.is(info.reason, 'PAYLOAD_TOO_LARGE');
  t.is(r.err!.details, 'Request body exceeds 1 MB.');
  t.is(info.metadata?.field, undefined, 'no field named');
  t.regex(String(r.err!.metadata.get('rest-header-ratelimit-remaining')[0] ?? ''), /^\d+$/, 'counted');

  const withField = await unary('refuse', { code: 'VALIDATION_ERROR', message: 'Host is required.', field: 'host' });
  t.like(errorInfoOf(withField.err!), { reason: 'VALIDATION_ERROR', metadata: { field: 'host' } });
});

test('Refuse carries a message no operation could store: it stores nothing, so nothing refuses it first', async (t) => {
  const r = await unary('refuse', { code: 'INVALID_JSON', message: 'Unexpected token \u0000 in JSON', field: '' });
  t.is(errorInfoOf(r.err!).reason, 'INVALID_JSON');
  t.is(r.err!.details, 'Unexpected token \u0000 in JSON');
});

test('Refuse refuses what is not one of the gateway refusals, on ErrorInfo reason and field', async (t) => {
  const code = await unary('refuse', { code: 'NOT_FOUND', message: '', field: '' });
  t.is(code.err?.code, status.INVALID_ARGUMENT);
  t.like(errorInfoOf(code.err!), { reason: 'VALIDATION_ERROR', metadata: { field: 'code' } });
  const long = await unary('refuse', { code: 'ROUTE_NOT_FOUND', message: 'x'.repeat(1001), field: '' });
  t.like(errorInfoOf(long.err!), { reason: 'VALIDATION_ERROR', metadata: { field: 'message' } });
  const field = await unary('refuse', { code: 'VALIDATION_ERROR', message: '', field: 'f'.repeat(201) });
  t.like(errorInfoOf(field.err!), { reason: 'VALIDATION_ERROR', metadata: { field: 'field' } });
  const unauthenticated = await unary('refuse', { code: 'ROUTE_NOT_FOUND' }, metadata('service_test_nope'));
  t.is(unauthenticated.err?.code, status.UNAUTHENTICATED);
  t.is(errorInfoOf(unauthenticated.err!).reason, 'UNAUTHENTICATED');
});

test('CheckCredentials answers an empty message for a valid key, uncounted, and refuses an unknown one', async (t) => {
  const ok = await unary<CheckCredentialsResponse>('checkCredentials', {});
  t.deepEqual(ok.res, {});
  t.deepEqual(ok.trailers.get('rest-header-ratelimit-remaining'), [], 'not counted against the key');
  const bad = await unary('checkCredentials', {}, metadata('service_test_unknownkey'));
  t.is(bad.err?.code, status.UNAUTHENTICATED);
  t.is(errorInfoOf(bad.err!).reason, 'UNAUTHENTICATED');
});

test('the implementations run on their deps alone', async (t) => {
  const err = await t.throwsAsync(
    refuse({}, CALLER, { code: 'ROUTE_NOT_FOUND', message: 'No such route.', field: '' }),
  );
  t.true(err instanceof ServiceError);
  t.like(err as ServiceError, { code: 'ROUTE_NOT_FOUND', message: 'No such route.', field: undefined });
  const bad = await t.throwsAsync(refuse({}, CALLER, { code: 'PONY', message: '', field: '' }));
  t.like(bad as ServiceError, { code: 'VALIDATION_ERROR', field: 'code' });
  t.deepEqual(await checkCredentials({}, CALLER, {}), {});
});

test.serial(
  'REST parity: a refused request answers the typed refusal, counted and audited as request.refuse',
  async (t) => {
    const typed = await unary('refuse', {
      code: 'ROUTE_NOT_FOUND',
      message: 'No route GET /api/v2/tgw-nothing.',
      field: '',
    });
    const rest = await request(svc.url, 'GET', '/api/v2/tgw-nothing', {
      key: svc.platformKey,
      headers: { 'service-organization-id': orgId },
    });
    t.is(rest.status, 404);
    t.is(rest.body.error.code, errorInfoOf(typed.err!).reason);
    t.regex(rest.headers.get('ratelimit-remaining') ?? '', /^\d+$/, 'counted through Refuse');
    const requestId = rest.headers.get('x-service-request-id');
    await svc.service.audit.flush({ timeoutMs: 10_000 });
    const stored = await svc.service.deps.db.query(
      'SELECT action, resource_type, organization_id, after FROM audit_events WHERE request_id = $1',
      [requestId],
    );
    t.is(stored.rows.length, 1, 'the refused call made with Service-Organization-Id is recorded');
    t.like(stored.rows[0], {
      action: 'request.refuse',
      resource_type: 'request',
      organization_id: orgId,
      after: { error: { code: 'ROUTE_NOT_FOUND' } },
    });
  },
);
