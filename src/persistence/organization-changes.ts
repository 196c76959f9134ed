import type { Redis } from './redis-client.js';
import { ORGANIZATION_CHANGES_CHANNEL } from './redis-keys.js';

/** Announces changed organizations to every process, and hears the others' announcements. */
export interface OrganizationChanges {
  /** Tells every process (this one included) that these organizations' rows changed; never throws. */
  announce(organizationIds: readonly string[]): void;
  /**
   * Calls `onChange` with each announced organization id, and with `undefined` after the subscriber connection was
   * lost and is back (announcements made meanwhile are gone: the listener then forgets everything). Resolves once the
   * subscription is in place, or at once when Redis cannot be reached (the listener's time bound covers the gap).
   */
  listen(onChange: (organizationId: string | undefined) => void): Promise<void>;
  /** Closes the subscriber connection. */
  close(): Promise<void>;
}

/**
 * createOrganizationChanges uses one Redis pub/sub channel (classic PUBLISH, which a Redis Cluster carries to every
 * node) and one subscriber connection per process, a `duplicate()` of `redis` opened on the first listen.
 */
export function createOrganizationChanges(deps: { redis: Redis }): OrganizationChanges {
  let subscriber: Redis | undefined;
  let closed = false;
  return {
    announce(ids) {
      if (ids.length === 0) return;
      void deps.redis.publish(ORGANIZATION_CHANGES_CHANNEL, ids.join(',')).catch(() => undefined);
    },
    async listen(onChange) {
      if (closed || subscriber) throw new Error('organization changes: one listener per process');
      const s = deps.redis.duplicate() as Redis;
      subscriber = s;
      s.on('error', () => undefined);
      let readyOnce = false;
      s.on('ready', () => {
        if (readyOnce) onChange(undefined);
        readyOnce = true;
      });
      try {
        await s.connect();
        await s.subscribe(ORGANIZATION_CHANGES_CHANNEL, (message: string) => {
          for (const id of message.split(',')) if (id) onChange(id);
        });
      } catch {
        // Unreachable now: node-redis connects and subscribes again by itself; the 'ready' above then clears.
      }
    },
    async close() {
      closed = true;
      const s = subscriber;
      subscriber = undefined;
      if (s) await s.close().catch(() => s.destroy());
    },
  };
}
