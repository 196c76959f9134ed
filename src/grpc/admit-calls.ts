import { randomUUID } from 'node:crypto';
import {
  Metadata,
  ResponderBuilder,
  ServerInterceptingCall,
  ServerListenerBuilder,
  type ServerInterceptor,
} from '@grpc/grpc-js';
import {
  ADMITTED_TOKEN_KEY,
  createAdmissionGate,
  SHED_RETRY_AFTER_SECONDS,
  type AdmissionLimits,
} from '../admission/admission-gate.js';
import { admissionCost } from '../admission/admission-cost.js';
import { ServiceError } from '../errors/service-error.js';
import type { ServiceMetrics } from '../observability/service-metrics.js';
import { encodeServiceError } from './error-metadata.js';

/** Services that answer from memory and must answer most of all when the server is busy: never shed. */
const NEVER_SHED = ['/grpc.health.v1.Health/', '/grpc.reflection.'];

/** Options of admitCalls. */
export interface CallAdmission {
  /** Calls worked on at once (see admission-gate.ts). */
  limits: AdmissionLimits;
  /**
   * The token of this process's own gateway (unset when none runs here): its calls were admitted, and counted, by the
   * gateway's limit, so they are not counted again here. Any other caller, a gateway in another process included,
   * is counted.
   */
  admittedToken?: string | undefined;
  metrics: ServiceMetrics;
}

/**
 * admitCalls returns a server interceptor that bounds the work of the calls in flight (see admission-gate.ts, in the
 * units of admission-cost.ts); a call beyond the bound is answered at once, before its message is read, `UNAVAILABLE`
 * with the usual error trailers (`error-code: SERVICE_UNAVAILABLE`, `retry-after`). A call holds its units until it
 * starts answering (its first message or headers, or its status) or is cancelled, so an open server stream does not
 * keep them. Health checks and reflection are never counted.
 */
export function admitCalls(o: CallAdmission): ServerInterceptor {
  const gate = createAdmissionGate(o.limits);
  const gauge = o.metrics.admissionInFlight.labels({ gate: 'grpc' });
  const shed = o.metrics.admissionShed.labels({ gate: 'grpc' });
  gauge.set(0);
  return (method, call) => {
    if (o.limits.limit <= 0 || NEVER_SHED.some((p) => method.path.startsWith(p)))
      return new ServerInterceptingCall(call);
    const [, service = '', rpc = ''] = method.path.split('/');
    const cost = admissionCost(service.replace(/^scheduling\.v1\./, ''), rpc);
    let admitted = false;
    const release = () => {
      if (!admitted) return;
      admitted = false;
      gate.leave(cost);
      gauge.set(gate.inFlight);
    };
    return new ServerInterceptingCall(
      call,
      new ResponderBuilder()
        .withStart((next) =>
          next(
            new ServerListenerBuilder()
              .withOnReceiveMetadata((md, nextMd) => {
                if (o.admittedToken !== undefined && md.get(ADMITTED_TOKEN_KEY)[0] === o.admittedToken)
                  return nextMd(md);
                if (!gate.tryEnter(cost)) {
                  shed.inc();
                  const trailers = new Metadata();
                  trailers.set(
                    'x-service-request-id',
                    String(md.get('x-service-request-id')[0] ?? `req_${randomUUID().replace(/-/g, '')}`),
                  );
                  const refusal = new ServiceError(
                    'SERVICE_UNAVAILABLE',
                    "The server is working on as many calls as it admits; retry after the retry-after trailer's seconds.",
                    { retryAfter: SHED_RETRY_AFTER_SECONDS },
                  );
                  const { code, details, metadata } = encodeServiceError(refusal, trailers);
                  call.sendStatus({ code: code!, details: details!, metadata: metadata! });
                  return;
                }
                admitted = true;
                gauge.set(gate.inFlight);
                nextMd(md);
              })
              .withOnCancel(release)
              .build(),
          ),
        )
        .withSendMetadata((md, next) => {
          release();
          next(md);
        })
        .withSendMessage((msg, next) => {
          release();
          next(msg);
        })
        .withSendStatus((status, next) => {
          release();
          next(status);
        })
        .build(),
    );
  };
}
