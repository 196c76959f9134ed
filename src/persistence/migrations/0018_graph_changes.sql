-- What changed in each organization's provider graph, so that a graph held at one version (in a process's memory or a
-- stored snapshot) is brought to a later version by re-reading only the rows that changed since, instead of every row.
--
-- graph_versions: one row per move of organizations.graph_version (written by a trigger, so no writer can move it
-- unrecorded): the version before, the version after and the transaction that moved it. A reader finds the
-- transactions between two versions and checks they chain from one to the other (a gap: pruned, or written before
-- this migration; the graph is then read whole).
-- graph_changes: per statement that wrote providers, services or calendar_connections, the ids it wrote (inserted,
-- updated or deleted) and its transaction. Writers of the graph move graph_version in the same transaction (the
-- graph cache has always relied on that), so the ids of the transactions between two versions are every row that
-- may differ. Both tables are pruned together by age (graph-change-repository.ts); rows of one transaction share
-- created_at (the transaction's now()).
CREATE TABLE graph_versions (
  platform_id text NOT NULL,
  organization_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  graph_version bigint NOT NULL,
  previous_version bigint NOT NULL,
  xact xid8 NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (organization_id, graph_version)
);
CREATE INDEX graph_versions_created ON graph_versions (created_at);

CREATE TABLE graph_changes (
  platform_id text NOT NULL,
  organization_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  xact xid8 NOT NULL,
  kind text NOT NULL CHECK (kind IN ('providers', 'services', 'schedules')),
  ids text[] NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX graph_changes_by_xact ON graph_changes (organization_id, xact);
CREATE INDEX graph_changes_created ON graph_changes (created_at);

CREATE FUNCTION graph_version_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO graph_versions (platform_id, organization_id, graph_version, previous_version, xact, created_at)
  VALUES (NEW.platform_id, NEW.id, NEW.graph_version, OLD.graph_version, pg_current_xact_id(), now())
  ON CONFLICT (organization_id, graph_version) DO NOTHING;
  RETURN NULL;
END $$;

CREATE TRIGGER graph_version_moved AFTER UPDATE OF graph_version ON organizations
  FOR EACH ROW WHEN (OLD.graph_version IS DISTINCT FROM NEW.graph_version) EXECUTE FUNCTION graph_version_moved();

-- One row per statement and organization (an import's statement writes one row; a bulk INSERT ... SELECT one array).
CREATE FUNCTION graph_rows_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO graph_changes (platform_id, organization_id, xact, kind, ids, created_at)
  SELECT min(platform_id), organization_id, pg_current_xact_id(), TG_ARGV[0], array_agg(id), now()
  FROM changed_rows GROUP BY organization_id;
  RETURN NULL;
END $$;

CREATE TRIGGER providers_inserted AFTER INSERT ON providers REFERENCING NEW TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION graph_rows_changed('providers');
CREATE TRIGGER providers_updated AFTER UPDATE ON providers REFERENCING NEW TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION graph_rows_changed('providers');
CREATE TRIGGER providers_deleted AFTER DELETE ON providers REFERENCING OLD TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION graph_rows_changed('providers');
CREATE TRIGGER services_inserted AFTER INSERT ON services REFERENCING NEW TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION graph_rows_changed('services');
CREATE TRIGGER services_updated AFTER UPDATE ON services REFERENCING NEW TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION graph_rows_changed('services');
CREATE TRIGGER services_deleted AFTER DELETE ON services REFERENCING OLD TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION graph_rows_changed('services');
CREATE TRIGGER calendar_connections_inserted AFTER INSERT ON calendar_connections REFERENCING NEW TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION graph_rows_changed('schedules');
CREATE TRIGGER calendar_connections_updated AFTER UPDATE ON calendar_connections REFERENCING NEW TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION graph_rows_changed('schedules');
CREATE TRIGGER calendar_connections_deleted AFTER DELETE ON calendar_connections REFERENCING OLD TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION graph_rows_changed('schedules');
