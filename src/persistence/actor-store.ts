import {
  createActor,
  type Actor,
  type AnyMachineSnapshot,
  type AnyStateMachine,
  type EventFromLogic,
  type InputFrom,
  type SnapshotFrom,
} from 'xstate';
import {
  ActorAlreadyExistsError,
  ActorNotFoundError,
  ActorRuntimeError,
  ConcurrencyConflictError,
  MachineVersionError,
} from './actor-store-errors.js';
import { COMPARE_AND_SET_ACTOR, CREATE_ACTOR } from './actor-store-scripts.js';
import type { DurableTimers } from './durable-timers.js';
import type { Redis } from './redis-client.js';
import { actorKeys, isKeyPart, outboxIndexKey, type ActorKeys } from './redis-keys.js';

/** A snapshot as `getPersistedSnapshot()` returns it, parsed from JSON. */
export type PersistedSnapshot = Record<string, unknown>;

/** A kind of actor: its name (part of every key), its machine, the machine's version and how to upgrade old snapshots. */
export interface ActorKind<TMachine extends AnyStateMachine = AnyStateMachine> {
  name: string;
  machine: TMachine;
  version: number;
  /** Upgrades a snapshot written by `fromVersion` to `version`; applied on load, written back on the next change. */
  migrate?: (snapshot: PersistedSnapshot, fromVersion: number) => PersistedSnapshot;
}

/** A timer to schedule with a write: `name` fires for this actor at `dueAt`. */
export interface TimerRequest {
  name: string;
  dueAt: Date;
}

/** What a transition leaves behind, written in the same atomic step as the snapshot. */
export interface TransitionEffects {
  /** JSON payloads appended to the actor's outbox list. */
  outbox?: object[];
  timers?: TimerRequest[];
}

/** Who caused a step: an API call (its key and request) or the service itself (a timer, a repair). */
export type StepCause =
  | { type: 'key'; keyId: string; keyType: string; requestId: string }
  | { type: 'system'; requestId?: string };

/** One line of an actor's bounded history. */
export interface HistoryEntry {
  event: string;
  from: unknown;
  to: unknown;
  at: string;
  revision: number;
  /** Absent in entries written before causes were recorded, and when the writer did not say. */
  causedBy?: StepCause;
}

/** An actor read from Redis: its restored snapshot and the revision the next write must compare against. */
export interface LoadedActor<TMachine extends AnyStateMachine> {
  snapshot: SnapshotFrom<TMachine>;
  revision: number;
  /** The version the stored snapshot was written by (before any migration on this load). */
  machineVersion: number;
}

/** The outcome of `send`: the states before and after, and whether anything was written. */
export interface SendResult<TMachine extends AnyStateMachine> {
  before: SnapshotFrom<TMachine>;
  after: SnapshotFrom<TMachine>;
  /** False when the event changed nothing (ignored, guarded out, or the actor is final): nothing was written. */
  changed: boolean;
  revision: number;
}

/** Options of `send`. */
export interface SendOptions<TMachine extends AnyStateMachine> {
  /**
   * Called only when the event changed the snapshot; returns the outbox rows and timers to write with it.
   * It may run more than once (once per compare-and-set attempt), so it must be pure.
   */
  onTransition?: (before: SnapshotFrom<TMachine>, after: SnapshotFrom<TMachine>) => TransitionEffects | void;
  /** Moves the expiry of all the actor's keys. */
  expireAt?: Date;
  /** Who caused the event, recorded in the history entry. */
  causedBy?: StepCause;
}

/** A step decided outside the store (`write`): the revision its `before` was loaded at, its event and its result. */
export interface WrittenStep<TMachine extends AnyStateMachine> {
  revision: number;
  /** The event's type names the history entry (a repair writes e.g. `RESYNC`). */
  event: { type: string };
  before: SnapshotFrom<TMachine>;
  after: SnapshotFrom<TMachine>;
}

/** Options of `create`. */
export interface CreateOptions extends TransitionEffects {
  /** When every key of the actor expires (e.g. a resolution lives 24 hours at most). */
  expireAt?: Date;
  /** Who caused the creation, recorded in the history entry. */
  causedBy?: StepCause;
}

