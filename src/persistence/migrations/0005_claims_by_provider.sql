-- Resolutions read the active claims of their eligible providers with one btree scan over the id array
-- (`provider_id = ANY`, a skip scan on PostgreSQL 17+); per-id GiST probes of the exclusion index cost ~15 µs each.
-- The organization-wide GiST index is no longer read by any query.
CREATE INDEX slot_claims_active_by_provider ON slot_claims (organization_id, provider_id, lower(during)) WHERE active;
DROP INDEX slot_claims_org_active;
