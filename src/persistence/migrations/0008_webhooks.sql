-- Webhooks (CONTRACT part 6): one configuration per organization, one delivery record per event and webhook,
-- one row per attempt. Events wait in `events` (the outbox, written in the change's own transaction) until the
-- dispatcher turns each into at most one delivery and stamps `dispatched_at` in the same transaction.

CREATE TABLE webhooks (
  organization_id text PRIMARY KEY REFERENCES organizations(id),
  platform_id text NOT NULL,
  url text NOT NULL,
  -- Event types, or {'*'} for all.
  events text[] NOT NULL,
  active boolean NOT NULL DEFAULT true,
  -- `whsec_<base64 of 32 bytes>`. A signing key must be usable to sign, so it is kept, not hashed.
  secret text NOT NULL,
  -- After a rotation the previous secret also signs until previous_secret_expires_at (24 h).
  previous_secret text,
  previous_secret_expires_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);

CREATE TABLE webhook_deliveries (
  id text PRIMARY KEY,
  organization_id text NOT NULL,
  event_id text NOT NULL UNIQUE REFERENCES events(id),
  event_type text NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'delivered', 'failed', 'dead_lettered', 'suppressed')),
  -- Number of the latest attempt (0 before the first); manual replays go on numbering after 5.
  attempt integer NOT NULL DEFAULT 0,
  -- Automatic attempts made so far (the retry schedule counts only these).
  automatic_attempts integer NOT NULL DEFAULT 0,
  -- The next attempt queued by an async replay is manual: its failure schedules no automatic retry.
  manual_pending boolean NOT NULL DEFAULT false,
  status_code integer,
  latency_ms integer,
  success boolean,
  last_attempt_at timestamptz,
  -- Due time of the next attempt while pending or failed; NULL otherwise.
  next_attempt_at timestamptz,
  -- A sender's claim: no other sender takes the delivery before lease_until (longer than the 10 s timeout).
  lease_token text,
  lease_until timestamptz,
  created_at timestamptz NOT NULL
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE next_attempt_at IS NOT NULL;
CREATE INDEX webhook_deliveries_org ON webhook_deliveries (organization_id, created_at DESC, id DESC);

CREATE TABLE webhook_attempts (
  delivery_id text NOT NULL REFERENCES webhook_deliveries(id),
  attempt integer NOT NULL,
  manual boolean NOT NULL,
  status_code integer,
  latency_ms integer NOT NULL,
  success boolean NOT NULL,
  error text,
  attempted_at timestamptz NOT NULL,
  PRIMARY KEY (delivery_id, attempt)
);

-- The sender's claim: due deliveries per organization in due order (organizations take turns), and the leases in force.
CREATE INDEX webhook_deliveries_org_due ON webhook_deliveries (organization_id, next_attempt_at) WHERE next_attempt_at IS NOT NULL;
CREATE INDEX webhook_deliveries_leased ON webhook_deliveries (organization_id) WHERE lease_until IS NOT NULL;
