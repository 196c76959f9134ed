/** A delivery's status (CONTRACT part 6). */
export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'dead_lettered' | 'suppressed';

/** Where a delivery stands before an attempt. */
export interface DeliveryBefore {
  status: DeliveryStatus;
  /** Automatic attempts made before this one. */
  automaticAttempts: number;
}

/** Where a delivery stands after an attempt. */
export interface DeliveryAfter {
  status: DeliveryStatus;
  automaticAttempts: number;
  /** Due time of the next automatic attempt; null when none is scheduled. */
  nextAttemptAt: Date | null;
}

/**
 * The retry schedule: attempt 1 at once, then one attempt after each of `delaysSeconds` (60, 300, 1800, 7200 s by
 * default: five automatic attempts). Success makes the delivery `delivered`. A failed automatic attempt schedules the
 * next (`failed`) or, after the last, dead-letters it. A failed manual attempt (a replay) schedules nothing new: the
 * delivery goes back to `dead_lettered` once the automatic attempts are spent, else stays `failed` with its next
 * automatic attempt one delay from now; a delivered or suppressed delivery keeps its status. A 410 Gone counts as any
 * other failure.
 */
export function afterAttempt(
  before: DeliveryBefore,
  outcome: { success: boolean; manual: boolean; at: Date },
  delaysSeconds: readonly number[],
): DeliveryAfter {
  const maxAutomatic = delaysSeconds.length + 1;
  const automaticAttempts = before.automaticAttempts + (outcome.manual ? 0 : 1);
  if (outcome.success) return { status: 'delivered', automaticAttempts, nextAttemptAt: null };
  if (outcome.manual && (before.status === 'delivered' || before.status === 'suppressed'))
    return { status: before.status, automaticAttempts, nextAttemptAt: null };
  if (automaticAttempts >= maxAutomatic) return { status: 'dead_lettered', automaticAttempts, nextAttemptAt: null };
  // Before automatic attempt n+1 comes delay n (delaysSeconds[n-1]); a replay before any automatic attempt leaves the first due now.
  const delay = automaticAttempts === 0 ? 0 : delaysSeconds[automaticAttempts - 1]!;
  return { status: 'failed', automaticAttempts, nextAttemptAt: new Date(outcome.at.getTime() + delay * 1000) };
}
