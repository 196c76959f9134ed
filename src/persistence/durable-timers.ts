import type { Redis } from './redis-client.js';
import { assertKeyPart, TIMER_KEYS } from './redis-keys.js';

/** Which actor a timer is for and what it is called (e.g. `hold`, `hold_123`, `expire`). */
export interface TimerRef {
  kind: string;
  id: string;
  name: string;
}

/** A timer a worker has claimed: it stays leased until acknowledged or until `leaseUntil` passes. */
export interface ClaimedTimer extends TimerRef {
  member: string;
  /** Lease end in epoch milliseconds; also the token `ack` checks so a stale worker cannot ack a re-claimed timer. */
  leaseUntil: number;
}

/** Durable timers kept in Redis sorted sets, so deadlines survive restarts and fire in whichever process claims them. */
export interface DurableTimers {
  /** Schedules (or moves) the timer `kind|id|name` to fire at `dueAt`. */
  schedule(kind: string, id: string, name: string, dueAt: Date): Promise<void>;
  /** Removes a timer that has not fired yet. */
  cancel(kind: string, id: string, name: string): Promise<void>;
  /** When the timer is due, if it is scheduled and not claimed. */
  dueAt(kind: string, id: string, name: string): Promise<Date | undefined>;
  /** Atomically claims up to `limit` timers due at `now`, leasing them until `now + leaseMs`. */
  claimDue(now: Date, limit: number): Promise<ClaimedTimer[]>;
  /** Acknowledges a handled timer; answers false when its lease was lost (expired and re-claimed). */
  ack(timer: ClaimedTimer): Promise<boolean>;
  /** Moves timers whose lease ended before `now` back to the due set, so a crashed worker's timers are re-delivered. */
  reclaimExpiredLeases(now: Date): Promise<number>;
  /** Gives a claimed timer back, due at `dueAt` (a handler failed); answers false when its lease was lost meanwhile. */
  release(timer: ClaimedTimer, dueAt: Date): Promise<boolean>;
}

/** Encodes a timer as its sorted-set member `kind|id|name`. */
export function timerMember(kind: string, id: string, name: string): string {
  assertKeyPart('kind', kind);
  assertKeyPart('id', id);
  assertKeyPart('timer name', name);
  return `${kind}|${id}|${name}`;
}

/** Decodes a sorted-set member `kind|id|name`. */
export function parseTimerMember(member: string): TimerRef {
  const [kind, id, name] = member.split('|');
  if (!kind || !id || !name)
    throw new Error(`Malformed timer member ${JSON.stringify(member)}: expected "kind|id|name".`);
  return { kind, id, name };
}

// KEYS: due, leased. ARGV: now, limit, leaseUntil.
const CLAIM_DUE = `
local items = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
for _, m in ipairs(items) do
  redis.call('ZREM', KEYS[1], m)
  redis.call('ZADD', KEYS[2], ARGV[3], m)
end
return items`;

// KEYS: leased. ARGV: member, leaseUntil.
const ACK = `
local s = redis.call('ZSCORE', KEYS[1], ARGV[1])
if s and tonumber(s) == tonumber(ARGV[2]) then
  redis.call('ZREM', KEYS[1], ARGV[1])
  return 1
end
return 0`;

// KEYS: leased, due. ARGV: member, leaseUntil, dueAt.
// NX keeps a due entry scheduled meanwhile (see RECLAIM).
const RELEASE = `
local s = redis.call('ZSCORE', KEYS[1], ARGV[1])
if s and tonumber(s) == tonumber(ARGV[2]) then
  redis.call('ZREM', KEYS[1], ARGV[1])
  redis.call('ZADD', KEYS[2], 'NX', ARGV[3], ARGV[1])
  return 1
end
return 0`;

// KEYS: due, leased. ARGV: now.
// NX keeps a due entry scheduled meanwhile: the timer fires then, and handlers re-check state anyway.
const RECLAIM = `
local items = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
for _, m in ipairs(items) do
  redis.call('ZREM', KEYS[2], m)
  redis.call('ZADD', KEYS[1], 'NX', ARGV[1], m)
end
return #items`;