/** Stores XState actors in Redis with optimistic concurrency, bounded history, durable timers and an outbox. */
export interface ActorStore {
  /** Starts a new actor from `input`; throws ActorAlreadyExistsError if the id is taken. */
  create<M extends AnyStateMachine>(
    kind: ActorKind<M>,
    id: string,
    input: InputFrom<M>,
    options?: CreateOptions,
  ): Promise<LoadedActor<M>>;
  /** Reads and restores an actor (migrating an old snapshot); undefined when it does not exist. */
  load<M extends AnyStateMachine>(kind: ActorKind<M>, id: string): Promise<LoadedActor<M> | undefined>;
  /** Reads an actor's current snapshot; undefined when it does not exist. */
  getSnapshot<M extends AnyStateMachine>(kind: ActorKind<M>, id: string): Promise<SnapshotFrom<M> | undefined>;
  /** Reads only an actor's revision (one HGET, nothing restored); undefined when it does not exist. */
  revision(kind: ActorKind, id: string): Promise<number | undefined>;
  /** Sends one event and writes the result with compare-and-set, retrying on conflict. */
  send<M extends AnyStateMachine>(
    kind: ActorKind<M>,
    id: string,
    event: EventFromLogic<M>,
    options?: SendOptions<M>,
  ): Promise<SendResult<M>>;
  /**
   * Writes `step.after`, a state the caller's own pure `transition` decided from the snapshot it loaded at
   * `step.revision`, with compare-and-set on that revision: the machine is not run again. Answers the new revision, or
   * undefined when another write came first (nothing written). Throws ActorNotFoundError when the actor is gone.
   */
  write<M extends AnyStateMachine>(
    kind: ActorKind<M>,
    id: string,
    step: WrittenStep<M>,
    options?: CreateOptions,
  ): Promise<number | undefined>;
  /** The actor's last transitions, oldest first (at most `historyLimit`). */
  history(kind: ActorKind, id: string): Promise<HistoryEntry[]>;
  /** Ids of actors of `kind` whose outbox may hold rows. */
  pendingOutboxes(kind: ActorKind, limit?: number): Promise<string[]>;
  /**
   * Hands up to `limit` outbox rows of one actor to `deliver`, then removes them; answers how many were delivered.
   * At least once: rows stay if `deliver` throws, and concurrent drains of one actor may deliver a row twice.
   */
  drainOutbox(
    kind: ActorKind,
    id: string,
    deliver: (rows: unknown[]) => Promise<void>,
    limit?: number,
  ): Promise<number>;
  /** Copies the actor's own timers into the global timer index (repair after a crash between the two writes). */
  resyncTimers(kind: ActorKind, id: string): Promise<number>;
}

/** Dependencies and settings of the actor store. */
export interface ActorStoreDeps {
  redis: Redis;
  clock: () => Date;
  /** The global timer index; when given, timers written with a transition are also scheduled there. */
  timers?: DurableTimers;
  /** Entries kept per actor history. */
  historyLimit?: number;
  /** Compare-and-set attempts before ConcurrencyConflictError. */
  maxAttempts?: number;
}

