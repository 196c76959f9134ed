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
  createAdmissionQueue,
  SHED_RETRY_AFTER_SECONDS,
  type AdmissionQueueOptions,
  type AdmissionTicket,
} from '../admission/admission-queue.js';
import { ServiceError } from '../errors/service-error.js';
import type { ServiceMetrics } from '../observability/service-metrics.js';
import { encodeServiceError } from './error-metadata.js';
import { carryServiceError } from './carried-service-error.js';

/** Services that answer from memory and must answer most of all when the server is busy: never shed. */
const NEVER_SHED = ['/grpc.health.v1.Health/', '/grpc.reflection.'];

/** Options of admitCalls. */
export interface CallAdmission {
  /** Work run at once and the queue beyond it (see admission-queue.ts). */
  limits: AdmissionQueueOptions;
  /**
   * The token of this process's own gateway (unset when none runs here): its calls were admitted, and counted, by the
   * gateway's limit, so they are not counted again here. Any other caller, a gateway in another process included,
   * is counted.
   */
  admittedToken?: string | undefined;
  metrics: ServiceMetrics;
}

/** The milliseconds left before a call's deadline (Infinity when it has none). */
function remainingMs(deadline: Date | number): number {
  const at = deadline instanceof Date ? deadline.getTime() : deadline;
  return Number.isFinite(at) ? at - Date.now() : Infinity;
}

/**
 * admitCalls returns a server interceptor that bounds the work of the calls in flight and queues the rest (see
 * admission-queue.ts: a call waits its turn within the longest wait and its own deadline). A call that cannot start in
 * time is answered, before its message is read, `UNAVAILABLE` with the usual error status (a `google.rpc.Status` whose
 * ErrorInfo reason is `SERVICE_UNAVAILABLE`, with a RetryInfo). A call holds its units until it starts answering (its
 * first message or headers, or its status) or is cancelled, so an open server stream does not keep them. Health
 * checks and reflection are never counted.
 */
export function admitCalls(o: CallAdmission): ServerInterceptor {
  const queue = createAdmissionQueue(o.limits);
  const inFlight = o.metrics.admissionInFlight.labels({ gate: 'grpc' });
  const waiting = o.metrics.admissionWaiting.labels({ gate: 'grpc' });
  const waited = o.metrics.admissionWait.labels({ gate: 'grpc' });
  inFlight.set(0);
  waiting.set(0);
  const show = () => {
    inFlight.set(queue.inFlight);
    waiting.set(queue.waiting);
  };
  return (method, call) => {
    if (o.limits.limit <= 0 || NEVER_SHED.some((p) => method.path.startsWith(p)))
      return new ServerInterceptingCall(call);
    let ticket: AdmissionTicket | undefined;
    const cancelled = new AbortController();
    const release = () => {
      if (!ticket) return;
      ticket.leave();
      ticket = undefined;
      show();
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
                const pending = queue.enter({
                  budgetMs: remainingMs(call.getDeadline()),
                  signal: cancelled.signal,
                });
                show();
                void pending.then((a) => {
                  show();
                  if (a.admitted) {
                    waited.observe(a.ticket.waitedMs / 1000);
                    ticket = a.ticket;
                    // Cancelled while the admission was being answered: give the units back at once.
                    if (cancelled.signal.aborted) return release();
                    return nextMd(md);
                  }
                  o.metrics.admissionShed.inc({ gate: 'grpc', reason: a.reason });
                  if (a.reason === 'cancelled') return;
                  const trailers = new Metadata();
                  trailers.set(
                    'x-service-request-id',
                    String(md.get('x-service-request-id')[0] ?? `req_${randomUUID().replace(/-/g, '')}`),
                  );
                  const refusal = new ServiceError(
                    'SERVICE_UNAVAILABLE',
                    'The server could not start this call in time; retry after the delay it names (RetryInfo; Retry-After over REST).',
                    { retryAfter: SHED_RETRY_AFTER_SECONDS },
                  );
                  const { code, details, metadata } = carryServiceError(encodeServiceError(refusal, trailers), refusal);
                  call.sendStatus({ code: code!, details: details!, metadata: metadata! });
                });
              })
              .withOnCancel(() => {
                cancelled.abort();
                release();
              })
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
