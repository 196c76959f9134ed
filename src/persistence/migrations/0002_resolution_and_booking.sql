-- Resolutions ledger (analytics and audit of outcomes), ranking policies, continuity, waitlist, manual review,
-- and the bookings ledger with slot claims guarded by an exclusion constraint.

CREATE EXTENSION IF NOT EXISTS btree_gist;

CREATE TABLE resolutions (
  id text PRIMARY KEY,
  platform_id text NOT NULL,
  organization_id text NOT NULL REFERENCES organizations(id),
  status text NOT NULL,
  request_id text NOT NULL,
  service_slug text NOT NULL,
  policy_id text NOT NULL,
  policy_version integer NOT NULL,
  graph_version bigint NOT NULL,
  options_returned integer NOT NULL,
  evaluated_slots integer NOT NULL,
  providers_scanned integer NOT NULL,
  booking_id text,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX resolutions_org_created ON resolutions (organization_id, created_at);

CREATE TABLE ranking_policies (
  id text PRIMARY KEY,
  platform_id text NOT NULL,
  organization_id text NOT NULL REFERENCES organizations(id),
  name text NOT NULL,
  status text NOT NULL CHECK (status IN ('draft', 'active', 'inactive')),
  weights jsonb NOT NULL,
  tie_breakers jsonb NOT NULL,
  active_version integer,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  activated_at timestamptz
);
CREATE UNIQUE INDEX ranking_policies_one_active ON ranking_policies (organization_id) WHERE status = 'active';

CREATE TABLE ranking_policy_versions (
  policy_id text NOT NULL REFERENCES ranking_policies(id),
  version integer NOT NULL,
  organization_id text NOT NULL,
  name text NOT NULL,
  weights jsonb NOT NULL,
  tie_breakers jsonb NOT NULL,
  activated_at timestamptz NOT NULL,
  PRIMARY KEY (policy_id, version)
);

CREATE TABLE continuity_records (
  id text PRIMARY KEY,
  platform_id text NOT NULL,
  organization_id text NOT NULL REFERENCES organizations(id),
  provider_id text NOT NULL REFERENCES providers(id),
  client_ref text NOT NULL,
  last_seen_at timestamptz,
  created_at timestamptz NOT NULL,
  UNIQUE (organization_id, client_ref, provider_id)
);

CREATE TABLE waitlist_entries (
  id text PRIMARY KEY,
  platform_id text NOT NULL,
  organization_id text NOT NULL REFERENCES organizations(id),
  status text NOT NULL,
  doc jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX waitlist_org ON waitlist_entries (organization_id, id);

CREATE TABLE manual_review_entries (
  organization_id text NOT NULL REFERENCES organizations(id),
  provider_id text NOT NULL REFERENCES providers(id),
  platform_id text NOT NULL,
  reasons jsonb NOT NULL,
  status text NOT NULL CHECK (status IN ('open', 'resolved')),
  first_seen_at timestamptz NOT NULL,
  last_seen_at timestamptz NOT NULL,
  resolved_at timestamptz,
  PRIMARY KEY (organization_id, provider_id)
);

CREATE TABLE bookings (
  id text PRIMARY KEY,
  platform_id text NOT NULL,
  organization_id text NOT NULL REFERENCES organizations(id),
  provider_id text NOT NULL REFERENCES providers(id),
  service_id text NOT NULL REFERENCES services(id),
  resolution_id text,
  option_id text,
  source text NOT NULL CHECK (source IN ('v1', 'v2')),
  status text NOT NULL CHECK (status IN ('pending', 'confirmed', 'cancelled', 'completed', 'rescheduled')),
  start_at timestamptz NOT NULL,
  end_at timestamptz NOT NULL,
  timezone text NOT NULL,
  customer jsonb NOT NULL,
  metadata jsonb,
  notes text,
  confirm_token text,
  mode text NOT NULL,
  rescheduled_from text,
  rescheduled_to text,
  cancelled_at timestamptz,
  cancel_reason text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX bookings_one_per_resolution ON bookings (resolution_id) WHERE resolution_id IS NOT NULL;
CREATE INDEX bookings_org_created ON bookings (organization_id, id DESC);
CREATE UNIQUE INDEX bookings_token ON bookings (confirm_token);

-- A claim on a provider's time (a hold or a pending/confirmed booking), buffers included.
-- The exclusion constraint makes "no two active claims overlap" true across every service process.
CREATE TABLE slot_claims (
  id text PRIMARY KEY,
  organization_id text NOT NULL,
  platform_id text NOT NULL,
  provider_id text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('hold', 'booking')),
  ref_id text NOT NULL,
  resolution_id text,
  option_id text,
  during tstzrange NOT NULL,
  active boolean NOT NULL,
  expires_at timestamptz,
  ended_at timestamptz,
  end_reason text,
  booking_id text,
  mode text NOT NULL DEFAULT 'test',
  created_at timestamptz NOT NULL,
  EXCLUDE USING gist (provider_id WITH =, during WITH &&) WHERE (active)
);
CREATE UNIQUE INDEX slot_claims_ref ON slot_claims (ref_id);
-- One active hold per resolution (CONTRACT part 5).
CREATE UNIQUE INDEX slot_claims_one_active_hold ON slot_claims (resolution_id) WHERE active AND kind = 'hold';
CREATE INDEX slot_claims_resolution_option ON slot_claims (resolution_id, option_id, created_at DESC);
CREATE INDEX slot_claims_org_active ON slot_claims USING gist (organization_id, during) WHERE active;

-- E-mail outbox: rendered messages, sent by a worker (live mode with SMTP_URL) or kept (test mode).
CREATE TABLE email_outbox (
  id text PRIMARY KEY,
  platform_id text NOT NULL,
  organization_id text NOT NULL,
  booking_id text,
  kind text NOT NULL,
  mode text NOT NULL CHECK (mode IN ('live', 'test')),
  to_address text NOT NULL,
  subject text NOT NULL,
  text_body text NOT NULL,
  html_body text NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'sent', 'stored', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL,
  last_error text,
  sent_at timestamptz,
  created_at timestamptz NOT NULL
);
CREATE INDEX email_outbox_due ON email_outbox (next_attempt_at) WHERE status = 'pending';
