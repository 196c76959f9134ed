import type { AppDeps } from '../application/app-deps.js';
import { lapseOffer, type LapseOfferDeps } from '../application/waitlist/lapse-offer.js';
import { offerFreedTime, type OfferFreedTimeDeps } from '../application/waitlist/offer-freed-time.js';
import { finishOfferJob, leaseOfferJob } from '../persistence/waitlist-offer-jobs.js';
import { overdueOffers } from '../persistence/waitlist-repository.js';
import { listenForOfferJobs } from '../persistence/listen-for-offer-jobs.js';
import { createPollingWorker, type WakeableWorker } from './polling-worker.js';

/** How long a worker holds a job before another may take it (its worker is presumed dead). */
const LEASE_MS = 30_000;
/** A job that failed this many times is dropped (logged): its time is offered by the next freeing anyway. */
const MAX_ATTEMPTS = 5;
/** An offer still `offered` this long after its end has lost its lapse timer: the sweep lapses it. */
const OVERDUE_GRACE_MS = 5_000;
/** How often the overdue sweep runs, at most. */
const SWEEP_EVERY_MS = 5_000;

/** What the waitlist offer worker uses: offerFreedTime's and lapseOffer's dependencies, and tracing when on. */
export type WaitlistOfferWorkerDeps = OfferFreedTimeDeps & LapseOfferDeps & Pick<AppDeps, 'tracing'>;

/**
 * The waitlist offer worker (CONTRACT part 8): leases the jobs that freeing transactions queued (migration 0012's
 * trigger, queueFreedTime) and offers each one's time to the waitlist (offerFreedTime); a job is deleted only once
 * offered, so a worker killed mid-job leaves it to another after LEASE_MS. Any number of processes run it: jobs are
 * leased with SKIP LOCKED, and the ledger's hold and the entry's row lock keep one slot to one entry and one offer per
 * entry. Every few seconds it also lapses offers whose durable timer was lost (a crash between commit and timer).
 * A queued job wakes it at once (LISTEN on migration 0015's notification, sent when the freeing transaction commits,
 * in whichever process); the poll every `pollMs` stays as the safety net for a notification lost to a reconnect.
 */
export function createWaitlistOfferWorker(
  deps: WaitlistOfferWorkerDeps,
  opts: {
    pollMs?: number;
    log: (msg: string, extra?: Record<string, unknown>) => void;
    /** Called with each job's time from freeing to the end of its offers, and how many were made. */
    onJobDone?: (job: { createdAt: Date; offers: number }) => void;
    /** Off: poll only (the latency the wake-up removes, for comparison). */
    listen?: boolean;
  },
): WakeableWorker {
  let sweptAt = 0;
  let listener: { stop(): Promise<void> } | undefined;
  const poller = createPollingWorker({
    pollMs: opts.pollMs ?? 250,
    step: async () => {
      const now = deps.clock();
      if (now.getTime() - sweptAt >= SWEEP_EVERY_MS) {
        sweptAt = now.getTime();
        for (const id of await overdueOffers(deps.db, new Date(now.getTime() - OVERDUE_GRACE_MS), 50))
          await lapseOffer(deps, id).catch((err: unknown) =>
            opts.log('waitlist lapse failed', { entryId: id, error: String(err) }),
          );
      }
      const job = await leaseOfferJob(deps.db, now, LEASE_MS);
      if (!job) return false;
      // A leased job is worth a trace (the polls that find none are not): its offers' statements and commands.
      const run = async () => {
        const offers = await offerFreedTime(deps, {
          organizationId: job.organizationId,
          platformId: job.platformId,
          providerId: job.providerId,
          from: job.freedFrom,
          to: job.freedTo,
        });
        await finishOfferJob(deps.db, job.id);
        return offers;
      };
      try {
        const offers = deps.tracing
          ? await deps.tracing.inSpan(
              'waitlist offer',
              {
                root: true,
                attributes: {
                  'scheduling.organization_id': job.organizationId,
                  'waitlist.job_id': job.id,
                  'waitlist.job_attempt': job.attempts,
                },
              },
              async (span) => {
                const made = await run();
                span.setAttribute('waitlist.offers', made);
                return made;
              },
            )
          : await run();
        opts.onJobDone?.({ createdAt: job.createdAt, offers });
      } catch (err) {
        opts.log('waitlist offer failed', { jobId: job.id, attempts: job.attempts, error: String(err) });
        if (job.attempts >= MAX_ATTEMPTS) await finishOfferJob(deps.db, job.id);
      }
      return true;
    },
  });
  return {
    wake: () => poller.wake(),
    start() {
      poller.start();
      if (opts.listen !== false) listener = listenForOfferJobs(deps.db, () => poller.wake(), opts.log);
    },
    async stop() {
      await listener?.stop();
      listener = undefined;
      await poller.stop();
    },
  };
}
