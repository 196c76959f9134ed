import test from 'ava';
import { credentials, Metadata, status, type ServiceError as GrpcServiceError } from '@grpc/grpc-js';
import {
  decodeServiceError,
  encodeServiceError,
  ERROR_DOMAIN,
  STATUS_DETAILS_TRAILER,
} from '../../src/grpc/error-metadata.js';
import { ServiceError } from '../../src/errors/service-error.js';
import { ERROR_CATALOGUE } from '../../src/errors/error-catalogue.js';
import { Status } from '../../src/gen/google/rpc/status.js';
import { BadRequest, ErrorInfo, RetryInfo } from '../../src/gen/google/rpc/error_details.js';
import { ProviderServiceClient } from '../../src/gen/scheduling/v1/provider_service.js';
import { newOrganization } from '../helpers/graph-fixtures.js';
import { startTestService, type TestService } from '../helpers/test-service.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
});

/** A gRPC error as a client receives it, from what the server encoded. */
function received(err: ServiceError): GrpcServiceError {
  const encoded = encodeServiceError(err) as { metadata: Metadata; details: string; code: number };
  return { ...encoded, message: encoded.details, name: 'Error' };
}

/** The google.rpc.Status in a gRPC error's trailers, and its details by type, decoded with the generated types. */
function richStatus(err: GrpcServiceError) {
  const raw = err.metadata.get(STATUS_DETAILS_TRAILER)[0];
  if (!Buffer.isBuffer(raw)) throw new Error(`no ${STATUS_DETAILS_TRAILER} trailer`);
  const s = Status.decode(raw);
  const of = (type: string) => s.details?.find((d) => d.typeUrl === `type.googleapis.com/google.rpc.${type}`)?.value;
  const info = of('ErrorInfo');
  const bad = of('BadRequest');
  const retry = of('RetryInfo');
  return {
    status: s,
    errorInfo: info && ErrorInfo.decode(info),
    badRequest: bad && BadRequest.decode(bad),
    retryInfo: retry && RetryInfo.decode(retry),
  };
}

test('a validation error over real gRPC carries google.rpc.Status with ErrorInfo and BadRequest, as REST renders it', async (t) => {
  const o = await newOrganization(svc, 'rich-errors');
  const providers = new ProviderServiceClient(svc.grpcTarget, credentials.createInsecure());
  try {
    const md = new Metadata();
    md.set('authorization', `Bearer ${svc.platformKey}`);
    md.set('service-organization-id', o.org.id);
    const err = await new Promise<GrpcServiceError>((resolve, reject) =>
      providers.createProvider({ email: 'not-an-email' }, md, (e) =>
        e ? resolve(e) : reject(new Error('the call succeeded')),
      ),
    );
    const rest = await o.platform.post('/api/v2/providers', { email: 'not-an-email' });
    t.is(rest.status, 400);
    const envelope = rest.body.error;

    t.is(err.code, status.INVALID_ARGUMENT);
    t.deepEqual(err.metadata.get('error-code'), [], 'no custom error trailers');
    const { status: s, errorInfo, badRequest, retryInfo } = richStatus(err);
    t.is(s.code, status.INVALID_ARGUMENT, 'the Status repeats the gRPC code');
    t.is(s.message, envelope.message);
    t.is(errorInfo?.reason, 'VALIDATION_ERROR');
    t.is(errorInfo?.domain, ERROR_DOMAIN);
    t.deepEqual(errorInfo?.metadata, {
      recoverable: 'false',
      suggestedAction: ERROR_CATALOGUE.VALIDATION_ERROR.suggestedAction,
      field: envelope.field,
    });
    t.true(envelope.details.length >= 2, 'several problems: externalId and displayName are missing');
    t.deepEqual(
      badRequest?.fieldViolations?.map((v) => ({ field: v.field, code: v.reason, message: v.description })),
      envelope.details,
      'each detail of the REST envelope is a field violation with its code as reason',
    );
    t.is(retryInfo, undefined);
    // The one decoder gives back the error the gateway renders.
    const decoded = decodeServiceError(err);
    t.is(decoded.code, 'VALIDATION_ERROR');
    t.is(decoded.field, envelope.field);
    t.deepEqual(decoded.details, envelope.details);
  } finally {
    providers.close();
  }
});

