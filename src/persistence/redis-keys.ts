/**
 * Redis key layout of the actor runtime and the durable timers.
 *
 * Keys that one Lua script touches share a hash tag (the `{...}` part), so they live in one cluster slot:
 * every key of an actor is tagged `{kind:id}`, and both timer sets are tagged `{timers}`.
 */

/** Keys of one actor: its state hash, capped history list, per-actor timers zset and outbox list. */
export interface ActorKeys {
  state: string;
  history: string;
  timers: string;
  outbox: string;
}

const FORBIDDEN = /[{}|\s]/;

/** Throws when a kind or id would break a hash tag or a timer member (`{`, `}`, `|`, whitespace, empty). */
export function assertKeyPart(label: string, value: string): void {
  if (value.length === 0 || FORBIDDEN.test(value)) {
    throw new Error(
      `Invalid actor ${label} ${JSON.stringify(value)}: it must be non-empty and contain no braces, "|" or whitespace.`,
    );
  }
}

/** Whether a kind or id can be part of an actor's keys (what `assertKeyPart` lets through). */
export function isKeyPart(value: string): boolean {
  return value.length > 0 && !FORBIDDEN.test(value);
}

/** Builds the keys of the actor `kind`/`id`, all under the hash tag `{kind:id}`. */
export function actorKeys(kind: string, id: string): ActorKeys {
  assertKeyPart('kind', kind);
  assertKeyPart('id', id);
  const base = `actor:{${kind}:${id}}`;
  return { state: base, history: `${base}:history`, timers: `${base}:timers`, outbox: `${base}:outbox` };
}

/** The set of actor ids of one kind whose outbox list may hold entries (an index, kept outside the actor's slot). */
export function outboxIndexKey(kind: string): string {
  assertKeyPart('kind', kind);
  return `outbox:${kind}:pending`;
}

/** The global timer sets: due timers scored by due time, leased ones scored by lease end. */
export const TIMER_KEYS = { due: '{timers}:due', leased: '{timers}:leased' } as const;

/**
 * The shard channel on which the actor store announces each committed step of an actor (its new revision). It shares
 * the actor's hash tag, so the write script can publish it (SPUBLISH) in the actor's own cluster slot.
 */
export function actorChangesChannel(kind: string, id: string): string {
  return `${actorKeys(kind, id).state}:changed`;
}

/**
 * The lease sets of open server streams, one per API key and one per organization, scored by lease end. All are tagged
 * `{streams}`, so one script counts and adds to a key's and an organization's set together, also on a cluster.
 */
export function streamLeaseKeys(keyId: string, organizationId: string): { key: string; organization: string } {
  return { key: `{streams}:key:${keyId}`, organization: `{streams}:org:${organizationId}` };
}

/** The pub/sub channel on which every process announces the organizations whose rows its transactions changed. */
export const ORGANIZATION_CHANGES_CHANNEL = 'organizations:changed';
