import type { Redis } from './redis-client.js';
import { streamLeaseKeys } from './redis-keys.js';

/** One open stream's place in its key's and its organization's lease sets. */
export interface StreamLease {
  keyId: string;
  organizationId: string;
  /** Unique over the cluster: the holder process's tag and a sequence number. */
  member: string;
}

/** Why a lease was refused: the key's or the organization's set is full. */
export type LeaseRefusal = 'key' | 'organization';

/** Cluster-wide counts of open server streams per API key and per organization, as leases in Redis. */
export interface StreamLeases {
  /**
   * Takes a lease in the key's and the organization's sets unless either holds `limits` live leases already; answers
   * undefined when taken, else which set is full. Leases past their end are dropped first.
   */
  acquire(lease: StreamLease, limits: { perKey: number; perOrganization: number }): Promise<LeaseRefusal | undefined>;
  /** Extends these leases by the lease length from now (one script for all). */
  renew(leases: readonly StreamLease[]): Promise<void>;
  /** Gives a lease back. */
  release(lease: StreamLease): Promise<void>;
  /** The lease length in milliseconds. */
  readonly leaseMs: number;
}

// Time comes from Redis (TIME), the one clock every process shares; Redis 7 replicates a script's effects, not the
// script, so reading it is allowed before writing.
const NOW_MS = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/** KEYS: key set, organization set. ARGV: member, leaseMs, perKey, perOrganization. Returns 0, 1 (key) or 2 (org). */
const ACQUIRE = `${NOW_MS}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
  return 1
end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[4]) then
  return 2
end
for i = 1, 2 do
  redis.call('ZADD', KEYS[i], now + tonumber(ARGV[2]), ARGV[1])
  redis.call('PEXPIRE', KEYS[i], ARGV[2])
end
return 0`;

/** KEYS: (key set, organization set) pairs. ARGV: leaseMs, then one member per pair. */
const RENEW = `${NOW_MS}
local ends = now + tonumber(ARGV[1])
for i = 2, #ARGV do
  for j = 0, 1 do
    local key = KEYS[2 * (i - 2) + 1 + j]
    redis.call('ZADD', key, ends, ARGV[i])
    redis.call('PEXPIRE', key, ARGV[1])
  end
end
return 0`;

/**
 * Creates the lease store. Each open stream holds a lease renewed by its process (every third of `leaseMs`), so the
 * streams of a process that died without giving theirs back stop counting within `leaseMs`; the sets themselves expire
 * with their last lease. All sets share the hash tag `{streams}` (redis-keys.ts), so every script runs in one slot.
 */
export function createStreamLeases(deps: { redis: Redis; leaseMs?: number }): StreamLeases {
  const leaseMs = deps.leaseMs ?? 15_000;
  const keysOf = (l: StreamLease) => {
    const k = streamLeaseKeys(l.keyId, l.organizationId);
    return [k.key, k.organization];
  };
  return {
    leaseMs,
    async acquire(lease, limits) {
      const answer = Number(
        await deps.redis.eval(ACQUIRE, {
          keys: keysOf(lease),
          arguments: [lease.member, String(leaseMs), String(limits.perKey), String(limits.perOrganization)],
        }),
      );
      return answer === 1 ? 'key' : answer === 2 ? 'organization' : undefined;
    },
    async renew(leases) {
      if (leases.length === 0) return;
      await deps.redis.eval(RENEW, {
        keys: leases.flatMap(keysOf),
        arguments: [String(leaseMs), ...leases.map((l) => l.member)],
      });
    },
    async release(lease) {
      const [key, organization] = keysOf(lease) as [string, string];
      await deps.redis.multi().zRem(key, lease.member).zRem(organization, lease.member).exec();
    },
  };
}