test('an error with a field but no details is one field violation without a reason, and decodes without details', (t) => {
  const err = received(new ServiceError('HOLD_NOT_FOUND', undefined, { field: 'holdId' }));
  t.is(err.code, status.NOT_FOUND);
  const { errorInfo, badRequest } = richStatus(err);
  t.is(errorInfo?.reason, 'HOLD_NOT_FOUND');
  t.deepEqual(errorInfo?.metadata, { recoverable: 'false', field: 'holdId' }, 'no suggestedAction in the catalogue');
  t.deepEqual(
    badRequest?.fieldViolations?.map(({ field, description, reason }) => ({ field, description, reason })),
    [{ field: 'holdId', description: 'Hold not found.', reason: '' }],
  );
  const decoded = decodeServiceError(err);
  t.is(decoded.field, 'holdId');
  t.is(decoded.details, undefined);
  t.is(decoded.message, 'Hold not found.');
});

test('a retry delay travels as RetryInfo and as retryAfterSeconds; an error without field or details has no BadRequest', (t) => {
  const err = received(new ServiceError('RATE_LIMITED', undefined, { retryAfter: 5 }));
  t.is(err.code, status.RESOURCE_EXHAUSTED);
  const { errorInfo, badRequest, retryInfo } = richStatus(err);
  t.is(errorInfo?.metadata?.retryAfterSeconds, '5');
  t.is(errorInfo?.metadata?.recoverable, String(ERROR_CATALOGUE.RATE_LIMITED.recoverable));
  t.deepEqual(retryInfo?.retryDelay, { seconds: 5, nanos: 0 });
  t.is(badRequest, undefined);
  t.is(decodeServiceError(err).retryAfter, 5);
});

test('an empty details list survives the round trip', (t) => {
  const decoded = decodeServiceError(received(new ServiceError('VALIDATION_ERROR', 'bad', { details: [] })));
  t.deepEqual(decoded.details, []);
  t.is(decoded.field, undefined);
});

test('an error without a Status is a transport failure (503, recoverable) or an internal error (500)', (t) => {
  const bare = (code: status, md = new Metadata()) =>
    ({ code, details: 'boom', metadata: md, message: 'boom', name: 'Error' }) as GrpcServiceError;
  const unavailable = decodeServiceError(bare(status.UNAVAILABLE));
  t.is(unavailable.code, 'SERVICE_UNAVAILABLE');
  t.is(unavailable.retryAfter, 1);
  t.is(decodeServiceError(bare(status.INTERNAL)).code, 'INTERNAL_ERROR');
  const garbage = new Metadata();
  garbage.set(STATUS_DETAILS_TRAILER, Buffer.from([0xff, 0xff, 0xff]));
  t.is(decodeServiceError(bare(status.UNAVAILABLE, garbage)).code, 'SERVICE_UNAVAILABLE', 'an undecodable Status');
  const foreign = new Metadata();
  const info = ErrorInfo.encode({ reason: 'HOLD_NOT_FOUND', domain: 'other.example' }).finish();
  foreign.set(
    STATUS_DETAILS_TRAILER,
    Buffer.from(
      Status.encode({
        code: status.NOT_FOUND,
        details: [{ typeUrl: 'type.googleapis.com/google.rpc.ErrorInfo', value: Buffer.from(info) }],
      }).finish(),
    ),
  );
  t.is(decodeServiceError(bare(status.NOT_FOUND, foreign)).code, 'INTERNAL_ERROR', 'a reason of another domain');
});

test('an error naming a field that is not printable ASCII, or a message with a lone surrogate, still encodes and decodes', (t) => {
  for (const field of ['\u{1f600}key', 'k\u0000', 'caf\u00e9', '\ud800x']) {
    const err = received(new ServiceError('VALIDATION_ERROR', `Unrecognized key: "${field}"`, { field }));
    t.notThrows(() => encodeURI(err.details), 'grpc-js percent-encodes the message');
    const decoded = decodeServiceError(err);
    t.is(decoded.code, 'VALIDATION_ERROR');
    t.is(
      decoded.field,
      field === '\ud800x' ? '\ufffdx' : field,
      'a lone surrogate has no UTF-8 form: it comes back as U+FFFD',
    );
  }
});
