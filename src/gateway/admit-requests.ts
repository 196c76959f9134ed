import { performance } from 'node:perf_hooks';
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
   * Admits the request or throws 503 SERVICE_UNAVAILABLE with Retry-After; `budgetMs` is its remaining deadline. Call
   * the ticket's `leave` once the request's work is done.
   */
  admit(ctx: Koa.Context, budgetMs: number): Promise<AdmissionTicket>;
}

/** Refusals answered at once per second; past them, each waits its turn (see createRefusalPacer). */
const REFUSALS_PER_SECOND = 200;
/** Refusals answered at once in a burst above that rate. */
const REFUSAL_BURST = 50;

/**
 * createRefusalPacer bounds what refusing can cost: up to `perSecond` refusals (and a burst) are answered at once; the
 * rest wait for their turn before their answer goes out. Clients that wait Retry-After are refused far below that rate,
 * and at once; clients that send again at once are refused at that pace, so a storm of retries cannot spend the
 * process on refusals (at ~0.3 ms each, 200 a second take 6% of a core). A waiting refusal costs a timer.
 */
function createRefusalPacer(o: { perSecond: number; burst: number }) {
  let tokens = o.burst;
  let refilledAt = performance.now();
  // The time the last refusal waiting for its turn goes out: turns are handed out in order.
  let lastTurn = 0;
  return {
    /** Resolves when this refusal may go out (at once while the rate allows). */
    async turn(gone: AbortSignal): Promise<void> {
      const now = performance.now();
      tokens = Math.min(o.burst, tokens + ((now - refilledAt) * o.perSecond) / 1000);
      refilledAt = now;
      if (tokens >= 1) {
        tokens -= 1;
        return;
      }
      lastTurn = Math.max(lastTurn, now) + 1000 / o.perSecond;
      const wait = lastTurn - now;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, wait);
        gone.addEventListener(
          'abort',
          () => {
            clearTimeout(timer);
            resolve();
          },
          { once: true },
        );
      });
    },
  };
}

/**
 * createRequestAdmission bounds the work the gateway's routes do at once and queues the rest (admission-queue.ts). A
 * request that cannot start in time is answered 503 `SERVICE_UNAVAILABLE` with `Retry-After` (at once while
 * refusals stay under 200 a second, else at that pace: see createRefusalPacer); it sets `ctx.state.shed`, so the
 * access log can tell shedding from a store outage. A request whose client goes away while it waits leaves the
 * queue.
 */
export function createRequestAdmission(o: {
  limits: AdmissionQueueOptions;
  metrics: ServiceMetrics;
}): RequestAdmission {
  const queue = createAdmissionQueue(o.limits);
  const pacer = createRefusalPacer({ perSecond: REFUSALS_PER_SECOND, burst: REFUSAL_BURST });
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
    async admit(ctx, budgetMs) {
      const gone = new AbortController();
      const onClose = () => gone.abort();
      ctx.res.once('close', onClose);
      const pending = queue.enter({ budgetMs, signal: gone.signal });
      show();
      const a = await pending;
      if (!a.admitted) {
        show();
        o.metrics.admissionShed.inc({ gate: 'rest', reason: a.reason });
        ctx.state.shed = true;
        if (a.reason !== 'cancelled') await pacer.turn(gone.signal);
        throw new ServiceError(
          'SERVICE_UNAVAILABLE',
          a.reason === 'cancelled'
            ? 'The client went away before its request could start.'
            : 'The service could not start this request in time; retry after Retry-After seconds.',
          { retryAfter: SHED_RETRY_AFTER_SECONDS },
        );
      }
      ctx.res.off('close', onClose);
      waited.observe(a.ticket.waitedMs / 1000);
      show();
      const ticket = a.ticket;
      return {
        waitedMs: ticket.waitedMs,
        leave() {
          ticket.leave();
          show();
        },
      };
    },
  };
}
