import type { Redis } from './redis-client.js';

/** One entry read from a stream: its id and its fields (null when it was deleted while pending). */
export interface StreamEntry {
  id: string;
  message: Record<string, string> | null;
}

/**
 * A Redis stream drained by a consumer group: workers read entries, act on them, then acknowledge and delete them,
 * so the stream is only as long as the backlog. At-least-once: an entry is read again until it is acknowledged.
 */
export interface StreamGroup {
  /** Creates the consumer group if it does not exist (from the start of the stream, so nothing is skipped). */
  ensureGroup(): Promise<void>;
  /**
   * Reads up to `count` entries for `consumer`: first its own delivered but unacknowledged ones (a failed pass),
   * then those another consumer left unacknowledged for `claimIdleMs` (a dead worker), then new ones. Each id once.
   */
  read(consumer: string, count: number, claimIdleMs: number): Promise<StreamEntry[]>;
  /** Acknowledges entries that were acted on and removes them from the stream. */
  ack(entryIds: readonly string[]): Promise<void>;
  /** The id of the newest entry in the stream, if any. */
  newestEntryId(): Promise<string | undefined>;
  /** Answers whether an entry with an id up to `entryId` is still in the stream (not yet acknowledged). */
  holdsEntriesThrough(entryId: string): Promise<boolean>;
}

/** Builds the consumer-group side of the stream `key` for the group `group`. */
export function createStreamGroup(deps: { redis: Redis; key: string; group: string }): StreamGroup {
  const { redis, key, group } = deps;
  return {
    async ensureGroup() {
      try {
        await redis.xGroupCreate(key, group, '0', { MKSTREAM: true });
      } catch (err) {
        if (!/BUSYGROUP/.test((err as Error).message)) throw err;
      }
    },
    async read(consumer, count, claimIdleMs) {
      const out: StreamEntry[] = [];
      const seen = new Set<string>();
      const take = (messages: (StreamEntry | null)[]) => {
        for (const m of messages) {
          // XAUTOCLAIM reports entries deleted while pending; they were acknowledged already.
          if (!m || !m.message || seen.has(m.id)) continue;
          seen.add(m.id);
          out.push(m);
        }
      };
      const own = (await redis.xReadGroup(group, consumer, { key, id: '0' }, { COUNT: count })) as
        | { messages: StreamEntry[] }[]
        | null;
      take(own?.[0]?.messages ?? []);
      if (out.length < count) {
        const claimed = (await redis.xAutoClaim(key, group, consumer, claimIdleMs, '0-0', {
          COUNT: count - out.length,
        })) as { messages: (StreamEntry | null)[] };
        take(claimed.messages);
      }
      if (out.length < count) {
        const fresh = (await redis.xReadGroup(group, consumer, { key, id: '>' }, { COUNT: count - out.length })) as
          | { messages: StreamEntry[] }[]
          | null;
        take(fresh?.[0]?.messages ?? []);
      }
      return out;
    },
    async ack(entryIds) {
      if (entryIds.length === 0) return;
      const ids = [...entryIds];
      await redis.multi().xAck(key, group, ids).xDel(key, ids).exec();
    },
    async newestEntryId() {
      const last = await redis.xRevRange(key, '+', '-', { COUNT: 1 });
      return last?.[0]?.id;
    },
    async holdsEntriesThrough(entryId) {
      return ((await redis.xRange(key, '-', entryId, { COUNT: 1 }))?.length ?? 0) > 0;
    },
  };
}
