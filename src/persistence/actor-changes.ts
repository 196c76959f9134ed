import type { Redis } from './redis-client.js';
import { actorChangesChannel } from './redis-keys.js';

/** Tells a process when actors it follows changed, from the announcements of the actor store's write scripts. */
export interface ActorChanges {
  /**
   * Calls `onChange` after each committed step of the actor `kind`/`id`, and once after the subscriber connection was
   * lost and is back (announcements made meanwhile are gone). Resolves once the subscription is in place, so a read
   * made afterwards misses no later step; when Redis cannot be reached it resolves anyway (the caller's fallback read
   * covers the gap). Returns the function that stops the calls.
   */
  listen(kind: string, id: string, onChange: () => void): Promise<() => void>;
  /** Actors with at least one listener in this process. */
  readonly channels: number;
  /** Closes the subscriber connection. */
  close(): Promise<void>;
}

/**
 * Creates the change feed: one subscriber connection per process (a `duplicate()` of `redis`, opened on the first
 * listen) with shard-channel subscriptions (SSUBSCRIBE), one per actor followed however many listen to it (node-redis
 * counts the listeners of a channel), so a step reaches only the processes that follow its actor.
 */
export function createActorChanges(deps: { redis: Redis }): ActorChanges {
  /** Every listener, with its channel and whether Redis has its subscription (a failed one is tried again). */
  const active = new Map<(message: string) => void, { channel: string; subscribed: boolean; onChange: () => void }>();
  /** Listeners stopped while Redis was unreachable: node-redis would subscribe them again, so they are undone later. */
  const orphans = new Map<(message: string) => void, string>();
  let subscriber: Redis | undefined;
  let connecting: Promise<Redis> | undefined;
  let closed = false;

  function connect(): Promise<Redis> {
    connecting ??= (async () => {
      const s = deps.redis.duplicate() as Redis;
      s.on('error', () => undefined);
      let readyOnce = false;
      // node-redis subscribes again by itself after a reconnect, but what was published in between is lost: every
      // listener reads its actor once more.
      s.on('ready', () => {
        if (!readyOnce) {
          readyOnce = true;
          return;
        }
        for (const [listener, channel] of orphans) unsubscribe(s, channel, listener);
        for (const [listener, l] of active) {
          if (!l.subscribed) void subscribe(listener);
          l.onChange();
        }
      });
      await s.connect();
      subscriber = s;
      return s;
    })().catch((err: unknown) => {
      connecting = undefined;
      throw err;
    });
    return connecting;
  }

  async function subscribe(listener: (message: string) => void): Promise<void> {
    const l = active.get(listener);
    if (!l || closed) return;
    try {
      const s = await connect();
      if (!active.has(listener)) return;
      await s.sSubscribe(l.channel, listener);
      l.subscribed = true;
      // Stopped while its SSUBSCRIBE was on its way: undo it.
      if (!active.has(listener)) await s.sUnsubscribe(l.channel, listener);
    } catch {
      // Redis unreachable: the follower's fallback reads stand in until a reconnect subscribes it.
    }
  }

  function unsubscribe(s: Redis, channel: string, listener: (message: string) => void): void {
    orphans.set(listener, channel);
    void s.sUnsubscribe(channel, listener).then(
      () => orphans.delete(listener),
      () => undefined,
    );
  }

  return {
    get channels() {
      return new Set([...active.values()].map((l) => l.channel)).size;
    },
    async listen(kind, id, onChange) {
      const channel = actorChangesChannel(kind, id);
      const listener = () => onChange();
      active.set(listener, { channel, subscribed: false, onChange });
      await subscribe(listener);
      return () => {
        const l = active.get(listener);
        if (!l) return;
        active.delete(listener);
        if (l.subscribed && subscriber) unsubscribe(subscriber, channel, listener);
      };
    },
    async close() {
      closed = true;
      active.clear();
      orphans.clear();
      const s = subscriber ?? (await connecting?.catch(() => undefined));
      if (s) await s.close().catch(() => s.destroy());
    },
  };
}
