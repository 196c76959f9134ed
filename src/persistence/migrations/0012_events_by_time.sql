-- GET /api/v2/events lists an organization's events newest first by created_at, ties by id, optionally of one type
-- (CONTRACT part 8): a keyset on (created_at, id) after the organization, and after its type. events_org
-- (organization_id, id) served no query; the two indexes replace it.
CREATE INDEX events_org_time ON events (organization_id, created_at DESC, id DESC);
CREATE INDEX events_org_type_time ON events (organization_id, type, created_at DESC, id DESC);
DROP INDEX events_org;
