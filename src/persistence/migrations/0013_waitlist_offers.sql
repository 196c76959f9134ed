-- Waitlist offers (CONTRACT part 8): an entry is `waiting`, `offered` (a resolution and a hold on a freed slot, both
-- ending at offer_expires_at), `booked` or `cancelled`. The offer's resolution and end are columns, so a confirm's
-- entry and the overdue offers are found by index; the rest of the offer lives in `doc`.
ALTER TABLE waitlist_entries ADD COLUMN offer_resolution_id text, ADD COLUMN offer_expires_at timestamptz;
-- The oldest waiting entries of an organization, in the order offers go to them.
CREATE INDEX waitlist_waiting ON waitlist_entries (organization_id, created_at, id) WHERE status = 'waiting';
CREATE INDEX waitlist_offer_resolution ON waitlist_entries (offer_resolution_id) WHERE offer_resolution_id IS NOT NULL;
CREATE INDEX waitlist_offers_due ON waitlist_entries (offer_expires_at) WHERE status = 'offered';

-- Time that freed while entries waited, offered by the waitlist offer worker after the freeing transaction commits.
-- A job is leased (leased_until) while a worker offers it and deleted when done: a worker killed mid-job leaves it
-- to be leased again, so a pending offer is never lost.
CREATE TABLE waitlist_offer_jobs (
  id bigserial PRIMARY KEY,
  organization_id text NOT NULL,
  platform_id text NOT NULL,
  provider_id text NOT NULL,
  freed_from timestamptz NOT NULL,
  freed_to timestamptz NOT NULL,
  created_at timestamptz NOT NULL,
  leased_until timestamptz,
  attempts integer NOT NULL DEFAULT 0
);
CREATE INDEX waitlist_offer_jobs_lease ON waitlist_offer_jobs (coalesce(leased_until, '-infinity'::timestamptz), id);

-- Every claim that ends without passing its time on (a booking cancelled or rescheduled away, a hold released or
-- expired; not a hold consumed by its booking, nor a booking completed) queues its time for the waitlist, in the
-- transaction that ends it, when the organization has a waiting entry. One trigger covers every statement that ends
-- claims (slot-claims.ts, hold-repository.ts, the confirm statement), so no path can forget it.
CREATE FUNCTION queue_freed_claim_for_waitlist() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.end_reason IN ('released', 'expired', 'cancelled', 'rescheduled')
     AND EXISTS (SELECT 1 FROM waitlist_entries w WHERE w.organization_id = NEW.organization_id AND w.status = 'waiting') THEN
    INSERT INTO waitlist_offer_jobs (organization_id, platform_id, provider_id, freed_from, freed_to, created_at)
    VALUES (NEW.organization_id, NEW.platform_id, NEW.provider_id, lower(NEW.during), upper(NEW.during),
            coalesce(NEW.ended_at, now()));
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER slot_claims_freed AFTER UPDATE OF active ON slot_claims
  FOR EACH ROW WHEN (OLD.active AND NOT NEW.active) EXECUTE FUNCTION queue_freed_claim_for_waitlist();
