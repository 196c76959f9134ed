import type { Queryable } from '../../persistence/database.js';
import { queueFreedTime } from '../../persistence/waitlist-offer-jobs.js';
import { OFFER_HORIZON_DAYS } from './offer-to-entry.js';

/**
 * Queues a provider's time from `now` to the offer horizon for the waitlist, in the caller's transaction (only when
 * the organization has a waiting entry): the triggers that may free time without ending a claim — a schedule added
 * or widened, a service added, the provider's data changed (a constraint it now meets).
 */
export function queueProviderTime(
  tx: Queryable,
  p: { organizationId: string; platformId: string; providerId: string; now: Date },
): Promise<void> {
  return queueFreedTime(tx, {
    ...p,
    from: p.now,
    to: new Date(p.now.getTime() + OFFER_HORIZON_DAYS * 86_400_000),
  });
}
