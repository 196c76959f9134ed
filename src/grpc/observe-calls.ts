import { performance } from 'node:perf_hooks';
import {
  ResponderBuilder,
  ServerInterceptingCall,
  ServerListenerBuilder,
  status as GrpcStatus,
  type Metadata,
  type ServerInterceptor,
} from '@grpc/grpc-js';
import type { ServiceLogger } from '../observability/create-logger.js';
import { errorCodeOfTrailers } from './error-metadata.js';
import type { ServiceMetrics } from '../observability/service-metrics.js';

/** The first value of a metadata key as a string. */
function first(md: Metadata | null | undefined, key: string): string | undefined {
  const v = md?.get(key)[0];
  return v === undefined ? undefined : String(v);
}

/**
 * createCallObserver returns a server interceptor that sees every RPC whichever way it ends, the failures grpc-js
 * produces before or after the handler (a request it cannot decode, an answer it cannot encode) included:
 * it times each call into `scheduling_rpc_duration_seconds` by service, method and outcome (the contract error code,
 * or the gRPC status), writes one log line per call that did not come through the REST gateway (which logs its own),
 * and logs at error level every failure that carries no contract code — those are never the operation's doing.
 */
export function createCallObserver(deps: { logger: ServiceLogger; metrics: ServiceMetrics }): ServerInterceptor {
  return (method, call) => {
    const started = performance.now();
    const [, service = 'unknown', rpc = 'unknown'] = method.path.split('/');
    let requestMd: Metadata | undefined;
    return new ServerInterceptingCall(
      call,
      new ResponderBuilder()
        .withStart((next) =>
          next(
            new ServerListenerBuilder()
              .withOnReceiveMetadata((md, nextMd) => {
                requestMd = md;
                nextMd(md);
              })
              .build(),
          ),
        )
        .withSendStatus((status, next) => {
          const durationMs = performance.now() - started;
          const errorCode = errorCodeOfTrailers(status.metadata);
          const outcome =
            status.code === GrpcStatus.OK ? 'OK' : (errorCode ?? GrpcStatus[status.code] ?? String(status.code));
          deps.metrics.rpcDuration.observe(
            { service: service.replace(/^scheduling\.v1\./, ''), method: rpc, outcome },
            durationMs / 1000,
          );
          const viaGateway = first(requestMd, 'x-service-door') === 'rest';
          const line = {
            door: viaGateway ? 'rest' : 'grpc',
            rpc: `${service}/${rpc}`,
            code: GrpcStatus[status.code],
            durationMs: Math.round(durationMs * 10) / 10,
            requestId: first(status.metadata, 'x-service-request-id') ?? first(requestMd, 'x-service-request-id'),
            correlationId: first(requestMd, 'x-request-id'),
            errorCode,
          };
          if (status.code !== GrpcStatus.OK && errorCode === undefined) {
            deps.metrics.errors.inc({ code: 'TRANSPORT' });
            deps.logger.error({ ...line, details: status.details }, 'rpc failed outside its operation');
          } else if (!viaGateway) {
            if (errorCode !== undefined) deps.metrics.errors.inc({ code: errorCode });
            deps.logger.info(line, 'rpc');
          }
          next(status);
        })
        .build(),
    );
  };
}
