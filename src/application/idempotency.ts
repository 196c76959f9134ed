import { createHash } from 'node:crypto';
import { ServiceError } from '../errors/service-error.js';
import { canonicalJson } from '../persistence/audit-log.js';
import { withRedis, type Redis } from '../persistence/redis-client.js';

/** How long a key and its first answer are kept (CONTRACT part 4). */
export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;
// A claim that never completes (its process died) frees itself after this long.
const IN_PROGRESS_TTL_MS = 60_000;

interface Stored {
  state: 'in_progress' | 'done';
  hash: string;
  response?: unknown;
}

/** The outcome of claiming an idempotency key. */
export type IdempotencyClaim = { kind: 'new' } | { kind: 'replay'; response: unknown };

/** Hash of a request payload in canonical JSON (key order does not matter). */
export function payloadHash(payload: unknown): string {
  return createHash('sha256').update(canonicalJson(payload)).digest('hex');
}

/**
 * Idempotency keys in Redis, scoped to organization and endpoint. The first request claims the key with
 * SET NX; a replay with the same payload gets the first answer; a different payload is 409
 * IDEMPOTENCY_KEY_REUSED; a concurrent duplicate waits for the first, then 409 IDEMPOTENCY_REQUEST_IN_PROGRESS.
 */
export function createIdempotencyStore(deps: { redis: Redis; waitMs?: number }) {
  const waitMs = deps.waitMs ?? 3000;
  const keyOf = (organizationId: string, endpoint: string, key: string) =>
    `idem:{${organizationId}}:${endpoint}:${createHash('sha256').update(key).digest('hex')}`;
  return {
    /** Claims a key for a payload, or answers the replay. */
    async claim(organizationId: string, endpoint: string, key: string, hash: string): Promise<IdempotencyClaim> {
      const k = keyOf(organizationId, endpoint, key);
      const deadline = Date.now() + waitMs;
      for (;;) {
        const ok = await withRedis(() =>
          deps.redis.set(k, JSON.stringify({ state: 'in_progress', hash } satisfies Stored), {
            NX: true,
            PX: IN_PROGRESS_TTL_MS,
          }),
        );
        if (ok) return { kind: 'new' };
        const raw = await withRedis(() => deps.redis.get(k));
        if (raw === null) continue;
        const stored = JSON.parse(String(raw)) as Stored;
        if (stored.hash !== hash)
          throw new ServiceError(
            'IDEMPOTENCY_KEY_REUSED',
            'This Idempotency-Key was already used with a different payload.',
            { field: 'Idempotency-Key' },
          );
        if (stored.state === 'done') return { kind: 'replay', response: stored.response };
        // Real time, not the injected clock: this bounds how long a request waits for its twin.
        if (Date.now() > deadline) throw new ServiceError('IDEMPOTENCY_REQUEST_IN_PROGRESS');
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    /** Stores the first answer for replays. */
    async complete(
      organizationId: string,
      endpoint: string,
      key: string,
      hash: string,
      response: unknown,
    ): Promise<void> {
      await withRedis(() =>
        deps.redis.set(
          keyOf(organizationId, endpoint, key),
          JSON.stringify({ state: 'done', hash, response } satisfies Stored),
          { PX: IDEMPOTENCY_TTL_MS },
        ),
      );
    },
    /** Frees a key whose request failed, so the client may retry with it. */
    async release(organizationId: string, endpoint: string, key: string): Promise<void> {
      await withRedis(() => deps.redis.del(keyOf(organizationId, endpoint, key)));
    },
  };
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