interface StoredRecord {
  persisted: PersistedSnapshot;
  revision: number;
  machineVersion: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Creates the actor store.
 *
 * Layout: each actor owns four keys under the hash tag `{kind:id}` (see redis-keys.ts): a hash (snapshot JSON,
 * revision, machineVersion, createdAt, updatedAt, expireAt), a capped history list, a zset of its timers and an outbox
 * list. A write touches only those keys in one Lua script, so snapshot, history, timers and outbox change together,
 * also on Redis Cluster. The global timer index (`{timers}:due`) and the outbox index live in other slots, so they are
 * updated right after the script: a crash between the two leaves the actor's own timers zset as the record, and
 * `resyncTimers` re-indexes it. On a single Redis node both could join the script; we keep the cluster-safe form.
 */
export function createActorStore(deps: ActorStoreDeps): ActorStore {
  const { redis, clock } = deps;
  const historyLimit = deps.historyLimit ?? 50;
  const maxAttempts = deps.maxAttempts ?? 5;

  async function readRecord(kind: ActorKind, id: string, keys: ActorKeys): Promise<StoredRecord | undefined> {
    const h = (await redis.hGetAll(keys.state)) as unknown as Record<string, string>;
    if (!h || h.snapshot === undefined || h.revision === undefined) return undefined;
    const storedVersion = Number(h.machineVersion ?? 0);
    let persisted = JSON.parse(h.snapshot) as PersistedSnapshot;
    if (storedVersion !== kind.version) {
      if (storedVersion > kind.version || !kind.migrate)
        throw new MachineVersionError(kind.name, id, storedVersion, kind.version);
      persisted = kind.migrate(persisted, storedVersion);
    }
    return { persisted, revision: Number(h.revision), machineVersion: storedVersion };
  }

  /** Starts an actor from input or a persisted snapshot; throws if it starts in status `error`. */
  function start(
    kind: ActorKind,
    id: string,
    from: { input: unknown } | { snapshot: PersistedSnapshot },
  ): Actor<AnyStateMachine> {
    const actor = createActor(kind.machine as AnyStateMachine, from as never) as Actor<AnyStateMachine>;
    // Without an error observer XState rethrows machine errors asynchronously; we read them from the snapshot instead.
    actor.subscribe({ error: () => undefined });
    actor.start();
    const snapshot = actor.getSnapshot();
    if (snapshot.status === 'error') {
      actor.stop();
      throw new ActorRuntimeError(kind.name, id, 'snapshot' in from ? 'restore' : 'event', snapshot.error);
    }
    return actor;
  }

  // Redis expires keys by its own wall clock; the injected clock may differ (tests), so keep the distance, not the instant.
  function redisExpireAt(expireAt: Date | undefined): string {
    return expireAt ? String(Date.now() + (expireAt.getTime() - clock().getTime())) : '';
  }

  function effectArgs(effects: TransitionEffects): string[] {
    const timers = effects.timers ?? [];
    return [
      String(historyLimit),
      String(timers.length),
      ...timers.flatMap((t) => [t.name, String(t.dueAt.getTime())]),
      ...(effects.outbox ?? []).map((row) => JSON.stringify(row)),
    ];
  }

  async function afterWrite(kind: ActorKind, id: string, effects: TransitionEffects): Promise<void> {
    if (deps.timers) for (const t of effects.timers ?? []) await deps.timers.schedule(kind.name, id, t.name, t.dueAt);
    if (effects.outbox?.length) await redis.sAdd(outboxIndexKey(kind.name), id);
  }

  const load: ActorStore['load'] = async (kind, id) => {
    // An id no actor can have (a client's id with whitespace, braces or "|") names none: not found, not a bad key.
    if (!isKeyPart(id)) return undefined;
    const rec = await readRecord(kind, id, actorKeys(kind.name, id));
    if (!rec) return undefined;
    const actor = start(kind, id, { snapshot: rec.persisted });
    const snapshot = actor.getSnapshot() as SnapshotFrom<typeof kind.machine>;
    actor.stop();
    return { snapshot, revision: rec.revision, machineVersion: rec.machineVersion };
  };

  return {
    load,

    async getSnapshot(kind, id) {
      return (await load(kind, id))?.snapshot;
    },

    async revision(kind, id) {
      if (!isKeyPart(id)) return undefined;
      const r = await redis.hGet(actorKeys(kind.name, id).state, 'revision');
      return r === null || r === undefined ? undefined : Number(r);
    },

    async create(kind, id, input, options = {}) {
      const keys = actorKeys(kind.name, id);
      const actor = start(kind, id, { input });
      const snapshot: AnyMachineSnapshot = actor.getSnapshot();
      const persisted = JSON.stringify(actor.getPersistedSnapshot());
      actor.stop();
      const now = clock().toISOString();
      const entry: HistoryEntry = {
        event: 'create',
        from: null,
        to: snapshot.value,
        at: now,
        revision: 1,
        ...(options.causedBy ? { causedBy: options.causedBy } : {}),
      };
      const created = await redis.eval(CREATE_ACTOR, {
        keys: [keys.state, keys.history, keys.timers, keys.outbox],
        arguments: [
          persisted,
          String(kind.version),
          now,
          redisExpireAt(options.expireAt),
          JSON.stringify(entry),
          ...effectArgs(options),
        ],
      });
      if (Number(created) !== 1) throw new ActorAlreadyExistsError(kind.name, id);
      await afterWrite(kind, id, options);
      return { snapshot: snapshot as SnapshotFrom<typeof kind.machine>, revision: 1, machineVersion: kind.version };
    },

    async send(kind, id, event, options = {}) {
      if (!isKeyPart(id)) throw new ActorNotFoundError(kind.name, id);
      const keys = actorKeys(kind.name, id);
      for (let attempt = 1; attempt <= maxAttempts; attempt++) {
        const rec = await readRecord(kind, id, keys);
        if (!rec) throw new ActorNotFoundError(kind.name, id);
        const actor = start(kind, id, { snapshot: rec.persisted });
        const before = actor.getSnapshot() as SnapshotFrom<typeof kind.machine>;
        const beforeJson = JSON.stringify(actor.getPersistedSnapshot());
        // A final (done) actor accepts no events: answer its state without sending (XState would warn).
        if ((before as { status: string }).status !== 'active') {
          actor.stop();
          return { before, after: before, changed: false, revision: rec.revision };
        }
        actor.send(event);
        const after = actor.getSnapshot() as SnapshotFrom<typeof kind.machine>;
        const afterJson = JSON.stringify(actor.getPersistedSnapshot());
        actor.stop();
        const failed = after as { status: string; error?: unknown };
        if (failed.status === 'error') throw new ActorRuntimeError(kind.name, id, 'event', failed.error);
        if (afterJson === beforeJson) return { before, after, changed: false, revision: rec.revision };

        const effects = options.onTransition?.(before, after) ?? {};
        const now = clock().toISOString();
        const entry: HistoryEntry = {
          event: (event as { type: string }).type,
          from: (before as { value: unknown }).value,
          to: (after as { value: unknown }).value,
          at: now,
          revision: rec.revision + 1,
          ...(options.causedBy ? { causedBy: options.causedBy } : {}),
        };
        const result = Number(
          await redis.eval(COMPARE_AND_SET_ACTOR, {
            keys: [keys.state, keys.history, keys.timers, keys.outbox],
            arguments: [
              String(rec.revision),
              afterJson,
              String(kind.version),
              now,
              redisExpireAt(options.expireAt),
              JSON.stringify(entry),
              ...effectArgs(effects),
            ],
          }),
        );
        if (result === -1) throw new ActorNotFoundError(kind.name, id);
        if (result > 0) {
          await afterWrite(kind, id, effects);
          return { before, after, changed: true, revision: result };
        }
        // Lost the race: re-read and re-apply the event on the newer state, after a tiny random pause.
        if (attempt < maxAttempts) await sleep(Math.random() * 2 ** attempt);
      }
      throw new ConcurrencyConflictError(kind.name, id, maxAttempts);
    },

    async write(kind, id, step, options = {}) {
      if (!isKeyPart(id)) throw new ActorNotFoundError(kind.name, id);
      const failed = step.after as { status: string; error?: unknown };
      if (failed.status === 'error') throw new ActorRuntimeError(kind.name, id, 'event', failed.error);
      const keys = actorKeys(kind.name, id);
      const now = clock().toISOString();
      const entry: HistoryEntry = {
        event: step.event.type,
        from: (step.before as { value: unknown }).value,
        to: (step.after as { value: unknown }).value,
        at: now,
        revision: step.revision + 1,
        ...(options.causedBy ? { causedBy: options.causedBy } : {}),
      };
      const result = Number(
        await redis.eval(COMPARE_AND_SET_ACTOR, {
          keys: [keys.state, keys.history, keys.timers, keys.outbox],
          arguments: [
            String(step.revision),
            JSON.stringify(kind.machine.getPersistedSnapshot(step.after)),
            String(kind.version),
            now,
            redisExpireAt(options.expireAt),
            JSON.stringify(entry),
            ...effectArgs(options),
          ],
        }),
      );
      if (result === -1) throw new ActorNotFoundError(kind.name, id);
      if (result < 0) return undefined;
      await afterWrite(kind, id, options);
      return result;
    },

    async history(kind, id) {
      if (!isKeyPart(id)) return [];
      const rows = await redis.lRange(actorKeys(kind.name, id).history, 0, -1);
      return rows.map((r) => JSON.parse(String(r)) as HistoryEntry);
    },

    async pendingOutboxes(kind, limit = 100) {
      const ids = await redis.sRandMemberCount(outboxIndexKey(kind.name), limit);
      return (ids ?? []).map(String);
    },

    async drainOutbox(kind, id, deliver, limit = 100) {
      const keys = actorKeys(kind.name, id);
      const rows = (await redis.lRange(keys.outbox, 0, limit - 1)).map((r) => JSON.parse(String(r)) as unknown);
      if (rows.length > 0) {
        await deliver(rows);
        await redis.lTrim(keys.outbox, rows.length, -1);
      }
      if ((await redis.lLen(keys.outbox)) === 0) {
        await redis.sRem(outboxIndexKey(kind.name), id);
        // A row pushed between the check and the removal re-indexes itself only if its SADD came later: re-check.
        if ((await redis.lLen(keys.outbox)) > 0) await redis.sAdd(outboxIndexKey(kind.name), id);
      }
      return rows.length;
    },

    async resyncTimers(kind, id) {
      if (!deps.timers) return 0;
      const entries = await redis.zRangeWithScores(actorKeys(kind.name, id).timers, 0, -1);
      for (const e of entries) await deps.timers.schedule(kind.name, id, String(e.value), new Date(Number(e.score)));
      return entries.length;
    },
  };
}
