import type { Queryable } from '../../persistence/database.js';
import { lapsedHoldsInTheWay, recordHoldEnds } from '../../persistence/hold-repository.js';
import { lockProviderClaims } from '../../persistence/slot-claims.js';
import { holdEndOf, holdReleasedEvent, holdStep } from './hold-state.js';

/**
 * Ends, through the hold machine's EXPIRE, the holds lapsed at `now` whose timers have not fired yet where they block
 * `[start, end)` of a provider (or a new hold on `resolutionId`): it takes the claim locks of the providers concerned
 * in `tx` (the provider's, and with `resolutionId` those of that resolution's lapsed hold, in the one lock order),
 * loads each hold FOR UPDATE, lets the machine decide its end (expired at its expiry), and records that with its
 * option.released event. The hold actors follow on their own timers (a late EXPIRE is harmless). The caller claims
 * again in the same transaction. Answers the ids of the holds ended.
 */
export async function endLapsedHolds(
  tx: Queryable,
  p: { providerId: string; start: Date; end: Date; resolutionId?: string | null; now: Date },
): Promise<string[]> {
  await lockProviderClaims(
    tx,
    [p.providerId],
    p.resolutionId ? { resolutionId: p.resolutionId, now: p.now } : undefined,
  );
  const at = p.now.toISOString();
  const ends = (await lapsedHoldsInTheWay(tx, p)).flatMap((hold) => {
    const end = holdEndOf(holdStep(hold, { type: 'EXPIRE', at }));
    if (end?.state !== 'expired') return [];
    const event = holdReleasedEvent(hold, end);
    return [{ refId: hold.ref_id, state: end.state, endedAt: end.endedAt, bookingId: null, event }];
  });
  return recordHoldEnds(tx, ends, p.now);
}
