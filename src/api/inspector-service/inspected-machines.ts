import type { AnyStateMachine } from 'xstate';
import {
  bookingActorKind,
  holdActorKind,
  resolutionActorKind,
  waitlistEntryActorKind,
} from '../../../machines/machine-versions.js';
import { MachineName } from '../../gen/scheduling/v1/resources.js';
import { INSPECTED_MACHINES, MachineName as MachineNameRule } from '../../contract/schemas/inspector.js';
import type { ActorKind } from '../../persistence/actor-store.js';
import { describeMachine } from '../../application/inspector/describe-machine.js';
import { machineDot } from '../../application/inspector/machine-dot.js';
import type { Machine } from '../../gen/scheduling/v1/resources.js';
import type { RequestProblems } from '../request-problems.js';
import { machineMessage } from '../messages/machine-message.js';

/** A machine the inspector knows, which is also the kind of actor it shows. */
export type InspectedMachine = (typeof INSPECTED_MACHINES)[number];

/** The actor kinds the inspector shows, by machine name. */
export const KINDS: Record<InspectedMachine, ActorKind<AnyStateMachine>> = {
  resolution: resolutionActorKind,
  hold: holdActorKind,
  booking: bookingActorKind,
  waitlist_entry: waitlistEntryActorKind,
};

/** The catalogue's messages, described once per process: the machines do not change while it runs. */
export const CATALOGUE: readonly { name: InspectedMachine; machine: Machine }[] = INSPECTED_MACHINES.map((name) => {
  const m = describeMachine(KINDS[name].machine, KINDS[name].version);
  return { name, machine: machineMessage({ ...m, dot: machineDot(m) }) };
});

/** The machine a request names; UNSPECIFIED: not given. */
const NAME_OF: Partial<Record<MachineName, InspectedMachine>> = {
  [MachineName.MACHINE_NAME_RESOLUTION]: 'resolution',
  [MachineName.MACHINE_NAME_HOLD]: 'hold',
  [MachineName.MACHINE_NAME_BOOKING]: 'booking',
  [MachineName.MACHINE_NAME_WAITLIST_ENTRY]: 'waitlist_entry',
};

/** The typed name of a machine. */
export const MACHINE_NAME: Record<InspectedMachine, MachineName> = {
  resolution: MachineName.MACHINE_NAME_RESOLUTION,
  hold: MachineName.MACHINE_NAME_HOLD,
  booking: MachineName.MACHINE_NAME_BOOKING,
  waitlist_entry: MachineName.MACHINE_NAME_WAITLIST_ENTRY,
};

/**
 * Reads the machine a request names into `problems` under `field` (REST `machine` or `kind`): required, one of the
 * inspected machines, judged with the contract's rule so the messages are the REST door's.
 */
export function readMachineName(
  problems: RequestProblems,
  field: string,
  name: MachineName | undefined,
): InspectedMachine | undefined {
  const given =
    name === undefined || name === MachineName.MACHINE_NAME_UNSPECIFIED ? undefined : (NAME_OF[name] ?? String(name));
  return problems.check(field, MachineNameRule, given);
}
