import type Koa from 'koa';
import { createAdmissionGate, SHED_RETRY_AFTER_SECONDS, type AdmissionLimits } from '../admission/admission-gate.js';
import { ServiceError } from '../errors/service-error.js';
import type { ServiceMetrics } from '../observability/service-metrics.js';

/** The admission of a gateway's API requests: one gate, and middleware for routes of each cost. */
export interface RequestAdmission {
  /** Middleware admitting a request of `cost` units (admission-cost.ts) before its route's handler. */
  admit(cost: number): Koa.Middleware;
}

/**
 * createRequestAdmission bounds the work the gateway's routes do at once (see admission-gate.ts). A request beyond the
 * bound is answered at once 503 `SERVICE_UNAVAILABLE` with `Retry-After` instead of waiting behind the others: on one
 * event loop, every request admitted past the point where the loop is busy only adds to every other one's latency.
 * A request holds its units until its handler returns (an event stream: until it is open); a refused one sets
 * `ctx.state.shed`, so the access log can tell shedding from a store outage.
 */
export function createRequestAdmission(o: { limits: AdmissionLimits; metrics: ServiceMetrics }): RequestAdmission {
  const gate = createAdmissionGate(o.limits);
  const gauge = o.metrics.admissionInFlight.labels({ gate: 'rest' });
  const shed = o.metrics.admissionShed.labels({ gate: 'rest' });
  gauge.set(0);
  return {
    admit: (cost) => async (ctx, next) => {
      if (!gate.tryEnter(cost)) {
        shed.inc();
        ctx.state.shed = true;
        throw new ServiceError(
          'SERVICE_UNAVAILABLE',
          'The service is working on as many requests as it admits; retry after Retry-After seconds.',
          { retryAfter: SHED_RETRY_AFTER_SECONDS },
        );
      }
      gauge.set(gate.inFlight);
      try {
        await next();
      } finally {
        gate.leave(cost);
        gauge.set(gate.inFlight);
      }
    },
  };
}
