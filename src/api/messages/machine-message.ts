import type {
  MachineDescription,
  StateDescription,
  TransitionDescription,
} from '../../application/inspector/describe-machine.js';
import {
  MachineState_Type,
  type Machine,
  type MachineState,
  type MachineTransition,
} from '../../gen/scheduling/v1/resources.js';

/** A state's type as the typed API names it. */
const STATE_TYPE: Record<StateDescription['type'], MachineState_Type> = {
  atomic: MachineState_Type.TYPE_ATOMIC,
  compound: MachineState_Type.TYPE_COMPOUND,
  parallel: MachineState_Type.TYPE_PARALLEL,
  final: MachineState_Type.TYPE_FINAL,
  history: MachineState_Type.TYPE_HISTORY,
};

/** The `MachineState` message of a state, its child states in `child_states` (REST `states`). */
function machineStateMessage(s: StateDescription): MachineState {
  return {
    id: s.id,
    key: s.key,
    type: STATE_TYPE[s.type],
    initial: s.initial ?? undefined,
    childStates: s.states.map(machineStateMessage),
  };
}

function transitionMessage(t: TransitionDescription): MachineTransition {
  return {
    source: t.source,
    event: t.event,
    target: t.target ?? undefined,
    guard: t.guard ?? undefined,
    actions: [...t.actions],
  };
}

/** The `Machine` message of a machine description and its DOT drawing. */
export function machineMessage(m: MachineDescription & { dot: string }): Machine {
  return {
    id: m.id,
    version: m.version,
    initial: m.initial ?? undefined,
    states: m.states.map(machineStateMessage),
    events: [...m.events],
    transitions: m.transitions.map(transitionMessage),
    dot: m.dot,
  };
}
