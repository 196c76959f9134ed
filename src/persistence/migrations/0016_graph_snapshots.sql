-- The provider graph of an organization at one version in its compact columnar form (gzipped, cut in parts of a few
-- megabytes so no one value nears the bytea and string limits), written once per version off the request path and
-- read back in one statement by any process that needs that version: a large organization's first resolution then
-- skips reading and parsing every provider, service and schedule row. The service compresses the parts itself, so
-- PostgreSQL stores them as they come (EXTERNAL: no second compression).
CREATE TABLE graph_snapshots (
  platform_id text NOT NULL,
  organization_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  graph_version bigint NOT NULL,
  format integer NOT NULL,
  part integer NOT NULL,
  parts integer NOT NULL,
  body bytea NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (organization_id, graph_version, part)
);
ALTER TABLE graph_snapshots ALTER COLUMN body SET STORAGE EXTERNAL;
