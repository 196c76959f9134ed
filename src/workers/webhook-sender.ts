import { attemptDelivery, DELIVERY_LEASE_MS, type AttemptDeps } from '../application/webhooks/attempt-delivery.js';
import { createWebhookPoster } from '../application/webhooks/post-webhook.js';
import type { OutboundLookup } from '../application/outbound/guarded-lookup.js';
import { randomHex } from '../persistence/new-id.js';
import { claimDueDeliveries, type ClaimedDelivery } from '../persistence/webhook-delivery-queue.js';
import type { Worker } from './worker.js';

/** Options of createWebhookSender. */
export interface WebhookSenderOptions {
  log: (msg: string, extra?: Record<string, unknown>) => void;
  lookup?: OutboundLookup;
  /** How often to look for due deliveries when nothing woke the sender. @default 200 */
  pollMs?: number;
  /** Deliveries this process sends at once. @default 64 */
  perProcess?: number;
  /** Deliveries of one organization in flight at once over all processes. @default 8 */
  perOrganization?: number;
  /** How long an in-flight send may still finish (and be recorded) after stop is called. @default 1000 */
  stopGraceMs?: number;
}

/** The sender worker; `wake` makes it look for due deliveries now. */
export interface WebhookSender extends Worker {
  wake(): void;
}

/**
 * Sends due webhook deliveries: claims them under a lease (PostgreSQL, shared by every process), sends each through
 * the guarded poster and records the attempt. Keeps up to `perProcess` sends in flight and claims again as soon as one
 * finishes; organizations take turns in each claim and have at most `perOrganization` in flight, so a receiver that
 * hangs for the whole 10 s timeout holds only its own organization's slots. A send interrupted by a crash or a stop
 * is not recorded; its lease runs out and another sender attempts it again (at-least-once).
 */
export function createWebhookSender(deps: AttemptDeps, opts: WebhookSenderOptions): WebhookSender {
  const perProcess = opts.perProcess ?? 64;
  const perOrganization = opts.perOrganization ?? 8;
  const poster = createWebhookPoster({
    allowInsecure: deps.config.outboundAllowInsecureUrls,
    ...(opts.lookup ? { lookup: opts.lookup } : {}),
  });
  // A request cut off by stop() is no attempt of the receiver's: throwing keeps it unrecorded.
  const post: typeof poster.post = async (url, body, headers) => {
    const r = await poster.post(url, body, headers);
    if (!running && r.statusCode === null) throw new Error('sender stopped during the request');
    return r;
  };
  const inFlight = new Set<Promise<void>>();
  let running = false;
  let claiming = false;
  let again = false;
  let timer: NodeJS.Timeout | undefined;

  const send = (d: ClaimedDelivery) => {
    const p = (async () => {
      try {
        const out = await attemptDelivery(deps, post, d);
        if (!out.recorded)
          opts.log('webhook attempt not recorded: lease lost', { deliveryId: d.id, attempt: d.attempt });
      } catch (err) {
        // Recording failed (a store outage): the lease runs out and the attempt is made again.
        if (running) opts.log('webhook attempt failed to record', { deliveryId: d.id, error: String(err) });
      }
    })();
    inFlight.add(p);
    void p.finally(() => {
      inFlight.delete(p);
      fill();
    });
  };

  /** Claims as many due deliveries as there are free slots; one claim at a time, coalescing wake-ups. */
  const fill = () => {
    if (!running) return;
    if (claiming) {
      again = true;
      return;
    }
    claiming = true;
    void (async () => {
      try {
        do {
          again = false;
          const free = perProcess - inFlight.size;
          if (free <= 0) break;
          const claimed = await claimDueDeliveries(deps.db, deps.clock(), {
            limit: free,
            perOrganization,
            leaseMs: DELIVERY_LEASE_MS,
            leaseToken: randomHex(12),
          });
          if (!running) break;
          for (const d of claimed) send(d);
          if (claimed.length === free) again = true;
        } while (again && running);
      } catch (err) {
        opts.log('webhook claim failed', { error: String(err) });
      } finally {
        claiming = false;
      }
    })();
  };

  return {
    wake: fill,
    start() {
      running = true;
      timer = setInterval(fill, opts.pollMs ?? 200);
      timer.unref();
      fill();
    },
    async stop() {
      running = false;
      if (timer) clearInterval(timer);
      const grace = new Promise<void>((r) => setTimeout(r, opts.stopGraceMs ?? 1000).unref());
      await Promise.race([Promise.all(inFlight), grace]);
      poster.close();
      // Sends cut off here are not recorded (the pool closes next): their leases run out and they are attempted again.
      await Promise.race([Promise.all(inFlight), new Promise<void>((r) => setTimeout(r, 100).unref())]);
    },
  };
}
