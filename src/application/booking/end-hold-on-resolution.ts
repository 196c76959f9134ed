import { resolutionActorKind } from '../../../machines/machine-versions.js';
import type { StepCause } from '../../persistence/actor-store.js';
import { ActorNotFoundError } from '../../persistence/actor-store-errors.js';
import type { ResolutionDeps } from '../resolution/resolution-deps.js';
import { SYSTEM_CAUSE } from '../step-cause.js';

/** Mirrors "the hold ended" into the resolution actor and re-arms its expiry at the (possibly later) deadline. */
export async function endHoldOnResolution(
  deps: Pick<ResolutionDeps, 'actors' | 'clock'>,
  resolutionId: string,
  holdId: string,
  causedBy: StepCause = SYSTEM_CAUSE,
): Promise<void> {
  await deps.actors
    .send(
      resolutionActorKind,
      resolutionId,
      { type: 'HOLD_ENDED', holdId, at: deps.clock().toISOString() },
      {
        causedBy,
        onTransition: (_before, after) => ({ timers: [{ name: 'expire', dueAt: new Date(after.context.expiresAt) }] }),
      },
    )
    .catch((err) => {
      if (!(err instanceof ActorNotFoundError)) throw err;
    });
}
