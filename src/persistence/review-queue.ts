import type { Redis } from './redis-client.js';
import { createStreamGroup, type StreamGroup } from './redis-stream-group.js';

/** The Redis stream of manual-review sightings waiting to be recorded, and its consumer group (one hash tag). */
export const REVIEW_STREAM = { key: '{review}:sightings', group: 'review-recorder' } as const;

/** One resolution's unknown providers, grouped by their reasons, as a worker records them in manual review. */
export interface ReviewSighting {
  organizationId: string;
  platformId: string;
  graphVersion: number;
  /** When the resolution found them unknown (its clock): their `lastSeenAt`. */
  seenAt: Date;
  groups: { reasons: readonly { code: string; field: string; detail: string }[]; providerIds: readonly string[] }[];
}

/** Sightings read from the stream: their entry ids, the sightings, and entries that could not be read. */
export interface ReviewSightingBatch {
  entryIds: string[];
  sightings: ReviewSighting[];
  malformed: { entryId: string; raw: unknown }[];
}

/**
 * The durable hand-off of manual review from resolutions to workers (CONTRACT part 7): a Redis stream the
 * review-recorder worker drains, and per organization the sets of unknown providers handed off lately, so that the
 * same set is handed off once per window instead of once per resolution.
 */
export interface ReviewQueue {
  /**
   * Hands a sighting off unless the same set (`fingerprint`) of the organization was handed off less than `windowMs`
   * before it and after the organization's last resolved entry; marking the set and appending it is one atomic step.
   * Answers whether it was appended.
   */
  offer(sighting: ReviewSighting, fingerprint: string, windowMs: number): Promise<boolean>;
  /** Answers whether `offer` would skip this set now (one small round trip, nothing sent but the fingerprint). */
  isRecent(organizationId: string, fingerprint: string, now: Date, windowMs: number): Promise<boolean>;
  /** Notes that an entry of the organization was resolved at `now`: the next sighting of any set is handed off again. */
  noteResolved(organizationId: string, now: Date, windowMs: number): Promise<void>;
  /** The consumer-group side, for the worker. */
  consumers: StreamGroup;
  /** Reads up to `count` sightings for `consumer` (see StreamGroup.read). */
  read(consumer: string, count: number, claimIdleMs: number): Promise<ReviewSightingBatch>;
}

const seenKey = (organizationId: string, fingerprint: string) => `{review}:seen:${organizationId}:${fingerprint}`;
const resolvedKey = (organizationId: string) => `{review}:resolved:${organizationId}`;

// Times are the service clock's epoch milliseconds (ARGV), not Redis's: tests move the clock by hand. A mark older
// than the window, later than "now" (a clock set back), or not later than the organization's last resolve is not recent.
// The keys' TTL (twice the window, in Redis's time) only clears marks nobody will read again.
const RECENT = `local mark = tonumber(redis.call('GET', KEYS[1]) or '')
if not mark then return 0 end
local now = tonumber(ARGV[1])
if now < mark or now - mark >= tonumber(ARGV[2]) then return 0 end
local resolved = tonumber(redis.call('GET', KEYS[2]) or '')
if resolved and mark <= resolved then return 0 end
return 1`;

const OFFER = `local function recent()
${RECENT}
end
if recent() == 1 then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', tonumber(ARGV[2]) * 2)
redis.call('XADD', KEYS[3], '*', 's', ARGV[3])
return 1`;

/** Encodes a sighting as the one field of its stream entry. */
function encode(s: ReviewSighting): string {
  return JSON.stringify({ ...s, seenAt: s.seenAt.toISOString() });
}

/** Decodes a stream entry's field back into a sighting. */
function decode(raw: string): ReviewSighting {
  const v = JSON.parse(raw) as Omit<ReviewSighting, 'seenAt'> & { seenAt: string };
  if (
    typeof v.organizationId !== 'string' ||
    typeof v.platformId !== 'string' ||
    typeof v.seenAt !== 'string' ||
    !Array.isArray(v.groups)
  )
    throw new Error('not a review sighting');
  return { ...v, seenAt: new Date(v.seenAt) };
}

/** Builds the review queue on a node-redis client. */
export function createReviewQueue(deps: { redis: Redis }): ReviewQueue {
  const { redis } = deps;
  const consumers = createStreamGroup({ redis, ...REVIEW_STREAM });
  return {
    async offer(sighting, fingerprint, windowMs) {
      const appended = await redis.eval(OFFER, {
        keys: [seenKey(sighting.organizationId, fingerprint), resolvedKey(sighting.organizationId), REVIEW_STREAM.key],
        arguments: [String(sighting.seenAt.getTime()), String(windowMs), encode(sighting)],
      });
      return appended === 1;
    },
    async isRecent(organizationId, fingerprint, now, windowMs) {
      const recent = await redis.eval(RECENT, {
        keys: [seenKey(organizationId, fingerprint), resolvedKey(organizationId)],
        arguments: [String(now.getTime()), String(windowMs)],
      });
      return recent === 1;
    },
    async noteResolved(organizationId, now, windowMs) {
      await redis.set(resolvedKey(organizationId), String(now.getTime()), { PX: windowMs * 2 });
    },
    consumers,
    async read(consumer, count, claimIdleMs) {
      const batch: ReviewSightingBatch = { entryIds: [], sightings: [], malformed: [] };
      for (const m of await consumers.read(consumer, count, claimIdleMs)) {
        batch.entryIds.push(m.id);
        try {
          batch.sightings.push(decode(m.message?.s ?? ''));
        } catch {
          batch.malformed.push({ entryId: m.id, raw: m.message });
        }
      }
      return batch;
    },
  };
}
