import { typedOperation, typedStreamingOperation, type OperationTable } from '../../application/operation.js';
import { AUDIT_ACTIONS } from '../../application/audit/audit-actions.js';
import { createActorWatcher } from '../../application/inspector/actor-watcher.js';
import type { ActorChanges } from '../../persistence/actor-changes.js';
import type { ServiceMetrics } from '../../observability/service-metrics.js';
import { listMachines } from './list-machines.js';
import { getMachine } from './get-machine.js';
import { getActor, type GetActorDeps } from './get-actor.js';
import { watchActor } from './watch-actor.js';

/** What the InspectorService RPCs use together: the actor store and its change announcements, and the metrics. */
export interface InspectorServiceDeps extends GetActorDeps {
  actorChanges: ActorChanges;
  metrics: ServiceMetrics;
}

/**
 * InspectorService: the machine catalogue, read-only views of the caller's organization's actors, and a live follow of
 * one actor; each RPC with what it records in the audit log. The number of actors followed is the
 * `scheduling_inspector_actor_watchers` gauge.
 */
export function inspectorService(deps: InspectorServiceDeps): OperationTable {
  const watcher = createActorWatcher({ actors: deps.actors, redis: deps.redis, changes: deps.actorChanges });
  deps.metrics.gaugeOnScrape(
    'scheduling_inspector_actor_watchers',
    'Actors followed live through InspectorService/WatchActor in this process.',
    () => watcher.active,
  );
  return {
    ListMachines: typedOperation({ ...AUDIT_ACTIONS.inspectorMachinesList, kind: 'read' }, (caller, r) =>
      listMachines({}, caller, r),
    ),
    GetMachine: typedOperation({ ...AUDIT_ACTIONS.inspectorMachineRead, kind: 'read' }, (caller, r) =>
      getMachine({}, caller, r),
    ),
    GetActor: typedOperation({ ...AUDIT_ACTIONS.inspectorActorRead, kind: 'read' }, (caller, r) =>
      getActor(deps, caller, r),
    ),
    WatchActor: typedStreamingOperation(
      { ...AUDIT_ACTIONS.inspectorActorWatch, kind: 'read' },
      (caller, r, send, signal) => watchActor({ db: deps.db, watcher }, caller, r, send, signal),
    ),
  };
}
