import type { AuditEntry, PreparedAuditEvent } from './audit-log.js';
import type { Redis } from './redis-client.js';
import { createStreamGroup } from './redis-stream-group.js';

/** The Redis stream of audit events waiting to be written to PostgreSQL, and its consumer group (one hash tag). */
export const AUDIT_STREAM = { key: '{audit}:pending', group: 'audit-drain' } as const;

/** Entries read from the stream: their stream ids, the events they carry, and ids of entries that could not be read. */
export interface AuditStreamBatch {
  entryIds: string[];
  events: PreparedAuditEvent[];
  malformed: { entryId: string; raw: unknown }[];
}

/** A durable buffer of audit events in a Redis stream, drained into audit_events by workers (audit-drain). */
export interface AuditStream {
  /** Appends one event; resolves once Redis has accepted it (with the AOF, it is on disk within a second). */
  append(event: PreparedAuditEvent): Promise<void>;
  /** Creates the consumer group if it does not exist (from the start of the stream, so nothing is skipped). */
  ensureGroup(): Promise<void>;
  /**
   * Reads up to `count` entries for `consumer`: first its own delivered but unacknowledged ones (a failed write),
   * then those another consumer left unacknowledged for `claimIdleMs` (a dead worker), then new ones.
   */
  read(consumer: string, count: number, claimIdleMs: number): Promise<AuditStreamBatch>;
  /** Acknowledges entries whose events are committed in PostgreSQL and removes them from the stream. */
  ack(entryIds: readonly string[]): Promise<void>;
  /** The id of the newest entry in the stream, if any. */
  newestEntryId(): Promise<string | undefined>;
  /** Answers whether an entry with an id up to `entryId` is still in the stream (not yet drained). */
  holdsEntriesThrough(entryId: string): Promise<boolean>;
}

/** Encodes an event as the one field of its stream entry. */
function encode(e: PreparedAuditEvent): string {
  return JSON.stringify({
    id: e.id,
    entry: { ...e.entry, timestamp: e.entry.timestamp.toISOString() },
    unless: e.unlessEventIds ?? [],
  });
}

/** Decodes a stream entry's field back into an event. */
function decode(raw: string): PreparedAuditEvent {
  const v = JSON.parse(raw) as {
    id: string;
    entry: Omit<AuditEntry, 'timestamp'> & { timestamp: string };
    unless: string[];
  };
  if (typeof v.id !== 'string' || typeof v.entry?.organizationId !== 'string' || typeof v.entry.timestamp !== 'string')
    throw new Error('not an audit event');
  return { id: v.id, entry: { ...v.entry, timestamp: new Date(v.entry.timestamp) }, unlessEventIds: v.unless };
}

/** Builds the audit stream on a node-redis client. */
export function createAuditStream(deps: { redis: Redis }): AuditStream {
  const { redis } = deps;
  const { key, group } = AUDIT_STREAM;
  const consumers = createStreamGroup({ redis, key, group });
  return {
    async append(event) {
      await redis.xAdd(key, '*', { e: encode(event) });
    },
    ensureGroup: () => consumers.ensureGroup(),
    async read(consumer, count, claimIdleMs) {
      const batch: AuditStreamBatch = { entryIds: [], events: [], malformed: [] };
      for (const m of await consumers.read(consumer, count, claimIdleMs)) {
        batch.entryIds.push(m.id);
        try {
          batch.events.push(decode(m.message?.e ?? ''));
        } catch {
          batch.malformed.push({ entryId: m.id, raw: m.message });
        }
      }
      return batch;
    },
    ack: (entryIds) => consumers.ack(entryIds),
    newestEntryId: () => consumers.newestEntryId(),
    holdsEntriesThrough: (entryId) => consumers.holdsEntriesThrough(entryId),
  };
}
