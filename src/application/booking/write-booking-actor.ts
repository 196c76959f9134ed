import type { SnapshotFrom } from 'xstate';
import type { BookingEvent } from '../../../machines/booking-machine.js';
import { bookingActorKind } from '../../../machines/machine-versions.js';
import type { LoadedActor, StepCause } from '../../persistence/actor-store.js';
import { ActorAlreadyExistsError } from '../../persistence/actor-store-errors.js';
import type { BookingRow } from '../../persistence/booking-repository.js';
import type { ResolutionDeps } from '../resolution/resolution-deps.js';
import { bookingInputOf, bookingSnapshotOf } from './booking-state.js';

type BookingSnapshot = SnapshotFrom<typeof bookingActorKind.machine>;

const DAY_MS = 86_400_000;
/** Compare-and-set attempts before the write is left to the next step. */
const WRITE_ATTEMPTS = 3;

/** A snapshot's state value and context as text, context keys sorted: equal text, same state. */
function stateText(s: { value: unknown; context: object }): string {
  const c = s.context as Record<string, unknown>;
  return JSON.stringify([
    s.value,
    Object.keys(c)
      .sort()
      .map((k) => [k, c[k]]),
  ]);
}

/** What writeBookingActor uses: the actor store and the clock. */
export type WriteBookingActorDeps = Pick<ResolutionDeps, 'actors' | 'clock'>;

/**
 * Writes a booking's ledger row (the system of record, as a step of `stepBooking` or the insert of a new booking just
 * committed it) to its Redis actor: the state that the step's own transition decided (default: the row's state; the
 * history names the step's event, or `RESYNC` when the actor was not where the step started),
 * with compare-and-set on the revision the actor was read at, the `complete` timer of a confirmed booking with it. A
 * missing actor is created from the row first (a new booking, or one Redis lost), so the actor of a booking that
 * lagged behind its row (a crash between the commit and this write) is repaired by its next step. A final actor is
 * never overwritten: the booking machine only moves forward and a final state is its last step, so a slower writer
 * of an earlier step cannot undo a later one. Never fails the request: the ledger has committed.
 */
export async function writeBookingActor(
  deps: WriteBookingActorDeps,
  row: BookingRow,
  opts: { causedBy: StepCause; step?: { event: BookingEvent; before: BookingRow; after: BookingSnapshot } },
): Promise<void> {
  const { step } = opts;
  const now = deps.clock();
  const after = step?.after ?? bookingSnapshotOf(row);
  const stepFrom = step && stateText(bookingSnapshotOf(step.before));
  const expireAt = new Date(Math.max(row.end_at.getTime(), now.getTime()) + 30 * DAY_MS);
  const timers = after.value === 'confirmed' ? [{ name: 'complete', dueAt: new Date(after.context.endsAt) }] : [];
  try {
    for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt++) {
      // A new booking (no event) has no actor yet: creating it first saves a read.
      const loaded = step
        ? ((await deps.actors.load(bookingActorKind, row.id)) ?? (await createActor(deps, row, opts, expireAt)))
        : ((await createActor(deps, row, opts, expireAt)) ?? (await deps.actors.load(bookingActorKind, row.id)));
      if (!loaded) continue;
      if (loaded.snapshot.status !== 'active' || stateText(loaded.snapshot) === stateText(after)) return;
      const written = await deps.actors.write(
        bookingActorKind,
        row.id,
        {
          revision: loaded.revision,
          // The step's event when the actor was where the step started; else the actor catches up with its row.
          event: step && stateText(loaded.snapshot) === stepFrom ? step.event : { type: 'RESYNC' },
          before: loaded.snapshot,
          after,
        },
        { timers, expireAt, causedBy: opts.causedBy },
      );
      if (written !== undefined) return;
    }
  } catch {
    // The ledger committed; the booking's next step writes its actor again (see above).
  }
}

/** Creates a booking's actor from its row's input (the machine's first state); undefined when another writer did. */
async function createActor(
  deps: Pick<ResolutionDeps, 'actors'>,
  row: BookingRow,
  opts: { causedBy: StepCause },
  expireAt: Date,
): Promise<LoadedActor<typeof bookingActorKind.machine> | undefined> {
  const input = bookingInputOf(row);
  const timers = input.initialStatus === 'confirmed' ? [{ name: 'complete', dueAt: row.end_at }] : [];
  try {
    return await deps.actors.create(bookingActorKind, row.id, input, { expireAt, causedBy: opts.causedBy, timers });
  } catch (err) {
    if (err instanceof ActorAlreadyExistsError) return undefined;
    throw err;
  }
}
