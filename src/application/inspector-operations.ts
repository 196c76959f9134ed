import type { AnyStateMachine } from 'xstate';
import {
  bookingActorKind,
  holdActorKind,
  resolutionActorKind,
  waitlistEntryActorKind,
} from '../../machines/machine-versions.js';
import { parseInput } from '../contract/parse-input.js';
import { ActorPath, INSPECTED_MACHINES, MachinePath } from '../contract/schemas/inspector.js';
import { ServiceError } from '../errors/service-error.js';
import type { ActorKind } from '../persistence/actor-store.js';
import { actorOwner } from '../persistence/actor-owner.js';
import { readActorView } from './inspector/actor-view.js';
import { createActorWatcher } from './inspector/actor-watcher.js';
import { describeMachine } from './inspector/describe-machine.js';
import { machineDot } from './inspector/machine-dot.js';
import type { Caller } from './caller.js';
import type { OperationTable } from './operation.js';
import type { ResolutionDeps } from './resolution/resolution-deps.js';
import { AUDIT_ACTIONS } from './audit/audit-actions.js';

/** The actor kinds the inspector shows, by machine name. */
const KINDS: Record<(typeof INSPECTED_MACHINES)[number], ActorKind<AnyStateMachine>> = {
  resolution: resolutionActorKind,
  hold: holdActorKind,
  booking: bookingActorKind,
  waitlist_entry: waitlistEntryActorKind,
};

const NOT_FOUND = {
  resolution: 'RESOLUTION_NOT_FOUND',
  hold: 'HOLD_NOT_FOUND',
  booking: 'BOOKING_NOT_FOUND',
  waitlist_entry: 'WAITLIST_ENTRY_NOT_FOUND',
} as const;

/** The catalogue, described once per process: the machines do not change while it runs. */
const CATALOGUE = INSPECTED_MACHINES.map((name) => {
  const m = describeMachine(KINDS[name].machine, KINDS[name].version);
  return { name, machine: { ...m, dot: machineDot(m) } };
});

/** The kind and id of an actor the caller may see: tenancy comes from the PostgreSQL row that owns it. */
async function actorOfCaller(deps: ResolutionDeps, caller: Caller, params: Record<string, string>) {
  const { kind, id } = parseInput(ActorPath, params);
  // Actors of every kind live under one key space: the owning row, not the key, says whose the actor is.
  const owner = await actorOwner(deps.db, kind, id);
  if (owner === undefined) throw new ServiceError(NOT_FOUND[kind]);
  if (owner !== caller.organizationId)
    throw new ServiceError('FORBIDDEN', `This ${kind} belongs to another organization.`);
  return {
    kind,
    id,
    gone: () =>
      new ServiceError(NOT_FOUND[kind], `The ${kind} ${id} has no actor in the store (expired or never mirrored).`),
  };
}

/**
 * InspectorService operations: the machine catalogue, read-only views of the caller's organization's actors, and a
 * live follow of one actor. The number of actors followed is the `scheduling_inspector_actor_watchers` gauge.
 */
export function createInspectorOperations(deps: ResolutionDeps): OperationTable {
  const watcher = createActorWatcher({ actors: deps.actors, redis: deps.redis, changes: deps.actorChanges });
  deps.metrics.gaugeOnScrape(
    'scheduling_inspector_actor_watchers',
    'Actors followed live through InspectorService/WatchActor in this process.',
    () => watcher.active,
  );
  return {
    ListMachines: {
      audit: { ...AUDIT_ACTIONS.inspectorMachinesList, kind: 'read' },
      async handler() {
        return { machines: CATALOGUE.map((c) => c.machine) };
      },
    },
    GetMachine: {
      audit: { ...AUDIT_ACTIONS.inspectorMachineRead, kind: 'read' },
      async handler(_caller, input) {
        const { machine } = parseInput(MachinePath, input.params);
        return CATALOGUE.find((c) => c.name === machine)!.machine;
      },
    },
    GetActor: {
      audit: { ...AUDIT_ACTIONS.inspectorActorRead, kind: 'read' },
      async handler(caller, input) {
        const { kind, id, gone } = await actorOfCaller(deps, caller, input.params);
        const view = await readActorView(deps, KINDS[kind], id);
        if (!view) throw gone();
        return view;
      },
    },
    WatchActor: {
      audit: { ...AUDIT_ACTIONS.inspectorActorWatch, kind: 'read' },
      streaming: true,
      async stream(caller, input, send, signal) {
        const { kind, id, gone } = await actorOfCaller(deps, caller, input.params);
        await watcher.follow(KINDS[kind], id, send, signal, gone);
      },
    },
  };
}
