import type { Queryable } from './database.js';

/** The PostgreSQL row that owns each kind of actor, and so carries its organization. */
const OWNER_SQL = {
  resolution: `SELECT organization_id FROM resolutions WHERE id = $1`,
  hold: `SELECT organization_id FROM slot_claims WHERE kind = 'hold' AND ref_id = $1`,
  booking: `SELECT organization_id FROM bookings WHERE id = $1`,
  waitlist_entry: `SELECT organization_id FROM waitlist_entries WHERE id = $1`,
} as const;

/** The organization owning the resolution, hold, booking or waitlist entry `id`, or undefined when no such row exists. */
export async function actorOwner(db: Queryable, kind: keyof typeof OWNER_SQL, id: string): Promise<string | undefined> {
  const r = await db.query({ name: `actor-owner-${kind}`, text: OWNER_SQL[kind], values: [id] });
  return (r.rows[0] as { organization_id: string } | undefined)?.organization_id;
}
