import { performance } from 'node:perf_hooks';
import { credentials, Metadata, status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import { ResolutionServiceClient } from '../src/gen/scheduling/v1/resolution_service.js';
import { errorCodeOfTrailers } from '../src/grpc/error-metadata.js';
import { ALL_ROUTES } from '../src/contract/routes/all-routes.js';
import { messageOfRestInput, restOfResponseMessage } from '../src/contract/typed-message.js';
import type { BenchResponse } from './bench-client.js';
import type { ResponseTally } from './response-tally.js';

/** The route whose typed messages the bench sends and reads (an internal service builds them the same way). */
const CREATE_RESOLUTION = ALL_ROUTES.find((r) => r.rpc === 'CreateResolution')!;

/** Creates resolutions through the internal gRPC API, as an internal service would, without the REST gateway. */
export interface GrpcResolutionClient {
  /** Calls CreateResolution; answers like the HTTP client (200, or the HTTP status the gateway would give the error). */
  createResolution(body: unknown, idempotencyKey: string): Promise<BenchResponse>;
  close(): void;
}

/** gRPC codes that are the service's failure (a gateway would answer them with a 5xx). */
const SERVER_ERRORS = new Set<number>([
  GrpcStatus.UNKNOWN,
  GrpcStatus.INTERNAL,
  GrpcStatus.UNAVAILABLE,
  GrpcStatus.DEADLINE_EXCEEDED,
  GrpcStatus.DATA_LOSS,
  GrpcStatus.UNIMPLEMENTED,
]);
const HTTP_OF: Partial<Record<number, number>> = {
  [GrpcStatus.INVALID_ARGUMENT]: 400,
  [GrpcStatus.UNAUTHENTICATED]: 401,
  [GrpcStatus.PERMISSION_DENIED]: 403,
  [GrpcStatus.NOT_FOUND]: 404,
  [GrpcStatus.ABORTED]: 409,
  [GrpcStatus.FAILED_PRECONDITION]: 422,
  [GrpcStatus.RESOURCE_EXHAUSTED]: 429,
  [GrpcStatus.UNAVAILABLE]: 503,
  [GrpcStatus.DEADLINE_EXCEEDED]: 504,
};

/**
 * Connects the generated grpc-js client to `target` (host:port); every call carries the key and, when given, the
 * `service-organization-id` header in metadata, exactly as the gateway forwards them. One HTTP/2 connection
 * carries all concurrent calls, as the gateway's own client does.
 */
export function createGrpcResolutionClient(o: {
  target: string;
  key: string;
  organizationId?: string;
  tally?: ResponseTally;
  deadlineMs?: number;
}): GrpcResolutionClient {
  const client = new ResolutionServiceClient(o.target, credentials.createInsecure(), {
    'grpc.max_receive_message_length': 64 * 1024 * 1024,
  });
  const deadlineMs = o.deadlineMs ?? 30_000;
  return {
    createResolution(body, idempotencyKey) {
      const md = new Metadata();
      md.set('authorization', `Bearer ${o.key}`);
      if (o.organizationId) md.set('service-organization-id', o.organizationId);
      md.set('idempotency-key', idempotencyKey);
      const t0 = performance.now();
      return new Promise((resolve) => {
        client.createResolution(
          messageOfRestInput(CREATE_RESOLUTION, { params: {}, query: {}, body }) as never,
          md,
          { deadline: Date.now() + deadlineMs },
          (err: ServiceError | null, res) => {
            const ms = performance.now() - t0;
            if (!err) {
              o.tally?.record('grpc OK', false);
              return resolve({ status: 200, body: restOfResponseMessage(CREATE_RESOLUTION, res as never), ms });
            }
            const code = errorCodeOfTrailers(err.metadata) ?? GrpcStatus[err.code] ?? String(err.code);
            const failure = { error: { code, message: err.details } };
            o.tally?.record(`grpc ${GrpcStatus[err.code] ?? err.code}`, SERVER_ERRORS.has(err.code), code, failure);
            resolve({ status: HTTP_OF[err.code] ?? 500, body: failure, ms });
          },
        );
      });
    },
    close: () => client.close(),
  };
}
