import type { AnyStateMachine } from 'xstate';
import type { ActorKind, ActorStore, HistoryEntry } from '../../persistence/actor-store.js';
import { timerMember } from '../../persistence/durable-timers.js';
import type { Redis } from '../../persistence/redis-client.js';
import { actorKeys, TIMER_KEYS } from '../../persistence/redis-keys.js';
import { stateIds } from './describe-machine.js';

/** What the actor view reads from. */
export interface ActorViewDeps {
  actors: ActorStore;
  redis: Redis;
}

const idsOf = (machineId: string, value: unknown): string => stateIds(machineId, value).join(',');

/** A history entry as answered: `seq` is its revision; entries written before causes were recorded answer `causedBy: null`. */
function toHistoryView(e: HistoryEntry) {
  return { seq: e.revision, event: e.event, from: e.from ?? null, to: e.to, at: e.at, causedBy: e.causedBy ?? null };
}

/**
 * Reads the inspector's view of one actor from the actor store (snapshot hash, history list, own timers zset), or
 * undefined when the actor does not exist (never created, or expired). A timer is `pending` while the global timer
 * index still holds it (due or leased) and the actor has not reached a final state: the actor's own zset keeps fired
 * timers until the actor expires.
 */
export async function readActorView(deps: ActorViewDeps, kind: ActorKind<AnyStateMachine>, id: string) {
  const loaded = await deps.actors.load(kind, id);
  if (!loaded) return undefined;
  const machineId = kind.machine.id;
  const [history, timerRows] = await Promise.all([
    deps.actors.history(kind, id),
    deps.redis.zRangeWithScores(actorKeys(kind.name, id).timers, 0, -1),
  ]);
  const snapshot = loaded.snapshot as { value: unknown; status: string; context: Record<string, unknown> };
  // A final state takes no more events: a timer still indexed for a finished actor (a cancelled booking's `complete`,
  // a consumed hold's `expire`) would fire into nothing, so it is not pending.
  const finished = snapshot.status === 'done';
  const timers = await Promise.all(
    timerRows.map(async (row) => {
      const member = timerMember(kind.name, id, String(row.value));
      const [due, leased] = await Promise.all([
        deps.redis.zScore(TIMER_KEYS.due, member),
        deps.redis.zScore(TIMER_KEYS.leased, member),
      ]);
      return {
        event: String(row.value),
        dueAt: new Date(Number(row.score)).toISOString(),
        pending: !finished && (due !== null || leased !== null),
      };
    }),
  );
  const steps = history.filter((e) => e.from !== null && e.from !== undefined);
  return {
    kind: kind.name,
    id,
    machine: machineId,
    machineVersion: loaded.machineVersion,
    state: snapshot.value,
    activeStates: stateIds(machineId, snapshot.value),
    status: snapshot.status,
    revision: loaded.revision,
    snapshot: snapshot.context,
    history: history.map(toHistoryView),
    timers,
    transitionsTaken: steps.map((e, i) => ({
      n: i + 1,
      from: idsOf(machineId, e.from),
      event: e.event,
      to: idsOf(machineId, e.to),
    })),
  };
}
