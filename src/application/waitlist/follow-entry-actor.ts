import type { WaitlistEntryEvent } from '../../../machines/waitlist-entry-machine.js';
import { waitlistEntryActorKind } from '../../../machines/machine-versions.js';
import type { ActorStore, StepCause } from '../../persistence/actor-store.js';
import { ActorAlreadyExistsError, ActorNotFoundError } from '../../persistence/actor-store-errors.js';
import type { StoredWaitlistEntry } from '../../persistence/waitlist-repository.js';
import { waitlistEntryInputOf } from './waitlist-entry-state.js';

/** How long a waitlist entry actor's keys live after its last step. */
export const ENTRY_ACTOR_TTL_MS = 30 * 86_400_000;

/**
 * Mirrors a step the entry's row recorded onto its actor in Redis: an OFFER schedules the durable `lapse` timer at
 * the offer's end with the snapshot. An entry made before offers existed has no actor: it is created from the row
 * (as it was before the step) and then takes the event.
 */
export async function followEntryActor(
  deps: { actors: ActorStore; clock: () => Date },
  before: StoredWaitlistEntry,
  event: WaitlistEntryEvent,
  causedBy: StepCause,
): Promise<void> {
  const kind = waitlistEntryActorKind;
  const id = before.entry.id;
  const expireAt = new Date(deps.clock().getTime() + ENTRY_ACTOR_TTL_MS);
  const send = () =>
    deps.actors.send(kind, id, event, {
      causedBy,
      expireAt,
      onTransition: (_b, after) =>
        after.value === 'offered' && after.context.offer
          ? { timers: [{ name: 'lapse', dueAt: new Date(after.context.offer.expiresAt) }] }
          : undefined,
    });
  try {
    await send();
  } catch (err) {
    if (!(err instanceof ActorNotFoundError)) throw err;
    await deps.actors.create(kind, id, waitlistEntryInputOf(before), { causedBy, expireAt }).catch((e: unknown) => {
      if (!(e instanceof ActorAlreadyExistsError)) throw e;
    });
    if (before.entry.status === 'waiting') await send();
  }
}
