import type { BookingContext, BookingEvent, BookingStatus } from '../../../machines/booking-machine.js';
import type { StepCause } from '../../persistence/actor-store.js';
import type { BookingRow } from '../../persistence/booking-repository.js';
import type { Queryable } from '../../persistence/database.js';
import type { ResolutionDeps } from '../resolution/resolution-deps.js';
import { bookingStep, recordBookingStep, storedStatus } from './booking-state.js';
import { writeBookingActor, type WriteBookingActorDeps } from './write-booking-actor.js';

/** How one booking step reads its row and what it commits with the row's change. */
export interface BookingStepPlan<T> {
  /** Reads the booking's row and locks it (FOR UPDATE) in the step's transaction; undefined when there is none. */
  load: (tx: Queryable) => Promise<BookingRow | undefined>;
  /**
   * Writes the step's consequences (events, e-mail, audit, claim end, a stored answer) in the same transaction, only
   * when the machine changed the booking; `after` is the row as stored. Its answer is the result's `committed`.
   */
  commit?: (tx: Queryable, before: BookingRow, after: BookingRow) => Promise<T>;
  causedBy: StepCause;
}

/** What a booking step did: the machine's state after the event, whether it changed, the row before and as stored. */
export interface BookingStepResult<T> {
  value: BookingStatus;
  changed: boolean;
  before: BookingRow;
  row: BookingRow;
  /** What `commit` answered, when the step changed the booking. */
  committed?: T;
}

/** What stepBooking uses: the database, and what the booking actor's write uses. */
export type StepBookingDeps = Pick<ResolutionDeps, 'db'> & WriteBookingActorDeps;

/**
 * The one writer of a booking's lifecycle (CONFIRM, CANCEL, RESCHEDULE, COMPLETE). In one PostgreSQL transaction it
 * reads the row under its lock, runs the event through the booking machine once (pure), and, when the machine changed
 * anything, stores the machine's next state as the row's status and fields with every consequence of the step
 * (`plan.commit`). Then the booking actor in Redis is written from that same transition, with compare-and-set on its
 * revision (`writeBookingActor`); a step the machine ignores writes nothing to the ledger and brings an actor that
 * lags behind its row (a crash between the commit and the actor write) up to the row. Answers undefined when `load`
 * found no row.
 */
export async function stepBooking<T = void>(
  deps: StepBookingDeps,
  event: BookingEvent,
  plan: BookingStepPlan<T>,
): Promise<BookingStepResult<T> | undefined> {
  const outcome = await deps.db.transaction(async (tx) => {
    const before = await plan.load(tx);
    if (!before) return undefined;
    const step = bookingStep(before, event);
    const value = storedStatus(step.value);
    if (!step.changed) return { result: { value, changed: false, before, row: before } as BookingStepResult<T> };
    const row = await recordBookingStep(tx, before.id, step.value, step.context as unknown as BookingContext);
    const result: BookingStepResult<T> = { value, changed: true, before, row };
    if (plan.commit) result.committed = await plan.commit(tx, before, row);
    return { result, after: step.after };
  });
  if (!outcome) return undefined;
  const { result, after } = outcome;
  await writeBookingActor(deps, result.row, {
    causedBy: plan.causedBy,
    ...(after ? { step: { event, before: result.before, after } } : {}),
  });
  return result;
}
