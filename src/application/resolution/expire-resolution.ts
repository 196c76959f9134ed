import { resolutionActorKind } from '../../../machines/machine-versions.js';
import { recordResolutionStatus } from '../../persistence/resolution-repository.js';
import { lifecycleStep } from '../lifecycle/lifecycle-step.js';
import { SYSTEM_CAUSE } from '../step-cause.js';
import type { ResolutionDeps } from './resolution-deps.js';

/**
 * The durable expiry timer of a resolution: EXPIRE through the resolution machine, whose guard decides (a hold keeps
 * it alive; a late or repeated timer changes nothing). The one step that changes a resolution's state after its
 * creation, so the only one that writes `resolutions.status` (HOLD_STARTED, HOLD_ENDED and CONFIRMED stay in
 * `resolved`; the confirm records `booking_id` itself).
 */
export async function expireResolution(
  deps: Pick<ResolutionDeps, 'db' | 'actors' | 'clock'>,
  id: string,
): Promise<void> {
  await lifecycleStep(
    deps,
    resolutionActorKind,
    id,
    { type: 'EXPIRE', at: deps.clock().toISOString() },
    {
      causedBy: SYSTEM_CAUSE,
      commit: async (tx, before, after) => {
        if (after.value !== before.value) await recordResolutionStatus(tx, id, String(after.value));
      },
    },
  );
}
