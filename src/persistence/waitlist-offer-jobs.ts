import type { Queryable } from './database.js';

/** Time freed on a provider while entries waited: what the waitlist offer worker offers (migration 0012). */
export interface WaitlistOfferJob {
  id: string;
  organizationId: string;
  platformId: string;
  providerId: string;
  freedFrom: Date;
  freedTo: Date;
  /** When the time was freed: the time from here to `waitlist.offered` is the offer's latency. */
  createdAt: Date;
  attempts: number;
}

/**
 * Leases the oldest job not leased at `now` (or whose lease ended: its worker died) until `now + leaseMs`, skipping
 * jobs other workers hold; answers it, or undefined when none is free. The job stays until `finishOfferJob`.
 */
export async function leaseOfferJob(db: Queryable, now: Date, leaseMs: number): Promise<WaitlistOfferJob | undefined> {
  const r = await db.query({
    name: 'lease-waitlist-offer-job',
    text: `UPDATE waitlist_offer_jobs j SET leased_until = $2, attempts = j.attempts + 1
       FROM (SELECT id FROM waitlist_offer_jobs WHERE coalesce(leased_until, '-infinity'::timestamptz) <= $1
             ORDER BY coalesce(leased_until, '-infinity'::timestamptz), id LIMIT 1 FOR UPDATE SKIP LOCKED) pick
       WHERE j.id = pick.id
       RETURNING j.*`,
    values: [now, new Date(now.getTime() + leaseMs)],
  });
  const row = r.rows[0];
  return row
    ? {
        id: String(row.id),
        organizationId: row.organization_id as string,
        platformId: row.platform_id as string,
        providerId: row.provider_id as string,
        freedFrom: row.freed_from as Date,
        freedTo: row.freed_to as Date,
        createdAt: row.created_at as Date,
        attempts: Number(row.attempts),
      }
    : undefined;
}

/** Removes a job its worker has offered (or found nothing to offer for). */
export async function finishOfferJob(db: Queryable, id: string): Promise<void> {
  await db.query({
    name: 'finish-waitlist-offer-job',
    text: 'DELETE FROM waitlist_offer_jobs WHERE id = $1',
    values: [id],
  });
}

/**
 * Queues time of a provider for the waitlist inside the caller's transaction, when the organization has a waiting
 * entry (the freeing triggers that are not claim ends: a schedule widened, busy time removed, provider data changed).
 */
export async function queueFreedTime(
  tx: Queryable,
  j: { organizationId: string; platformId: string; providerId: string; from: Date; to: Date; now: Date },
): Promise<void> {
  await tx.query({
    name: 'queue-freed-time',
    text: `INSERT INTO waitlist_offer_jobs (organization_id, platform_id, provider_id, freed_from, freed_to, created_at)
       SELECT $1, $2, $3, $4, $5, $6
       WHERE EXISTS (SELECT 1 FROM waitlist_entries WHERE organization_id = $1 AND status = 'waiting')`,
    values: [j.organizationId, j.platformId, j.providerId, j.from, j.to, j.now],
  });
}

/**
 * Queues busy time that disappeared from a provider's external calendar (a feed refresh no longer lists it), one job
 * per interval, when the organization has a waiting entry. Autocommit: the feed's copy lives in memory, not in a row.
 */
export async function queueFreedFeedTime(
  db: Queryable,
  j: { organizationId: string; providerId: string; intervals: readonly { start: number; end: number }[]; now: Date },
): Promise<number> {
  if (j.intervals.length === 0) return 0;
  const r = await db.query({
    name: 'queue-freed-feed-time',
    text: `INSERT INTO waitlist_offer_jobs (organization_id, platform_id, provider_id, freed_from, freed_to, created_at)
       SELECT o.id, o.platform_id, $2, f.s, f.e, $5
       FROM organizations o, unnest($3::timestamptz[], $4::timestamptz[]) AS f(s, e)
       WHERE o.id = $1 AND EXISTS (SELECT 1 FROM waitlist_entries WHERE organization_id = $1 AND status = 'waiting')`,
    values: [
      j.organizationId,
      j.providerId,
      j.intervals.map((i) => new Date(i.start)),
      j.intervals.map((i) => new Date(i.end)),
      j.now,
    ],
  });
  return r.rowCount ?? 0;
}

/** How many offer jobs wait (leased or not): a queue gauge. */
export async function offerJobsPending(db: Queryable): Promise<number> {
  const r = await db.query('SELECT count(*)::int AS n FROM waitlist_offer_jobs');
  return r.rows[0].n as number;
}
