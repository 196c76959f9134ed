import { transition, type AnyStateMachine, type EventFromLogic, type SnapshotFrom } from 'xstate';
import type { ActorKind, ActorStore, StepCause, TransitionEffects } from '../../persistence/actor-store.js';
import { ActorNotFoundError } from '../../persistence/actor-store-errors.js';
import type { Database, Queryable } from '../../persistence/database.js';

/** What one lifecycle step changed: the actor's states before and after, decided by its machine. */
export interface LifecycleStepResult<M extends AnyStateMachine> {
  before: SnapshotFrom<M>;
  after: SnapshotFrom<M>;
  changed: boolean;
}

/** How a kind of lifecycle records a step: its PostgreSQL consequences and the timers written with the actor. */
export interface LifecycleStepPlan<M extends AnyStateMachine> {
  /** Writes the step's ledger row, events and audit entries; runs inside one transaction, only for a change. */
  commit?: (tx: Queryable, before: SnapshotFrom<M>, after: SnapshotFrom<M>) => Promise<void>;
  /** The timers (and outbox rows) written with the actor's snapshot; must be pure (it may run once per retry). */
  effects?: (before: SnapshotFrom<M>, after: SnapshotFrom<M>) => TransitionEffects | void;
  causedBy?: StepCause;
}

/** The state value and context of a snapshot, as text: two snapshots with the same text are the same state. */
const stateText = (s: { value: unknown; context: unknown }) => JSON.stringify([s.value, s.context]);

/**
 * One step of an actor-kept lifecycle (API-DESIGN section 5): loads the actor, runs the machine's transition once
 * (pure), commits the step's consequences in one PostgreSQL transaction, then writes that same transition's state to
 * the actor in Redis with compare-and-set on the revision it was loaded at. The ledger commits first: a crash before
 * the actor write leaves the ledger ahead, and the next step (or a repeated timer: every guard re-checks time)
 * re-applies the event to the actor, whose `commit` is idempotent. When another write came first, the event is sent
 * to the newer state (its guards decide again). An event the machine ignores writes nothing anywhere. Throws
 * ActorNotFoundError when the actor does not exist (reads create a missing resolution actor again: resyncResolutionActor).
 */
export async function lifecycleStep<M extends AnyStateMachine>(
  deps: { db: Database; actors: ActorStore },
  kind: ActorKind<M>,
  id: string,
  event: EventFromLogic<M>,
  plan: LifecycleStepPlan<M> = {},
): Promise<LifecycleStepResult<M>> {
  const loaded = await deps.actors.load(kind, id);
  if (!loaded) throw new ActorNotFoundError(kind.name, id);
  const before = loaded.snapshot;
  // A final actor accepts no event (XState would warn): its state is the answer.
  if ((before as { status: string }).status !== 'active') return { before, after: before, changed: false };
  const [after] = transition(kind.machine, before, event) as [SnapshotFrom<M>, unknown];
  if (stateText(after as never) === stateText(before as never)) return { before, after, changed: false };
  if (plan.commit) await deps.db.transaction((tx) => plan.commit!(tx, before, after));
  const options = { ...(plan.effects?.(before, after) ?? {}), ...(plan.causedBy ? { causedBy: plan.causedBy } : {}) };
  const written = await deps.actors.write(kind, id, { revision: loaded.revision, event, before, after }, options);
  if (written !== undefined) return { before, after, changed: true };
  // Another step wrote first: this event goes to the newer state, whose guards decide again.
  const sent = await deps.actors.send(kind, id, event, {
    ...(plan.effects ? { onTransition: plan.effects } : {}),
    ...(plan.causedBy ? { causedBy: plan.causedBy } : {}),
  });
  return { before, after: sent.after, changed: true };
}
