import { transition, type AnyStateMachine, type EventFromLogic, type SnapshotFrom } from 'xstate';

/**
 * Runs one event through a machine from a state rebuilt from the system of record (the PostgreSQL row),
 * without I/O. Answers the next state value and context, and whether anything changed. Every status change
 * of holds and bookings is decided here, by their machine, in one run of its transition.
 */
export function machineStep<M extends AnyStateMachine>(
  machine: M,
  value: string,
  context: Record<string, unknown>,
  event: EventFromLogic<M>,
) {
  const snapshot = machine.resolveState({ value, context } as never) as SnapshotFrom<M>;
  const [next] = transition(machine, snapshot, event) as [SnapshotFrom<M>, unknown];
  const nextValue = String((next as { value: unknown }).value);
  const nextContext = (next as { context: Record<string, unknown> }).context;
  return {
    value: nextValue,
    context: nextContext,
    /** The machine's whole next state, as an actor of this machine would hold it after the event. */
    after: next,
    changed: nextValue !== value || JSON.stringify(nextContext) !== JSON.stringify(context),
  };
}
