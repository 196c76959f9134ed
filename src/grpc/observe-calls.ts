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
import type { CallSpans } from './call-spans.js';
import { traceIdOfTraceparent } from '../observability/trace-id-of-traceparent.js';

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
 * With `spans` (tracing on) it also opens each call's span as its metadata arrives (before admission: the span shows
 * the wait) and ends it with the status, or when the call is cancelled without one; the log line names its trace id.
 * Without, a direct call's line names the trace id of the `traceparent` it came with, if any.
 */
export function createCallObserver(deps: {
  logger: ServiceLogger;
  metrics: ServiceMetrics;
  spans?: CallSpans | undefined;
}): ServerInterceptor {
  const spans = deps.spans;
  return (method, call) => {
    const started = performance.now();
    const [, service = 'unknown', rpc = 'unknown'] = method.path.split('/');
    let requestMd: Metadata | undefined;
    return new ServerInterceptingCall(
      call,
      new ResponderBuilder()
        .withStart((next) => {
          const listener = new ServerListenerBuilder().withOnReceiveMetadata((md, nextMd) => {
            requestMd = md;
            spans?.start(method.path, md);
            nextMd(md);
          });
          // After a status too (grpc-js tells listeners the call is over): the span then has ended already. Without
          // tracing, no listener: a call costs what it did before tracing existed.
          if (spans) listener.withOnCancel(() => spans.end(requestMd, GrpcStatus.CANCELLED, undefined));
          next(listener.build());
        })
        .withSendStatus((status, next) => {
          const durationMs = performance.now() - started;
          const errorCode = errorCodeOfTrailers(status.metadata);
          const outcome =
            status.code === GrpcStatus.OK ? 'OK' : (errorCode ?? GrpcStatus[status.code] ?? String(status.code));
          deps.metrics.rpcDuration.observe(
            { service: service.replace(/^scheduling\.v1\./, ''), method: rpc, outcome },
            durationMs / 1000,
          );
          spans?.end(requestMd, status.code, errorCode);
          const viaGateway = first(requestMd, 'x-service-door') === 'rest';
          const line = {
            door: viaGateway ? 'rest' : 'grpc',
            rpc: `${service}/${rpc}`,
            code: GrpcStatus[status.code],
            durationMs: Math.round(durationMs * 10) / 10,
            requestId: first(status.metadata, 'x-service-request-id') ?? first(requestMd, 'x-service-request-id'),
            correlationId: first(requestMd, 'x-request-id'),
            traceId: spans ? spans.traceIdOf(requestMd) : traceIdOfTraceparent(first(requestMd, 'traceparent')),
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
