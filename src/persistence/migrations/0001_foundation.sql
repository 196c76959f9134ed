-- Foundation: platforms, organizations, keys, provider graph, imports, events outbox, audit log.

CREATE TABLE platforms (
  id text PRIMARY KEY,
  name text NOT NULL,
  default_organization_id text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE organizations (
  id text PRIMARY KEY,
  platform_id text NOT NULL REFERENCES platforms(id),
  external_id text NOT NULL,
  name text NOT NULL,
  settings jsonb NOT NULL,
  graph_version bigint NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (platform_id, external_id)
);

CREATE TABLE api_keys (
  id text PRIMARY KEY,
  platform_id text NOT NULL REFERENCES platforms(id),
  organization_id text NOT NULL REFERENCES organizations(id),
  type text NOT NULL CHECK (type IN ('platform_live', 'platform_test', 'organization_live', 'organization_test')),
  name text NOT NULL,
  key_hash bytea NOT NULL UNIQUE,
  key_hint text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz,
  revoked_at timestamptz
);

CREATE TABLE providers (
  id text PRIMARY KEY,
  platform_id text NOT NULL,
  organization_id text NOT NULL REFERENCES organizations(id),
  external_id text NOT NULL,
  status text NOT NULL,
  searchable boolean NOT NULL,
  doc jsonb NOT NULL,
  profile_version integer NOT NULL DEFAULT 1,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, external_id)
);
CREATE INDEX providers_org_id ON providers (organization_id, id);
CREATE INDEX providers_doc ON providers USING gin (doc jsonb_path_ops);

CREATE TABLE services (
  id text PRIMARY KEY,
  platform_id text NOT NULL,
  organization_id text NOT NULL REFERENCES organizations(id),
  provider_id text NOT NULL REFERENCES providers(id),
  slug text NOT NULL,
  doc jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (provider_id, slug)
);
CREATE INDEX services_org_slug ON services (organization_id, slug);

CREATE TABLE calendar_connections (
  id text PRIMARY KEY,
  platform_id text NOT NULL,
  organization_id text NOT NULL REFERENCES organizations(id),
  provider_id text NOT NULL REFERENCES providers(id),
  doc jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX calendar_connections_provider ON calendar_connections (organization_id, provider_id);

CREATE TABLE provider_imports (
  id text PRIMARY KEY,
  platform_id text NOT NULL,
  organization_id text NOT NULL REFERENCES organizations(id),
  status text NOT NULL,
  mode text NOT NULL,
  dry_run boolean NOT NULL,
  deactivate_missing boolean NOT NULL,
  payload jsonb NOT NULL,
  summary jsonb NOT NULL,
  errors jsonb NOT NULL DEFAULT '[]',
  rows jsonb NOT NULL DEFAULT '[]',
  processed integer NOT NULL DEFAULT 0,
  key_mode text NOT NULL,
  actor jsonb NOT NULL,
  request_id text NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz,
  completed_at timestamptz
);
CREATE INDEX provider_imports_pending ON provider_imports (created_at) WHERE status IN ('validating', 'processing');
CREATE INDEX provider_imports_org ON provider_imports (organization_id, id);

-- Events outbox: every event is stored in the transaction of the change that caused it.
CREATE TABLE events (
  id text PRIMARY KEY,
  platform_id text NOT NULL,
  organization_id text NOT NULL,
  type text NOT NULL,
  api_version text NOT NULL,
  mode text NOT NULL CHECK (mode IN ('live', 'test')),
  data jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  dispatched_at timestamptz
);
CREATE INDEX events_undispatched ON events (created_at) WHERE dispatched_at IS NULL;
CREATE INDEX events_org ON events (organization_id, id);

-- Audit log: append-only, hash-chained per organization.
CREATE TABLE audit_events (
  seq bigserial PRIMARY KEY,
  id text NOT NULL UNIQUE,
  platform_id text NOT NULL,
  organization_id text NOT NULL,
  actor jsonb NOT NULL,
  action text NOT NULL,
  resource_type text NOT NULL,
  resource_id text,
  request_id text,
  before jsonb,
  after jsonb,
  "timestamp" timestamptz NOT NULL,
  prev_hash text NOT NULL,
  hash text NOT NULL
);
CREATE INDEX audit_events_org ON audit_events (organization_id, seq DESC);
CREATE INDEX audit_events_request ON audit_events (request_id);

CREATE FUNCTION audit_events_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_events is append-only: % is not allowed', TG_OP USING ERRCODE = 'insufficient_privilege';
END;
$$;
CREATE TRIGGER audit_events_no_update BEFORE UPDATE OR DELETE ON audit_events
  FOR EACH ROW EXECUTE FUNCTION audit_events_immutable();
CREATE TRIGGER audit_events_no_truncate BEFORE TRUNCATE ON audit_events
  FOR EACH STATEMENT EXECUTE FUNCTION audit_events_immutable();
