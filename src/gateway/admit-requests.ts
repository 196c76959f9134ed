import type Koa from 'koa';
import {
  createAdmissionQueue,
  SHED_RETRY_AFTER_SECONDS,
  type AdmissionQueueOptions,
  type AdmissionTicket,
} from '../admission/admission-queue.js';
import { ServiceError } from '../errors/service-error.js';
import type { ServiceMetrics } from '../observability/service-metrics.js';

/** The admission of a gateway's API requests: one queue for every route. */
export interface RequestAdmission {
  /**
   * Admits the request of `kind` (its route) or throws 503 SERVICE_UNAVAILABLE with Retry-After; `budgetMs` is its
   * remaining deadline. Call the ticket's `leave` once the request's work is done.
   */
  admit(ctx: Koa.Context, kind: string, budgetMs: number): Promise<AdmissionTicket>;
}

/**
 * createRequestAdmission bounds the work the gateway's routes do at once and queues the rest (admission-queue.ts). A
 * request that cannot start in time is answered 503 `SERVICE_UNAVAILABLE` with `Retry-After`; it sets
 * `ctx.state.shed`, so the access log can tell shedding from a store outage. A request whose client goes away while
 * it waits leaves the queue.
 */
export function createRequestAdmission(o: {
  limits: AdmissionQueueOptions;
  metrics: ServiceMetrics;
}): RequestAdmission {
  const queue = createAdmissionQueue(o.limits);
  const inFlight = o.metrics.admissionInFlight.labels({ gate: 'rest' });
  const waiting = o.metrics.admissionWaiting.labels({ gate: 'rest' });
  const waited = o.metrics.admissionWait.labels({ gate: 'rest' });
  inFlight.set(0);
  waiting.set(0);
  const show = () => {
    inFlight.set(queue.inFlight);
    waiting.set(queue.waiting);
  };
  return {
    async admit(ctx, kind, budgetMs) {
      const gone = new AbortController();
      const onClose = () => gone.abort();
      ctx.res.once('close', onClose);
      const pending = queue.enter(kind, { budgetMs, signal: gone.signal });
      show();
      const a = await pending;
      ctx.res.off('close', onClose);
      if (!a.admitted) {
        show();
        o.metrics.admissionShed.inc({ gate: 'rest', reason: a.reason });
        ctx.state.shed = true;
        throw new ServiceError(
          'SERVICE_UNAVAILABLE',
          a.reason === 'cancelled'
            ? 'The client went away before its request could start.'
            : 'The service could not start this request in time; retry after Retry-After seconds.',
          { retryAfter: SHED_RETRY_AFTER_SECONDS },
        );
      }
      waited.observe(a.ticket.waitedMs / 1000);
      show();
      const ticket = a.ticket;
      return {
        cost: ticket.cost,
        waitedMs: ticket.waitedMs,
        leave() {
          ticket.leave();
          show();
        },
      };
    },
  };
}
