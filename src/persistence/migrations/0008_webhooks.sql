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
-- The id makes the index order the claim's ORDER BY (next_attempt_at, id): a claim reads its few rows off the index
-- instead of sorting every due delivery of the organization (2.6 -> 0.7 ms with 5,000 due, EXPLAIN ANALYZE).
CREATE INDEX webhook_deliveries_org_due ON webhook_deliveries (organization_id, next_attempt_at, id) WHERE next_attempt_at IS NOT NULL;
CREATE INDEX webhook_deliveries_leased ON webhook_deliveries (organization_id) WHERE lease_until IS NOT NULL;

-- The sender's two statements per delivery, each one round trip (src/persistence/webhook-delivery-queue.ts says why
-- and when they run). Both commit asynchronously (synchronous_commit off for their transaction only; manual attempts
-- excepted): losing the last ~200 ms of them in a PostgreSQL crash repeats a send and loses no event. SQL functions take a new snapshot per
-- statement, so the claim sees every lease committed before it got the lock.

-- Claims due deliveries of organizations with an active webhook, taking turns between organizations, none above
-- p_per_org unexpired leases; all processes' claims run one at a time (a transaction-scoped advisory lock).
CREATE FUNCTION webhook_claim_due(p_now timestamptz, p_per_org integer, p_limit integer, p_token text, p_until timestamptz)
RETURNS TABLE (id text, organization_id text, status text, attempt integer, automatic_attempts integer, manual_pending boolean,
               lease_token text, url text, secret text, previous_secret text, previous_secret_expires_at timestamptz,
               event_id text, event_type text, api_version text, event_created_at timestamptz, data jsonb)
LANGUAGE sql AS $$
  SELECT set_config('synchronous_commit', 'off', true);
  SELECT pg_advisory_xact_lock(2003331889); -- 'whk1'
  WITH RECURSIVE orgs AS (
    -- Organizations with due deliveries, one index probe each (a skip scan of webhook_deliveries_org_due).
    (SELECT organization_id FROM webhook_deliveries WHERE next_attempt_at <= p_now ORDER BY organization_id LIMIT 1)
    UNION ALL
    SELECT (SELECT d.organization_id FROM webhook_deliveries d
             WHERE d.next_attempt_at <= p_now AND d.organization_id > orgs.organization_id ORDER BY d.organization_id LIMIT 1)
      FROM orgs WHERE orgs.organization_id IS NOT NULL
  ), busy AS (
    SELECT b.organization_id, count(*)::int AS n FROM webhook_deliveries b
     WHERE b.lease_until IS NOT NULL AND b.lease_until > p_now GROUP BY b.organization_id
  ), cand AS (
    -- Each organization's first due deliveries, no more than its free slots.
    SELECT c.id, c.next_attempt_at, row_number() OVER (PARTITION BY orgs.organization_id ORDER BY c.next_attempt_at, c.id) AS rn
      FROM orgs
      JOIN webhooks w ON w.organization_id = orgs.organization_id AND w.active
      LEFT JOIN busy ON busy.organization_id = orgs.organization_id
      CROSS JOIN LATERAL (
        SELECT d.id, d.next_attempt_at FROM webhook_deliveries d
         WHERE d.organization_id = orgs.organization_id AND d.next_attempt_at <= p_now AND d.status IN ('pending', 'failed')
           AND (d.lease_until IS NULL OR d.lease_until <= p_now)
         ORDER BY d.next_attempt_at, d.id LIMIT greatest(p_per_org - coalesce(busy.n, 0), 0)
      ) c
  ), pick AS (
    SELECT cand.id FROM cand ORDER BY rn, next_attempt_at LIMIT p_limit
  )
  UPDATE webhook_deliveries d SET lease_token = p_token, lease_until = p_until
    FROM pick, events e, webhooks w
   WHERE d.id = pick.id AND e.id = d.event_id AND w.organization_id = d.organization_id
  RETURNING d.id, d.organization_id, d.status, d.attempt, d.automatic_attempts, d.manual_pending, d.lease_token,
            w.url, w.secret, w.previous_secret, w.previous_secret_expires_at,
            e.id, e.type, e.api_version, e.created_at, e.data;
$$;

-- Records an attempt and moves its delivery on, releasing the lease, only while p_token still holds the lease; a
-- replay queued while an automatic attempt was in flight stays queued. Returns one row when it recorded. A manual
-- attempt commits synchronously: a sync replay reports it to its client.
CREATE FUNCTION webhook_record_attempt(p_id text, p_token text, p_attempt integer, p_automatic_attempts integer, p_status text,
                                       p_next_attempt_at timestamptz, p_status_code integer, p_latency_ms integer, p_success boolean,
                                       p_attempted_at timestamptz, p_manual boolean, p_error text)
RETURNS SETOF text
LANGUAGE sql AS $$
  SELECT set_config('synchronous_commit', CASE WHEN p_manual THEN 'on' ELSE 'off' END, true);
  WITH upd AS (
    UPDATE webhook_deliveries SET attempt = p_attempt, automatic_attempts = p_automatic_attempts,
           status = CASE WHEN manual_pending AND NOT p_manual THEN 'pending' ELSE p_status END,
           next_attempt_at = CASE WHEN manual_pending AND NOT p_manual THEN coalesce(next_attempt_at, p_attempted_at) ELSE p_next_attempt_at END,
           manual_pending = manual_pending AND NOT p_manual,
           status_code = p_status_code, latency_ms = p_latency_ms, success = p_success, last_attempt_at = p_attempted_at,
           lease_token = NULL, lease_until = NULL
     WHERE id = p_id AND lease_token = p_token
    RETURNING id
  )
  INSERT INTO webhook_attempts (delivery_id, attempt, manual, status_code, latency_ms, success, error, attempted_at)
  SELECT upd.id, p_attempt, p_manual, p_status_code, p_latency_ms, p_success, p_error, p_attempted_at FROM upd
  ON CONFLICT (delivery_id, attempt) DO NOTHING
  RETURNING delivery_id;
$$;
