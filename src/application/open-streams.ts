import { randomBytes } from 'node:crypto';
import type { StreamLimits } from '../config/load-config.js';
import { ServiceError } from '../errors/service-error.js';
import { findKeyValidity } from '../persistence/api-key-repository.js';
import type { Database } from '../persistence/database.js';
import { translateRedisError } from '../persistence/redis-client.js';
import type { StreamLease, StreamLeases } from '../persistence/stream-leases.js';
import type { Caller } from './caller.js';

/** Seconds a refused stream is told to wait: a place frees only when a stream closes, so a quick retry is wasted. */
export const STREAM_RETRY_AFTER_SECONDS = 5;

/** One admitted stream: it runs until `signal` aborts (its key was revoked) or it closes. */
export interface OpenStream {
  /** Aborts with the ServiceError the stream must end with (UNAUTHENTICATED when its key is revoked or expired). */
  readonly signal: AbortSignal;
  /** Gives the stream's places back; call once, when the stream ends however it ends. */
  close(): void;
}

/** Admits long-lived server streams within their limits, and ends those whose key stops being valid. */
export interface OpenStreams {
  /**
   * Admits a stream of `caller`, or throws: 503 SERVICE_UNAVAILABLE when this process serves its limit of streams,
   * 429 RATE_LIMITED when the key or the organization holds its limit over the cluster (both with Retry-After).
   */
  open(caller: Caller): Promise<OpenStream>;
  /** Streams open in this process. */
  readonly active: number;
  /** Stops the timers (renewals, key checks); open streams are ended by their server. */
  stop(): void;
}

/** Dependencies of createOpenStreams. */
export interface OpenStreamsDeps {
  leases: StreamLeases;
  db: Pick<Database, 'query'>;
  clock: () => Date;
  limits: StreamLimits;
  /**
   * How often the keys of open streams are read again (one query for all of them): a stream whose key was revoked or
   * expired, through any process or the CLI, ends within about this long. @default 250
   */
  keyCheckMs?: number;
  /** Told when a background step (renewal, key check) failed; the next one tries again. */
  onError?: (what: string, err: unknown) => void;
}

interface Held {
  lease: StreamLease;
  abort: AbortController;
}

/**
 * Creates the stream admission of one process. Per-key and per-organization counts are leases in Redis shared by the
 * whole cluster (stream-leases.ts: a crashed process's leases lapse within the lease length); the per-process count is
 * this process's own. A stream is counted from admission until close, whichever door it came through.
 */
export function createOpenStreams(deps: OpenStreamsDeps): OpenStreams {
  const tag = randomBytes(6).toString('hex');
  const keyCheckMs = deps.keyCheckMs ?? 250;
  const held = new Map<string, Held>();
  let reserved = 0;
  let seq = 0;
  let renewTimer: NodeJS.Timeout | undefined;
  let checkTimer: NodeJS.Timeout | undefined;
  let checking = false;

  function startTimers(): void {
    if (renewTimer) return;
    renewTimer = setInterval(() => {
      deps.leases
        .renew([...held.values()].map((h) => h.lease))
        .catch((err: unknown) => deps.onError?.('renewing stream leases', err));
    }, deps.leases.leaseMs / 3);
    renewTimer.unref();
    checkTimer = setInterval(() => void checkKeys(), keyCheckMs);
    checkTimer.unref();
  }

  function stopTimers(): void {
    clearInterval(renewTimer);
    clearInterval(checkTimer);
    renewTimer = checkTimer = undefined;
  }

  /** Ends the streams of keys revoked, expired or gone since they were admitted. */
  async function checkKeys(): Promise<void> {
    if (checking || held.size === 0) return;
    checking = true;
    try {
      const ids = [...new Set([...held.values()].map((h) => h.lease.keyId))];
      const rows = new Map((await findKeyValidity(deps.db, ids)).map((r) => [r.id, r]));
      const now = deps.clock().getTime();
      const asked = new Set(ids);
      for (const h of held.values()) {
        // A stream admitted while the query ran may have a key it did not ask about: the next check reads it.
        if (!asked.has(h.lease.keyId)) continue;
        const row = rows.get(h.lease.keyId);
        const why = !row
          ? 'The API key is not valid.'
          : row.revoked_at
            ? 'The API key was revoked.'
            : row.expires_at && row.expires_at.getTime() <= now
              ? 'The API key has expired.'
              : undefined;
        if (why !== undefined) h.abort.abort(new ServiceError('UNAUTHENTICATED', why));
      }
    } catch (err) {
      deps.onError?.('checking the keys of open streams', err);
    } finally {
      checking = false;
    }
  }

  return {
    get active() {
      return reserved;
    },
    async open(caller) {
      if (reserved >= deps.limits.perProcess)
        throw new ServiceError(
          'SERVICE_UNAVAILABLE',
          `This process serves ${deps.limits.perProcess} streams, its limit; retry after Retry-After seconds.`,
          { retryAfter: STREAM_RETRY_AFTER_SECONDS },
        );
      // Counted before the lease is asked for, so concurrent opens cannot all pass the check above.
      reserved++;
      const lease: StreamLease = {
        keyId: caller.keyId,
        organizationId: caller.organizationId,
        member: `${tag}:${++seq}`,
      };
      let refused: Awaited<ReturnType<StreamLeases['acquire']>>;
      try {
        refused = await deps.leases.acquire(lease, deps.limits);
      } catch (err) {
        reserved--;
        throw translateRedisError(err);
      }
      if (refused !== undefined) {
        reserved--;
        const [limit, holder] =
          refused === 'key' ? [deps.limits.perKey, 'This API key'] : [deps.limits.perOrganization, 'This organization'];
        throw new ServiceError(
          'RATE_LIMITED',
          `${holder} has ${limit} streams open, its limit: close one, or retry after Retry-After seconds.`,
          { retryAfter: STREAM_RETRY_AFTER_SECONDS },
        );
      }
      const abort = new AbortController();
      held.set(lease.member, { lease, abort });
      startTimers();
      let closed = false;
      return {
        signal: abort.signal,
        close() {
          if (closed) return;
          closed = true;
          reserved--;
          held.delete(lease.member);
          if (held.size === 0) stopTimers();
          deps.leases.release(lease).catch((err: unknown) => deps.onError?.('releasing a stream lease', err));
        },
      };
    },
    stop() {
      stopTimers();
    },
  };
}
