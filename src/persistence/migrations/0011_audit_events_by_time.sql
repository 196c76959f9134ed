-- GET /api/v2/audit-events lists an organization's events by request time, newest first, ties by id (CONTRACT part 7):
-- a read's event is stored by the audit drain a moment after the answer, so insertion order (seq) put it after writes
-- made later. The keyset of the list is ("timestamp", id); this index serves it (and the organization's count), so the
-- (organization_id, seq) index it replaces has no reader left.
CREATE INDEX audit_events_org_time ON audit_events (organization_id, "timestamp" DESC, id DESC);
DROP INDEX audit_events_org;
