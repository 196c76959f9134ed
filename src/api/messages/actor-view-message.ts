import type { ActorViewResult } from '../../application/inspector/actor-watcher.js';
import type { StepCause } from '../../persistence/actor-store.js';
import {
  MachineName,
  StepCause_Type,
  type ActorView,
  type StepCause as StepCauseMessage,
} from '../../gen/scheduling/v1/resources.js';

/** An actor kind as the typed API names it. */
const MACHINE_NAME: Record<string, MachineName> = {
  resolution: MachineName.MACHINE_NAME_RESOLUTION,
  hold: MachineName.MACHINE_NAME_HOLD,
  booking: MachineName.MACHINE_NAME_BOOKING,
  waitlist_entry: MachineName.MACHINE_NAME_WAITLIST_ENTRY,
};

const CAUSE_TYPE: Record<StepCause['type'], StepCause_Type> = {
  key: StepCause_Type.TYPE_KEY,
  system: StepCause_Type.TYPE_SYSTEM,
};

/** A state value as the typed API carries it: the state's key (the machines are flat); none: unset. */
const stateName = (value: unknown): string | undefined =>
  value === null || value === undefined ? undefined : String(value);

function causeMessage(c: StepCause): StepCauseMessage {
  return c.type === 'key'
    ? { type: CAUSE_TYPE.key, keyId: c.keyId, keyType: c.keyType, requestId: c.requestId }
    : { type: CAUSE_TYPE.system, requestId: c.requestId };
}

/** The `ActorView` message of the inspector's view of one actor. */
export function actorViewMessage(v: ActorViewResult): ActorView {
  return {
    machineName: MACHINE_NAME[v.kind] ?? MachineName.MACHINE_NAME_UNSPECIFIED,
    id: v.id,
    machine: v.machine,
    machineVersion: v.machineVersion,
    stateName: stateName(v.state),
    activeStates: [...v.activeStates],
    status: v.status,
    revision: v.revision,
    snapshot: v.snapshot,
    history: v.history.map((h) => ({
      seq: h.seq,
      event: h.event,
      fromState: stateName(h.from),
      toState: stateName(h.to) ?? '',
      at: new Date(h.at),
      causedBy: h.causedBy ? causeMessage(h.causedBy) : undefined,
    })),
    timers: v.timers.map((t) => ({ event: t.event, dueAt: new Date(t.dueAt), pending: t.pending })),
    transitionsTaken: v.transitionsTaken.map((t) => ({ n: t.n, from: t.from, event: t.event, to: t.to })),
  };
}
