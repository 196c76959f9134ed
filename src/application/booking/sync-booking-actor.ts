import { ActorNotFoundError } from '../../persistence/actor-store-errors.js';
import { bookingActorKind } from '../../../machines/machine-versions.js';
import type { BookingEvent } from '../../../machines/booking-machine.js';
import type { BookingRow } from '../../persistence/booking-repository.js';
import type { StepCause } from '../../persistence/actor-store.js';
import type { ResolutionDeps } from '../resolution/resolution-deps.js';
import { SYSTEM_CAUSE } from '../step-cause.js';
import { bookingInputOf, initialBookingStatus } from './booking-state.js';

const DAY_MS = 86_400_000;

/**
 * Mirrors a committed booking change into its Redis actor (the PostgreSQL ledger is the system of record):
 * sends the event, or rebuilds a missing actor from the row first. The `complete` timer is (re)scheduled
 * for confirmed bookings. Mirroring never fails the request; a later change or read repairs it. `causedBy` (default
 * `system`) is recorded in the actor's history.
 */
export async function syncBookingActor(
  deps: ResolutionDeps,
  row: BookingRow,
  event: BookingEvent | undefined,
  opts: { causedBy?: StepCause; log?: (msg: string, extra?: Record<string, unknown>) => void } = {},
): Promise<void> {
  const causedBy = opts.causedBy ?? SYSTEM_CAUSE;
  const log = opts.log ?? (() => undefined);
  const now = deps.clock();
  const expireAt = new Date(Math.max(row.end_at.getTime(), now.getTime()) + 30 * DAY_MS);
  const timers = row.status === 'confirmed' ? [{ name: 'complete', dueAt: row.end_at }] : [];
  try {
    try {
      if (!event) throw new ActorNotFoundError(bookingActorKind.name, row.id);
      await deps.actors.send(bookingActorKind, row.id, event, { expireAt, causedBy, onTransition: () => ({ timers }) });
    } catch (err) {
      if (!(err instanceof ActorNotFoundError)) throw err;
      const input = bookingInputOf(row);
      const initialStatus = initialBookingStatus(row);
      await deps.actors
        .create(bookingActorKind, row.id, input, {
          expireAt,
          causedBy,
          timers: initialStatus === 'confirmed' ? [{ name: 'complete', dueAt: row.end_at }] : [],
        })
        .catch((e) => {
          if (e?.name !== 'ActorAlreadyExistsError') throw e;
        });
      if (event && row.status !== initialStatus)
        await deps.actors.send(bookingActorKind, row.id, event, {
          expireAt,
          causedBy,
          onTransition: () => ({ timers }),
        });
    }
  } catch (err) {
    log('booking actor mirror failed', { bookingId: row.id, error: String(err) });
  }
}
