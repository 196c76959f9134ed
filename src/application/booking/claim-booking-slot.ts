import type { Queryable } from '../../persistence/database.js';
import { claimSlot, slotUnavailable } from '../../persistence/slot-claims.js';
import { endLapsedHolds } from './end-lapsed-holds.js';

/**
 * Claims a booking's slot as the last statement of its transaction (claimSlot). A hold lapsed in the way (its timer
 * has not fired yet) is ended through the hold machine under the provider's claim lock first, then the slot is
 * claimed again in the same transaction (rare: the slow path).
 */
export async function claimBookingSlot(tx: Queryable, c: Parameters<typeof claimSlot>[1]): Promise<void> {
  if ((await claimSlot(tx, c)) === 'claimed') return;
  await endLapsedHolds(tx, { providerId: c.providerId, start: c.start, end: c.end, now: c.now });
  if ((await claimSlot(tx, c)) !== 'claimed') throw slotUnavailable();
}
