import { createHash, randomBytes } from 'node:crypto';
import { ServiceError } from '../errors/service-error.js';
import { canonicalJson } from '../persistence/audit-log.js';
import type { Database } from '../persistence/database.js';
import {
  findIdempotencyAnswer,
  type IdempotencyRecord,
  type StoredIdempotencyAnswer,
} from '../persistence/idempotency-answers.js';
import { withRedis, type Redis } from '../persistence/redis-client.js';

/** How long a key and its first answer are kept (CONTRACT part 4). */
export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;
/**
 * How long an in-progress marker outlives its last renewal: a retry after its owner died (kill -9, a lost host) runs
 * at most this long after the death. The owner renews it every IDEMPOTENCY_RENEW_MS while its request runs.
 */
export const IDEMPOTENCY_LEASE_MS = 5000;
/** How often a running request renews its in-progress marker (three chances inside one lease). */
export const IDEMPOTENCY_RENEW_MS = 1500;

interface Stored {
  state: 'in_progress' | 'done';
  hash: string;
  /** The random token of the request that holds an in-progress marker. */
  owner?: string;
  response?: unknown;
}

// Each script compares the marker's owner token first, so a request whose lease lapsed (and was taken over by a retry)
// neither extends, overwrites nor frees its successor's marker. KEYS[1]: the marker; ARGV[1]: the owner token.
// Extends the lease. ARGV[2]: lease ms. Returns 1, or 0 when the marker is no longer this owner's.
const RENEW = `local v = redis.call('GET', KEYS[1])
if v and cjson.decode(v).owner == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`;
// Stores the answer unless another owner (or a stored answer) holds the key. ARGV[2]: the done value, ARGV[3]: its ttl.
const COMPLETE = `local v = redis.call('GET', KEYS[1])
if v and cjson.decode(v).owner ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1`;
// Frees the key when it is still this owner's marker.
const RELEASE = `local v = redis.call('GET', KEYS[1])
if v and cjson.decode(v).owner == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/** A claimed key: renewed while its request runs, until the answer is stored or the key freed. */
export interface IdempotencyLease {
  /** What a durable write stores with its answer (idempotency-answers.ts). */
  record: IdempotencyRecord;
  /** Stores the first answer for replays (for `keepMs`, default 24 h) and ends the lease. */
  complete(response: unknown, keepMs?: number): Promise<void>;
  /** Frees the key (the request failed), so the client may retry with it; ends the lease. */
  release(): Promise<void>;
}

/** The outcome of claiming an idempotency key. */
export type IdempotencyClaim = { kind: 'new'; lease: IdempotencyLease } | { kind: 'replay'; response: unknown };

/** Hash of a request payload in canonical JSON (key order does not matter). */
export function payloadHash(payload: unknown): string {
  return createHash('sha256').update(canonicalJson(payload)).digest('hex');
}

const keyReused = () =>
  new ServiceError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used with a different payload.', {
    field: 'Idempotency-Key',
  });

/**
 * Idempotency keys, scoped to organization and endpoint. The first request claims the key in Redis with SET NX: an
 * in-progress marker with its owner's token and a short lease (IDEMPOTENCY_LEASE_MS) it renews while it runs, so a
 * retry after its process died proceeds within the lease. A replay with the same payload gets the first answer; a
 * different payload is 409 IDEMPOTENCY_KEY_REUSED; a concurrent duplicate waits for the first, then 409
 * IDEMPOTENCY_REQUEST_IN_PROGRESS. Writes that book or hold time also commit their answer to PostgreSQL with
 * themselves: `committed` and `settle` answer from there when Redis lost its copy or never got it (with-idempotency.ts).
 */
export function createIdempotencyStore(deps: { redis: Redis; db: Database; clock: () => Date; waitMs?: number }) {
  const waitMs = deps.waitMs ?? 3000;
  const redisKey = (r: IdempotencyRecord) => `idem:{${r.organizationId}}:${r.endpoint}:${r.keyHash}`;

  const startLease = (record: IdempotencyRecord, owner: string): IdempotencyLease => {
    const k = redisKey(record);
    const timer = setInterval(() => {
      deps.redis.eval(RENEW, { keys: [k], arguments: [owner, String(IDEMPOTENCY_LEASE_MS)] }).then(
        (kept) => {
          if (kept === 0) clearInterval(timer);
        },
        // Redis unreachable for a moment: the next tick tries again while the lease lasts.
        () => undefined,
      );
    }, IDEMPOTENCY_RENEW_MS);
    timer.unref();
    return {
      record,
      async complete(response, keepMs = IDEMPOTENCY_TTL_MS) {
        clearInterval(timer);
        const done = JSON.stringify({ state: 'done', hash: record.payloadHash, response } satisfies Stored);
        await withRedis(() =>
          deps.redis.eval(COMPLETE, { keys: [k], arguments: [owner, done, String(Math.max(1000, keepMs))] }),
        );
      },
      async release() {
        clearInterval(timer);
        await withRedis(() => deps.redis.eval(RELEASE, { keys: [k], arguments: [owner] }));
      },
    };
  };

  const store = {
    /** Claims a key for a payload (hash) in Redis, or answers the replay Redis holds. */
    async claim(organizationId: string, endpoint: string, key: string, hash: string): Promise<IdempotencyClaim> {
      const record: IdempotencyRecord = {
        organizationId,
        endpoint,
        keyHash: createHash('sha256').update(key).digest('hex'),
        payloadHash: hash,
      };
      const k = redisKey(record);
      const owner = randomBytes(16).toString('hex');
      const marker = JSON.stringify({ state: 'in_progress', hash, owner } satisfies Stored);
      const deadline = Date.now() + waitMs;
      for (;;) {
        const ok = await withRedis(() => deps.redis.set(k, marker, { NX: true, PX: IDEMPOTENCY_LEASE_MS }));
        if (ok) break;
        const raw = await withRedis(() => deps.redis.get(k));
        if (raw === null) continue;
        const stored = JSON.parse(String(raw)) as Stored;
        if (stored.hash !== hash) throw keyReused();
        if (stored.state === 'done') return { kind: 'replay', response: stored.response };
        // Real time, not the injected clock: this bounds how long a request waits for its twin.
        if (Date.now() > deadline) throw new ServiceError('IDEMPOTENCY_REQUEST_IN_PROGRESS');
        await new Promise((r) => setTimeout(r, 25));
      }
      return { kind: 'new', lease: startLease(record, owner) };
    },
    /** The answer a durable write committed with this key within the last 24 hours, if any. */
    committed(record: IdempotencyRecord): Promise<StoredIdempotencyAnswer | undefined> {
      return findIdempotencyAnswer(deps.db, record, new Date(deps.clock().getTime() - IDEMPOTENCY_TTL_MS));
    },
    /**
     * Answers a claim with a committed answer: its response (put back in Redis for the rest of its 24 hours), or 409
     * IDEMPOTENCY_KEY_REUSED when it was committed for another payload.
     */
    async settle(lease: IdempotencyLease, committed: StoredIdempotencyAnswer): Promise<unknown> {
      if (committed.payloadHash !== lease.record.payloadHash) {
        await lease.release().catch(() => undefined);
        throw keyReused();
      }
      const age = deps.clock().getTime() - committed.createdAt.getTime();
      // The answer is already safe in PostgreSQL: a Redis that cannot take its copy now costs only the next lookup.
      await lease.complete(committed.answer, IDEMPOTENCY_TTL_MS - age).catch(() => undefined);
      return committed.answer;
    },
  };
  return store;
}

/** The store created by createIdempotencyStore. */
export type IdempotencyStore = ReturnType<typeof createIdempotencyStore>;

/** Reads the Idempotency-Key header: required (400 IDEMPOTENCY_KEY_REQUIRED), at most 255 characters. */
export function requireIdempotencyKey(headers: Record<string, string>): string {
  const key = headers['idempotency-key']?.trim();
  if (!key) throw new ServiceError('IDEMPOTENCY_KEY_REQUIRED', undefined, { field: 'Idempotency-Key' });
  if (key.length > 255)
    throw new ServiceError('VALIDATION_ERROR', 'Idempotency-Key must be at most 255 characters.', {
      field: 'Idempotency-Key',
      details: [{ field: 'Idempotency-Key', code: 'INVALID', message: 'must be at most 255 characters' }],
    });
  return key;
}

/** Reads an optional Idempotency-Key header: undefined when absent or blank, else as requireIdempotencyKey. */
export function optionalIdempotencyKey(headers: Record<string, string>): string | undefined {
  return headers['idempotency-key']?.trim() ? requireIdempotencyKey(headers) : undefined;
}