/** Creates the durable timers on a node-redis client; a claimed timer is re-delivered `leaseMs` after a crash. */
export function createDurableTimers(deps: { redis: Redis; leaseMs?: number }): DurableTimers {
  const { redis } = deps;
  const leaseMs = deps.leaseMs ?? 30_000;
  return {
    async schedule(kind, id, name, dueAt) {
      await redis.zAdd(TIMER_KEYS.due, { score: dueAt.getTime(), value: timerMember(kind, id, name) });
    },
    async cancel(kind, id, name) {
      await redis.zRem(TIMER_KEYS.due, timerMember(kind, id, name));
    },
    async dueAt(kind, id, name) {
      const score = await redis.zScore(TIMER_KEYS.due, timerMember(kind, id, name));
      return score === null ? undefined : new Date(Number(score));
    },
    async claimDue(now, limit) {
      const leaseUntil = now.getTime() + leaseMs;
      const members = (await redis.eval(CLAIM_DUE, {
        keys: [TIMER_KEYS.due, TIMER_KEYS.leased],
        arguments: [String(now.getTime()), String(limit), String(leaseUntil)],
      })) as string[];
      return members.map((member) => ({ ...parseTimerMember(member), member, leaseUntil }));
    },
    async ack(timer) {
      const removed = await redis.eval(ACK, {
        keys: [TIMER_KEYS.leased],
        arguments: [timer.member, String(timer.leaseUntil)],
      });
      return Number(removed) === 1;
    },
    async reclaimExpiredLeases(now) {
      return Number(
        await redis.eval(RECLAIM, { keys: [TIMER_KEYS.due, TIMER_KEYS.leased], arguments: [String(now.getTime())] }),
      );
    },
    async release(timer, dueAt) {
      const released = await redis.eval(RELEASE, {
        keys: [TIMER_KEYS.leased, TIMER_KEYS.due],
        arguments: [timer.member, String(timer.leaseUntil), String(dueAt.getTime())],
      });
      return Number(released) === 1;
    },
  };
}

/** A polling worker that fires due timers. */
export interface TimerWorker {
  /** Starts polling; the first poll runs at once, so deadlines that passed while no worker ran fire now. */
  start(): void;
  /** Stops polling and waits for the poll in progress. */
  stop(): Promise<void>;
  /** Runs one poll (reclaim expired leases, claim, handle, ack); answers how many timers were handled. */
  tick(): Promise<number>;
}

/**
 * Creates a worker that claims due timers and calls `handler` for each.
 * Delivery is at least once: a handler that throws gives its timer back, due again `retryMs` later (a store that was
 * away a moment is soon tried again); a process that dies leaves it leased, and it is re-delivered when the lease
 * ends. So handlers must be idempotent (a late or repeated timer must be harmless).
 */
export function createTimerWorker(deps: {
  timers: DurableTimers;
  handler: (timer: TimerRef) => Promise<void>;
  clock: () => Date;
  intervalMs?: number;
  /** How long after a failed handler its timer is due again (default 2 s). */
  retryMs?: number;
  batchSize?: number;
  onError?: (err: unknown, timer?: TimerRef) => void;
}): TimerWorker {
  const { timers, handler, clock } = deps;
  const intervalMs = deps.intervalMs ?? 1000;
  const batchSize = deps.batchSize ?? 100;
  const retryMs = deps.retryMs ?? 2000;
  const onError = deps.onError ?? (() => undefined);
  let running = false;
  let loop: Promise<void> | undefined;
  let wake: (() => void) | undefined;
  let sleepTimer: NodeJS.Timeout | undefined;

  async function tick(): Promise<number> {
    const now = clock();
    await timers.reclaimExpiredLeases(now);
    const claimed = await timers.claimDue(now, batchSize);
    const results = await Promise.all(
      claimed.map(async (t) => {
        const ref = { kind: t.kind, id: t.id, name: t.name };
        try {
          await handler(ref);
          await timers.ack(t);
          return 1;
        } catch (err) {
          onError(err, ref);
          // If the give-back fails too (Redis away), the lease ends and reclaimExpiredLeases re-delivers it.
          await timers.release(t, new Date(clock().getTime() + retryMs)).catch(() => false);
          return 0;
        }
      }),
    );
    return results.reduce<number>((a, b) => a + b, 0);
  }

  function sleep(): Promise<void> {
    return new Promise((resolve) => {
      wake = resolve;
      sleepTimer = setTimeout(resolve, intervalMs);
    });
  }

  return {
    tick,
    start() {
      if (running) return;
      running = true;
      loop = (async () => {
        while (running) {
          let handled = 0;
          try {
            handled = await tick();
          } catch (err) {
            onError(err);
          }
          // A full batch suggests more are due: poll again at once instead of sleeping.
          if (running && handled < batchSize) await sleep();
        }
      })();
    },
    async stop() {
      running = false;
      clearTimeout(sleepTimer);
      wake?.();
      await loop;
      loop = undefined;
    },
  };
}
