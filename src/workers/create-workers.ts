import type { ResolutionDeps } from '../application/resolution/resolution-deps.js';
import { createTimerWorker } from '../persistence/durable-timers.js';
import type { AttemptDeps } from '../application/webhooks/attempt-delivery.js';
import { createActorTimerHandler, type ActorTimerHandlerDeps, type TimerHandlers } from './actor-timer-handler.js';
import { createIdempotencyAnswerSweeper } from './idempotency-answer-sweeper.js';
import { createEventSweeper } from './event-sweeper.js';
import { createImportWorker } from './import-worker.js';
import { createReviewRecorder } from './review-recorder.js';
import { createEmailWorker, createSmtpSender } from './email-worker.js';
import type { AuditWorkers } from './create-audit-workers.js';
import type { Worker } from './worker.js';
import { createWebhookDispatcher } from './webhook-dispatcher.js';
import { createWebhookSender } from './webhook-sender.js';
import { createWaitlistOfferWorker, type WaitlistOfferWorkerDeps } from './waitlist-offer-worker.js';
import { createGraphSnapshotBuilder } from './graph-snapshot-builder.js';

/**
 * What the workers use: the webhook sender's, the timer handler's and the waitlist offer worker's dependencies, the
 * durable timers, the review stream, the configuration (SMTP) and the outbound DNS.
 */
export type CreateWorkersDeps = AttemptDeps &
  ActorTimerHandlerDeps &
  WaitlistOfferWorkerDeps &
  Pick<ResolutionDeps, 'timers' | 'reviewQueue' | 'config' | 'outboundLookup' | 'orgGraphs'>;

/**
 * Builds the background workers of this process: import jobs, durable timers, the manual-review recorder, the audit
 * drain and sequencer (when given), the webhook dispatcher and sender, the sweepers of day-old idempotent answers and
 * of events over 30 days old, the builder of large graphs' snapshots, the waitlist offer worker, and
 * (with SMTP_URL) the e-mail outbox.
 */
export function createWorkers(
  deps: CreateWorkersDeps,
  opts: {
    log: (msg: string, extra?: Record<string, unknown>) => void;
    timerHandlers?: TimerHandlers;
    timerIntervalMs?: number;
    waitlistPollMs?: number;
    audit?: AuditWorkers;
  },
): Worker {
  const webhookSender = createWebhookSender(deps, {
    log: opts.log,
    ...(deps.outboundLookup ? { lookup: deps.outboundLookup } : {}),
  });
  const dispatcher = createWebhookDispatcher({ db: deps.db, clock: deps.clock, onPending: () => webhookSender.wake() });
  const workers: Worker[] = [
    dispatcher,
    webhookSender,
    createImportWorker({ db: deps.db, clock: deps.clock, log: opts.log }),
    createIdempotencyAnswerSweeper({ db: deps.db, clock: deps.clock }),
    createEventSweeper({ db: deps.db, clock: deps.clock }),
    createGraphSnapshotBuilder({
      db: deps.db,
      clock: deps.clock,
      minProviders: deps.config.graphSnapshotMinProviders,
      loadGraph: async (organizationId) => (await deps.orgGraphs(organizationId)).snapshotStored,
    }),
    createReviewRecorder({ db: deps.db, queue: deps.reviewQueue, log: opts.log }),
    createTimerWorker({
      timers: deps.timers,
      handler: createActorTimerHandler(deps, opts.timerHandlers),
      clock: deps.clock,
      intervalMs: opts.timerIntervalMs ?? 250,
      onError: (err, timer) => opts.log('timer failed', { timer, error: String(err) }),
    }),
    createWaitlistOfferWorker(deps, {
      log: opts.log,
      ...(opts.waitlistPollMs ? { pollMs: opts.waitlistPollMs } : {}),
      // A `waitlist.offered` just committed goes out at once rather than at the dispatcher's next poll.
      onJobDone: (job) => {
        if (job.offers > 0) dispatcher.wake();
      },
    }),
    ...(opts.audit?.workers ?? []),
  ];
  if (deps.config.smtpUrl) {
    workers.push(
      createEmailWorker({
        db: deps.db,
        clock: deps.clock,
        send: createSmtpSender(deps.config.smtpUrl, deps.config.publicBaseUrl),
        log: opts.log,
      }),
    );
  }
  return {
    start: () => workers.forEach((w) => w.start()),
    stop: async () => {
      await Promise.all(workers.map((w) => w.stop()));
    },
  };
}
