import type { Queryable } from '../../persistence/database.js';
import { lapsedHoldsInTheWay, recordHoldEnds } from '../../persistence/hold-repository.js';
import { optionReleasedData } from '../event-data.js';
import { holdEndOf, holdStep } from './hold-state.js';

/**
 * Ends, through the hold machine's EXPIRE, the holds lapsed at `now` whose timers have not fired yet where they block
 * `[start, end)` of a provider (or a new hold on `resolutionId`): each is loaded FOR UPDATE, the machine decides its
 * end (expired at its expiry), and the ledger records that with its option.released event. The hold actors follow on
 * their own timers (a late EXPIRE is harmless). The caller holds the claim locks of the providers concerned
 * (lockProviderClaims), in its transaction. Answers the ids of the holds ended.
 */
export async function endLapsedHolds(
  tx: Queryable,
  p: { providerId: string; start: Date; end: Date; resolutionId?: string | null; now: Date },
): Promise<string[]> {
  const at = p.now.toISOString();
  const ends = (await lapsedHoldsInTheWay(tx, p)).flatMap((hold) => {
    const end = holdEndOf(holdStep(hold, { type: 'EXPIRE', at }));
    if (end?.state !== 'expired') return [];
    const data = optionReleasedData({
      resolutionId: hold.resolution_id,
      optionId: hold.option_id,
      holdId: hold.ref_id,
      releasedAt: end.endedAt,
      reason: 'expired',
    });
    const event = { platformId: hold.platform_id, organizationId: hold.organization_id, mode: hold.mode, data };
    return [{ refId: hold.ref_id, state: end.state, endedAt: end.endedAt, bookingId: null, event }];
  });
  return recordHoldEnds(tx, ends, p.now);
}
