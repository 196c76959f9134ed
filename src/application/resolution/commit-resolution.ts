import { resolutionActorKind } from '../../../machines/machine-versions.js';
import { storeEvent } from '../../persistence/event-outbox.js';
import { insertResolution } from '../../persistence/resolution-repository.js';
import type { OrgGraph } from './org-graph.js';
import type { ResolutionDeps } from './resolution-deps.js';
import type { ResolutionWritePlan } from './plan-resolution-writes.js';

/**
 * Performs a resolution's planned writes. The review hand-off, the Redis record and the ledger (row, events and audit
 * in one statement: one transaction) are written at once; the actor is created once the ledger has committed, so an
 * actor never exists without its ledger row. A failure answers an error and leaves at most a record or a ledger row
 * without an actor (reads answer 404; the record expires with its TTL; the idempotency key is not stored, so a retry
 * starts over), or review entries of providers that were indeed unknown. A refused plan stores its incidents and
 * hands off its review only.
 */
export async function commitResolution(
  deps: Pick<ResolutionDeps, 'db' | 'records' | 'actors' | 'reviewHandOff'>,
  id: string,
  graph: OrgGraph,
  plan: ResolutionWritePlan,
): Promise<void> {
  if (plan.refused) {
    const { incidents } = plan;
    await Promise.all([
      deps.reviewHandOff(plan.review),
      incidents.length > 0
        ? deps.db.transaction(async (tx) => {
            for (const e of incidents) await storeEvent(tx, e);
          })
        : undefined,
    ]);
    return;
  }
  // The graph's snapshot (what candidates are recomputed from) is written beside, not awaited: a large graph's takes
  // seconds, and until it is there candidates read the graph itself while its version is current.
  deps.records.ensureSnapshot(graph).catch(() => undefined);
  await Promise.all([
    deps.reviewHandOff(plan.review),
    deps.records.save(id, plan.record),
    insertResolution(deps.db, plan.ledger),
  ]);
  const { actor } = plan;
  await deps.actors.create(resolutionActorKind, id, actor.input, {
    timers: actor.timers,
    expireAt: actor.expireAt,
    causedBy: actor.causedBy,
  });
}
