import { transition, type AnyStateMachine } from 'xstate';

/**
 * The state a lifecycle kept as a PostgreSQL row's `status` (no actor, no timer) moves to on `event`, decided by
 * its machine; undefined when the machine refuses the event in that state. The operation then writes exactly this.
 */
export function rowStatusAfter<S extends string>(
  machine: AnyStateMachine,
  status: S,
  event: { type: string },
): S | undefined {
  const snapshot = machine.resolveState({ value: status, context: {} });
  if (!snapshot.can(event)) return undefined;
  const [next] = transition(machine, snapshot, event);
  return next.value as S;
}

/** The state a lifecycle kept in a row starts in (the machine's initial state). */
export function rowInitialStatus<S extends string>(machine: AnyStateMachine): S {
  return machine.resolveState({ value: machine.config.initial as string, context: {} }).value as S;
}
