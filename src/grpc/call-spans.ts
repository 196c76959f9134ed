import { SpanKind, SpanStatusCode, trace, type Context, type Span } from '@opentelemetry/api';
import { status as GrpcStatus, type Metadata } from '@grpc/grpc-js';
import type { Tracing } from '../observability/create-tracing.js';

/** The server-side span of every RPC (either door), kept by its request metadata from arrival to status. */
export interface CallSpans {
  /** Starts the span of the call to `path` whose metadata just arrived, a child of its `traceparent` if any. */
  start(path: string, md: Metadata): void;
  /** The context the call's handler runs in (its span active), once started. */
  contextOf(md: Metadata): Context | undefined;
  /** The trace id of the call's span, for its log line. */
  traceIdOf(md: Metadata | undefined): string | undefined;
  /** Ends the call's span with its gRPC status and the contract's error code, if any. */
  end(md: Metadata | undefined, code: GrpcStatus, errorCode: string | undefined): void;
}

/** Statuses that mean the server failed (OpenTelemetry's RPC conventions); others are the caller's or the rules'. */
const SERVER_FAULTS = new Set([
  GrpcStatus.UNKNOWN,
  GrpcStatus.DEADLINE_EXCEEDED,
  GrpcStatus.UNIMPLEMENTED,
  GrpcStatus.INTERNAL,
  GrpcStatus.UNAVAILABLE,
  GrpcStatus.DATA_LOSS,
]);

/** The first text value of a metadata key. */
function text(md: Metadata, key: string): string | undefined {
  const v = md.get(key)[0];
  return typeof v === 'string' ? v : undefined;
}

/**
 * Creates the RPC spans of a server: each call of the API (not gRPC health or reflection) gets a SERVER span named `scheduling.v1.Service/Method`, a child of the
 * context its `traceparent` metadata carries (the REST gateway sends it, in-process or over the network), with
 * `rpc.system`, `rpc.service`, `rpc.method` and, at its end, `rpc.grpc.status_code` (and `scheduling.error_code`).
 */
export function createCallSpans(tracing: Tracing): CallSpans {
  const calls = new WeakMap<Metadata, { span: Span; ctx: Context }>();
  return {
    start(path, md) {
      // Health checks and reflection are the transport's, not the API's: probes every second would be traces of noise.
      if (path.startsWith('/grpc.')) return;
      const [, service = 'unknown', method = 'unknown'] = path.split('/');
      const parent = tracing.extract((key) => text(md, key));
      const span = tracing.tracer.startSpan(
        `${service}/${method}`,
        {
          kind: SpanKind.SERVER,
          attributes: { 'rpc.system': 'grpc', 'rpc.service': service, 'rpc.method': method },
        },
        parent,
      );
      calls.set(md, { span, ctx: trace.setSpan(parent, span) });
    },
    contextOf: (md) => calls.get(md)?.ctx,
    traceIdOf(md) {
      const call = md && calls.get(md);
      return call ? call.span.spanContext().traceId : undefined;
    },
    end(md, code, errorCode) {
      const call = md && calls.get(md);
      if (!call) return;
      calls.delete(md);
      call.span.setAttribute('rpc.grpc.status_code', code);
      if (errorCode !== undefined) call.span.setAttribute('scheduling.error_code', errorCode);
      if (SERVER_FAULTS.has(code))
        call.span.setStatus({ code: SpanStatusCode.ERROR, message: errorCode ?? GrpcStatus[code] });
      call.span.end();
    },
  };
}
